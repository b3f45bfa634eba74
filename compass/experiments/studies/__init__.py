"""The side studies, each a package split as the main experiments are (its ``config``, its
``runs``, its ``measures``): ``openb`` (REAL openb pod lists: replay and static packing),
``extension`` (COMPASS-ABS+, our extension), ``nvl72`` (appendix D: multi-panel domains) and
``regime`` (the paper's operating regime, the sensitivity regimes and the fit of their
traces).

The upper wing of ``compass.experiments``: a study imports the main experiments and the
verdict wing, never the other way round. A study adds measure kinds to the claims and
sections to the report by registering them (``compass.experiments.verdict.registry``)
from its ``measures`` and ``sections`` modules, which the registry discovers.
"""
