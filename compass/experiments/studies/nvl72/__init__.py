"""The appendix D study: SIF per level, AJCT and AGU on multi-panel domains (docs/nvl72.md).

One synthetic trace per platform (``compass.traces.nvl72``), replayed by every scheduler on
D domains of K panels. Platforms: "K=1" (DGX/HGX), "K=2" (DGX-2-like), "K=9" (NVL72) and
"8x9" (NVL576 as eight NVL72 sub-domains: no generated instance spans more than 72 GPUs, so
the third tier constrains nothing and NVL576 is 8 x the domains of NVL72 with K = 9; the
flat K = 72 reading is left out: no exact panel-level oracle exists for K > 16).

The baselines ``gfs`` and ``fgd`` keep their node rules but only consider domains where the
instance still has a panel layout (``compass.schedulers.base.PanelFit``; docs/baselines.md,
"Multi-panel domains"), so none of their runs splits an instance. A scheduler whose
placement does split a sub-panel instance across panels is still refused by the simulator
(``SchedulerError``); such a run is reported with ``status`` = the error and NaN metrics
rather than dropped.

``config`` holds the platforms, schedulers and the pipeline's workload; ``runs`` replays
them (rule ``nvl72``) and reads the table back (notebook 07); ``bounds`` gives Theorem 2's
bound at each level from each platform's D and K, drawn on the figure.
"""
