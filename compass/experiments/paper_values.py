"""The values the paper's text states about its figures (paper/paper_values.yaml).

The paper prints its Figs. 1-7 without the plotted numbers; its sections 6.1-6.6 state some
of them in words ("reduces AJCT by at least 212s", "AFR within 0.0023 to 0.0026"). Each such
value is one ``PaperValue``: the figures draw it as a marker or band labelled "paper"
(``compass.plotting``) and the notebooks' narrative quotes it
(``compass.experiments.narrative``), so that our numbers always stand beside the paper's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import yaml

#: The names the package re-exports (``compass.experiments``, imported on first use).
__all__ = ("PaperValue", "paper_values")

#: The repository's copy (the package sits at <repo>/compass/experiments/).
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "paper" / "paper_values.yaml"
#: ``who`` of a lead over the strongest baseline (positive: COMPASS-ABS better).
LEAD = "lead"


@dataclass(frozen=True)
class PaperValue:
    """One value the paper states: ``low`` / ``high`` bound it (NaN: unbounded on that side;
    equal for an exact value); ``group`` is the figure's trace, eta or window (None: every
    one); ``who`` is ``compass-abs``, ``baselines``, a scheduler, or ``lead``."""

    figure: str
    metric: str
    who: str
    low: float = math.nan
    high: float = math.nan
    group: object = None
    where: str = ""
    #: the claim of paper/claims.yaml that measures it ("": none), the entry of that claim's
    #: measured list (None: the value itself), and our value in the claim's unit per unit
    #: of this one (AGU leads are judged in points: 100)
    claim: str = ""
    part: int | None = None
    scale: float = 1.0
    #: the leads frame that measures it instead of the claim's value ("overall": Fig. 1's
    #: lead per trace and metric, ``comparisons.overall_leads``; "": none)
    leads: str = ""

    def applies_to(self, group: object) -> bool:
        """Whether the value concerns this column of the figure (equal as text or number)."""
        if self.group is None:
            return True
        try:
            return math.isclose(float(self.group), float(group))  # eta 0.9 == 0.90
        except (TypeError, ValueError):
            return str(self.group) == str(group)

    @property
    def exact(self) -> bool:
        return self.low == self.high

    def text(self, scale: float = 1.0, unit: str = "") -> str:
        """The stated value in words: "212", ">= 212", "<= 2", "0.0023-0.0026"."""
        def num(x: float) -> str:
            return f"{x * scale:,.4g}{unit}"
        if self.exact:
            return num(self.low)
        if math.isnan(self.high):
            return f">= {num(self.low)}"
        if math.isnan(self.low):
            return f"<= {num(self.high)}"
        return f"{num(self.low)}-{num(self.high)}"


def _read(entries: list[dict]) -> list[PaperValue]:
    return [PaperValue(figure=e["figure"], metric=e["metric"], who=e["who"],
                       low=float(e.get("low", math.nan)), high=float(e.get("high", math.nan)),
                       group=e.get("group"), where=e.get("where", ""),
                       claim=e.get("claim", ""), part=e.get("part"),
                       scale=float(e.get("scale", 1.0)), leads=e.get("leads", ""))
            for e in entries]


def paper_values(figure: str | None = None, path: str | Path = DEFAULT_PATH
                 ) -> list[PaperValue]:
    """The stated values of one figure stem (all with ``figure=None``), in file order: the
    ones the figures draw (``values``)."""
    found = _read(yaml.safe_load(Path(path).read_text())["values"])
    return [v for v in found if figure is None or v.figure == figure]


def stated_values(path: str | Path = DEFAULT_PATH) -> list[PaperValue]:
    """Every number the paper's text and Tables 1-3 state: the figures' values, then those
    no figure draws (``text_values``: the tables' cells, the case study's blocking)."""
    data = yaml.safe_load(Path(path).read_text())
    return _read(data["values"]) + _read(data.get("text_values") or [])
