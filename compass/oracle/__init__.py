"""The fragmentation oracle: phi* and the WCC (``fragmentation``), the MILP behind them
(``milp``) and the NVL72 panel rules (``panels``).

The lowest layer beside ``compass.model``: the schedulers and the simulator import it, and it
imports no other part of compass.
"""
