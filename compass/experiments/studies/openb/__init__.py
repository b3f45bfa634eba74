"""REAL openb experiments: FGD's Alibaba pod lists (ATC'23, data/README.md), the one public
per-task GPU trace the artifact ships, replayed in time and packed statically
(``runs``); ``config`` holds the profile's ``openb`` block, ``results`` reads what the
runs wrote, ``measures`` registers the measure kinds of paper/claims_openb.yaml and
``sections`` the report's line on real data. Labelled REAL everywhere.
"""
