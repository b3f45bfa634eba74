"""The operating regime of the paper's baselines and the sensitivity regimes.

* ``operating``: the quantities the paper states for its baselines (paper/regime.yaml)
  measured on a results folder: the regime table (rule ``regime``);
* ``config``: the profile of each sensitivity regime (profile key ``regimes``: the
  comparison experiments again on SYNTHETIC kinds in the paper's regime);
* ``sensitivity``: the comparison claims judged on a regime, and what they say about the
  main verdicts' gaps (rule ``claims_<regime>``);
* ``fit``: the grid that fits the paper-regime kinds' knobs
  (``compass.traces.regime_knobs``; ``python -m compass.experiments.studies.regime.fit``);
* ``sections``: the report's sections on both.
"""
