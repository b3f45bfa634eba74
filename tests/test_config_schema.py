"""The typed profile (compass.experiments.profile) is the one source of a profile's keys:
config/schema.yaml is generated from it, a profile read and written back reads the same (for
every shipped profile and for drawn variations of them), and docs/pipeline.md names every
key."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from compass.experiments.config import (
    ConfigError,
    config_record,
    parse_config,
    read_config_record,
)
from compass.experiments.config_schema import schema_text
from compass.experiments.profile import (
    EXTENSION_SCHEDULERS,
    LANE_ESTIMATES,
    Profile,
    bare,
    hints,
    profile_dict,
    read_profile,
    role,
)
from compass.traces.synthetic import KINDS

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[1]
PROFILES = sorted(p.stem for p in (ROOT / "config").glob("*.yaml") if p.stem != "schema")
SCHEMA = jsonschema.Draft202012Validator(
    yaml.safe_load((ROOT / "config" / "schema.yaml").read_text()))


def _profile(name: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text())


def test_the_committed_schema_is_the_generated_one():
    """Edit compass/experiments/profile.py, then regenerate:
    python -m compass.experiments.config_schema > config/schema.yaml"""
    assert (ROOT / "config" / "schema.yaml").read_text() == schema_text()


@pytest.mark.parametrize("name", PROFILES)
def test_a_profile_written_back_reads_the_same(name):
    """``profile_dict`` writes what the YAML gives (numbers as their key's type, defaults
    left out), which the schema accepts and ``read_profile`` reads back equal; a config.json
    written before profiles were typed (the YAML's dict itself) reads as one written now."""
    raw = _profile(name)
    written = profile_dict(read_profile(raw))
    assert read_profile(written) == read_profile(raw)
    assert parse_config(written) == parse_config(raw)
    SCHEMA.validate(written)
    cfg, _ = read_config_record({"profile": raw, "resolved": {}})
    assert config_record(cfg, {}) == {"profile": written, "resolved": {}}
    assert read_config_record(config_record(cfg, {}))[0].spec == cfg.spec


def test_a_dict_read_without_the_schema_is_refused_with_the_key():
    raw = _profile("smoke")
    del raw["traces"]["gfs"]["synthetic"]
    with pytest.raises(ConfigError, match="traces.gfs: no key 'synthetic'"):
        read_profile(raw)
    with pytest.raises(ConfigError, match="experiments.overall.traces: a list"):
        read_profile({**_profile("smoke"), "experiments": {
            **_profile("smoke")["experiments"], "overall": {"traces": "gfs", "eta": 0.9}}})


def _keys(cls: type, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every key of a block and of the blocks below it, as paths."""
    out = []
    for f in fields(cls):
        if role(f) is None:
            out.append((*path, f.name))
            types = [hints(cls)[f.name]]
            while types:
                tp = bare(types.pop())
                if is_dataclass(tp):
                    out += _keys(tp, (*path, f.name))
                else:
                    types += get_args(tp)
    return out


def test_the_docs_name_every_key():
    """docs/pipeline.md's table of keys names each key of the profile (in a code span)."""
    text = (ROOT / "docs" / "pipeline.md").read_text()
    table = text[text.index("| key | meaning |"):text.index("Override any key")]
    missing = [".".join(p) for p in _keys(Profile)
               if not re.search(rf"`[^`\n]*\b{re.escape(p[-1])}\b[^`\n]*`", table)]
    assert not missing, missing


# ----------------------------------------------------------------- drawn variations
DAYS = st.one_of(st.lists(st.integers(0, 200), min_size=1, max_size=4), st.just("all"),
                 st.fixed_dictionaries({}, optional={"start": st.integers(0, 20),
                                                     "stop": st.none() | st.integers(21, 200),
                                                     "step": st.integers(1, 5)}))
NUMBER = st.sampled_from([1, 2, 8, 8.0, 10, 0.5])
SOURCE = st.fixed_dictionaries({"path": st.just("data/x.csv"),
                                "format": st.sampled_from(["auto", "helios"])},
                               optional={"options": st.just({"origin": "2020-03-17"})})
NAMES = st.lists(st.sampled_from(["mod.a", "mod.b"]), unique=True)
#: A value that removes its key.
_DROP = object()


def _set(*path: str) -> Callable[[Any], Callable[[dict], None]]:
    """value -> an edit that sets (or, with ``_DROP``, removes) the key at ``path``."""
    def edit(value: Any) -> Callable[[dict], None]:
        def apply(raw: dict) -> None:
            block = raw
            for k in path[:-1]:
                block = block[k]
            if value is _DROP:
                block.pop(path[-1], None)
            else:
                block[path[-1]] = value
        return apply
    return edit


def _rename_sweep(raw: dict) -> None:
    raw["experiments"]["migration_cost"] = raw["experiments"].pop("cost_sweep")


#: Edits of a shipped profile the schema accepts, each drawn with its value.
EDITS = [
    st.integers(0, 9).map(_set("seed")), st.integers(1, 9).map(_set("samples")),
    st.booleans().map(_set("trust_local")), st.booleans().map(_set("progress")),
    NAMES.map(_set("plugins")), NAMES.map(_set("compare_plugins")),
    st.lists(st.sampled_from(EXTENSION_SCHEDULERS), unique=True).map(_set("extension")),
    st.lists(st.sampled_from(LANE_ESTIMATES), unique=True).map(_set("extension_estimates")),
    st.dictionaries(st.sampled_from(["gfs-1", "fft-2"]), st.fixed_dictionaries(
        {"scheduler": st.sampled_from(["gfs", "fft"]),
         "params": st.dictionaries(st.sampled_from(["round_s", "backfill"]),
                                   st.integers(1, 9) | st.booleans())})).map(_set("variants")),
    st.dictionaries(st.sampled_from(["r1", "r-2"]), st.dictionaries(
        st.sampled_from(["gfs", "venus"]), st.sampled_from(KINDS), min_size=1),
        max_size=2).map(_set("regimes")),
    st.just(_DROP).map(_set("regimes")), st.just(_DROP).map(_set("openb")),
    NUMBER.map(_set("migration_cost")),
    st.sampled_from(["csv", "parquet"]).map(_set("outputs", "table_format")),
    DAYS.map(_set("traces", "gfs", "days")),
    st.tuples(st.integers(0, 11), st.integers(12, 24)).map(list).map(
        _set("traces", "gfs", "hours")),
    (st.none() | st.integers(1, 9)).map(_set("traces", "gfs", "nodes")),
    st.one_of(st.none(), SOURCE, st.lists(SOURCE, min_size=1, max_size=2)).map(
        _set("traces", "venus", "real")),
    st.sampled_from(["auto", "never"]).map(_set("traces", "venus", "use_real")),
    (DAYS | st.just(_DROP)).map(_set("experiments", "eta_sweep", "days")),
    st.lists(NUMBER, min_size=1, max_size=3).map(_set("experiments", "cost_sweep", "costs")),
    st.just(_DROP).map(_set("experiments", "fft_breakeven")),
    st.none().map(_set("experiments", "fft_breakeven")),
    (st.none() | st.just(_DROP)).map(_set("experiments", "physical")),
    NUMBER.map(_set("experiments", "case_study", "window_minutes")),
    (st.none() | st.lists(st.integers(0, 200), min_size=1, max_size=3)).map(
        _set("experiments", "case_study", "candidate_days")),
]


@st.composite
def variations(draw: st.DrawFn) -> dict[str, Any]:
    """A shipped profile under a few drawn edits (the c sweep last, under either name)."""
    raw = copy.deepcopy(_profile(draw(st.sampled_from(PROFILES))))
    for edit in draw(st.lists(st.one_of(EDITS), max_size=6)):
        edit(raw)
    if draw(st.booleans()):
        _rename_sweep(raw)
    return raw


@given(variations())
def test_a_drawn_profile_written_back_reads_the_same(raw):
    """parse(dump(parse(raw))) == parse(raw) on profiles the schema accepts; the profile
    written back is accepted too, and the pipeline's checks say the same of both."""
    SCHEMA.validate(raw)
    profile = read_profile(raw)
    written = profile_dict(profile)
    SCHEMA.validate(written)
    assert read_profile(written) == profile
    try:
        cfg = parse_config(raw)
    except ConfigError as err:
        with pytest.raises(ConfigError) as again:
            parse_config(written)
        assert str(again.value) == str(err)
    else:
        assert parse_config(written) == cfg
