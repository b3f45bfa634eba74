"""COMPASS-ABS+, our extension beyond the paper (docs/theory.md): its goal experiment and its
lane in the pipeline.

The goal: on gfs-synth days 26 and 58 and venus-synth days 92 and 94 at eta = 0.90 and
c = 10 s, AJCT no higher and AGU no lower than every baseline, and a mean migration pause
per job under 1 s. The days are built as the ``simulate`` rule builds them; every synthetic
seed is another sample of the same day. The data are SYNTHETIC, and every row says so.

* ``config``: COMPASS-ABS+, its fair reference (best-fit under the same backfill, read
  from the schedulers' cards), the goal's days, the ablation's variants, the tables' names;
* ``runs``: ``goal_runs`` (one tidy row per trace, day, seed and scheduler or variant),
  ``estimate_runs`` (each runtime estimate), ``slack_runs`` (each bound slack);
* ``measures``: ``goal_table``, ``ablation_table``, ``estimate_leads``, ``slack_curve``,
  and ``extension_leads``, the pipeline's table of the lane;
* ``figure``: the bound-slack curve; ``sections``: the report's "Beyond the paper".

``python -m compass.experiments.studies.extension --out results/extension`` runs the goal
(``--part estimates``, ``--part bound-slack``: the other two). It reads no profile.

In the pipeline, the profile key ``extension`` runs our extension's schedulers in every
batch beside the paper's (``Results.extension_runs``), ``extension_estimates`` runs them
again under each runtime estimate (``config.lane_runs``), the rule ``extension_leads``
writes ``measures.extension_leads`` and the report's section "Beyond the paper" renders
it. COMPASS-ABS+ is never one of the paper's schedulers: nothing here feeds a paper verdict.
"""
