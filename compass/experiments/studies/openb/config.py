"""The openb study's settings: the profile's ``openb`` block (``OpenbConfig``: replay and
packing), the label every table, figure and report row carries, and the files the study
writes under results/<profile>/openb/ (docs/pipeline.md, "openb")."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from compass.experiments.config import lane_runs
from compass.experiments.layout import OPENB_NOTEBOOK, OPENB_PRODUCTS
from compass.experiments.profile import PackingConfig, Profile, ReplayConfig
from compass.sim.metrics import METRICS

#: What every table, figure and report row says about this data.
LABEL = "REAL openb (Alibaba FGD ATC'23 pod lists)"
#: Replay metrics (section 5.5) and packing measures.
REPLAY_METRICS = METRICS
PACKING_MEASURES = ("allocated_share", "partial_nodes", "sif")
STAGES = ("first_rejection", "saturation")


@dataclass(frozen=True)
class OpenbConfig:
    """The profile's ``openb`` block (config/quick.yaml; docs/pipeline.md), and the profile's
    ``extension``: our extension's schedulers, replayed and packed after the block's own
    (never a reference or a baseline: no openb lead or verdict uses them), and its
    ``extension_estimates``: the replay runs them under each of these runtime estimates too
    (``config.lane_runs``; packing has no runtimes)."""

    reference: str
    baselines: tuple[str, ...]
    schedulers: tuple[str, ...]
    packing_schedulers: tuple[str, ...]
    replay: ReplayConfig
    packing: PackingConfig
    extension: tuple[str, ...] = ()
    extension_estimates: tuple[str, ...] = ()

    @classmethod
    def from_profile(cls, profile: Profile) -> OpenbConfig | None:
        """The profile's block (reference, baselines and extension are the profile's), or
        None when the profile has none."""
        block = profile.openb
        if block is None:
            return None
        return cls(profile.reference, profile.baselines, block.schedulers,
                   block.packing_schedulers, block.replay, block.packing, profile.extension,
                   profile.extension_estimates if profile.extension else ())

    def record(self) -> dict[str, Any]:
        """JSON-ready form (the rules' params); without ``extension_estimates`` when it is
        empty, so that a profile without them keeps its rules' params."""
        out = json.loads(json.dumps(asdict(self)))
        if not self.extension_estimates:
            del out["extension_estimates"]
        return out

    def resolved(self, root: str | Path) -> OpenbConfig:
        """The same settings with relative file paths taken from ``root`` (the profile's
        paths are relative to the repository, where data/ is)."""
        def where(path: str) -> str:
            return str(Path(path) if Path(path).is_absolute() else Path(root) / path)

        packing = replace(self.packing, node_list=where(self.packing.node_list),
                          variants={k: where(v) for k, v in self.packing.variants.items()})
        return replace(self, replay=replace(self.replay, path=where(self.replay.path)),
                       packing=packing)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> OpenbConfig:
        packing = {**record["packing"], "variants": dict(record["packing"]["variants"])}
        return cls(record["reference"], tuple(record["baselines"]), tuple(record["schedulers"]),
                   tuple(record["packing_schedulers"]), ReplayConfig(**record["replay"]),
                   PackingConfig(**packing), tuple(record.get("extension", ())),
                   tuple(record.get("extension_estimates", ())))

    def replay_runs(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(label, registered scheduler, parameters) of every replay: the block's schedulers,
        then the extension's lane (``config.lane_runs``)."""
        return [(s, s, {}) for s in self.schedulers] + lane_runs(self.extension,
                                                                 self.extension_estimates)


def openb_dir(results: str | Path) -> Path:
    """Where a profile's openb results live."""
    return Path(results) / "openb"


#: Notebook 08 and what it writes (figures PNG + PDF, tables CSV + Markdown): the registry's.
NOTEBOOK, PRODUCTS = OPENB_NOTEBOOK, OPENB_PRODUCTS
#: Files of ``openb_dir``: tables by stem (``table_path``: CSV, or Parquet as the profile's
#: ``outputs.table_format`` says), metadata as JSON.
REPLAY_RUNS, REPLAY_DAYS, REPLAY_META = "replay_runs", "replay_days", "replay.json"
PACKING, PACKING_META = "packing", "packing.json"
