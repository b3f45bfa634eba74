"""The openb study's line in the report's findings (paper/REPRODUCTION.md): its claims,
the only comparisons on real data, registered with the verdict wing
(``registry.report_section``)."""

from __future__ import annotations

from compass.experiments.studies.openb.config import LABEL
from compass.experiments.verdict.claims import DEFAULT_VARIANT
from compass.experiments.verdict.registry import ReportInputs, report_section


@report_section("real data")
def real_data(inputs: ReportInputs) -> list[str]:
    """The verdicts of the openb claims (paper/claims_openb.yaml) that have data."""
    frame = inputs.claims[inputs.claims["variant"] == DEFAULT_VARIANT]
    real = frame[frame["id"].str.startswith("openb-") & ~frame["verdict"].isin(
        ["no data", "not measured"])]
    if not len(real):
        return []
    return [f"- **Real data** ({LABEL}, the only real-trace comparison here): "
            + "; ".join(f"`{r.id}` {r.verdict} ({r.ours_text.removeprefix(f'{LABEL}: ')})"
                        for r in real.itertuples()) + "."]
