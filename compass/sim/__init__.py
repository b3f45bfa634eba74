"""The event-driven simulator and what a run is made of: the dispatch of a scheduler's
decisions (``dispatch``), the run loop (``simulator``), the fragmentation timeline
(``timeline``), the tables' columns (``records``), their metrics (``metrics``), static
packing (``packing``), a run's inputs and table files (``run_inputs``, ``table_files``),
DRR's training through the simulator (``drr_training``) and the builders that turn a
scheduler's run parameters into such a trained policy (``builders``).

Above the schedulers and the oracle; the physical runtime shares ``dispatch``, ``timeline``
and ``records`` with the simulator.
"""
