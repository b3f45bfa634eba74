"""Outside schedulers (plugins) compared in the pipeline (profile key ``compare_plugins``):
``leads`` computes each one's paired-bootstrap leads over the reference and the strongest
baseline and writes the table of the rule ``plugin_leads``; ``sections`` renders it in the
report's section "Outside schedulers".
"""
