"""docs/measurements.yaml is the one source of every time and count the docs quote.

README.md and ARTIFACT.md may quote a duration (h / min / s / ms / us, ranges included), a
CPU time (CPU-s, CPU-seconds, core-seconds) or a count of tests, notebooks, figures or steps
only if an entry of the YAML lists that exact text in `quoted`; docs/*.md likewise for
durations in hours and minutes, CPU times and counts (their plain seconds, milliseconds and
microseconds are simulated quantities, parameters and per-event benchmark rates, which the
docs give with the benchmark that measures them). Each `quoted` text must say its entry's
value, to the precision it is written with. WHITELIST holds the few matches that are no
measurement, each with its reason.

Every entry of a profile records the plan it measured (``plan``: the fingerprint of
``compass.experiments.fingerprint``, or ``older``). A fingerprint must be the profile's of
today (a dry run in an empty folder counts its steps), so changing a profile's seeds, days or
steps fails here until it is re-measured or marked older; README.md and ARTIFACT.md quote an
older entry only inside a generated cost table (``compass.experiments.cost_tables``, which
must be up to date), and print only the verdict counts of a run of today's plan.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

from compass.experiments.cost_tables import (  # noqa: E402
    OLDER,
    generated_spans,
    load_entries,
    regenerate,
)
from compass.experiments.fingerprint import planned_steps, profile_fingerprint  # noqa: E402
from compass.experiments.pipeline import RUNTIME_MODULES  # noqa: E402
from compass.experiments.verdict.headline import verdict_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = yaml.safe_load((ROOT / "docs" / "measurements.yaml").read_text())["measurements"]
STRICT_FILES = ["README.md", "ARTIFACT.md"]
DOC_FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
PROFILES = sorted(p.stem for p in (ROOT / "config").glob("*.yaml") if p.stem != "schema")
RUNTIME = all(importlib.util.find_spec(m) for m in RUNTIME_MODULES)
#: A run's verdict counts as the docs print them (the report's form).
VERDICT_COUNTS = re.compile(r"\d+ holds(?:, \d+ [a-z ]+?)+ \(\d+ claims\)")
REQUIRED = {"id", "figure", "value", "unit", "quoted", "kind", "date", "commit"}
MEASURED = {"command", "machine", "cores", "load"}

NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
RANGE = rf"{NUM}(?:-{NUM})?"
HOURS = r"(?:h|hours?)"
MINUTES = r"(?:min|minutes?)"
SECONDS = r"(?:s|seconds?)"
CPU = r"(?:CPU-s|CPU-seconds|CPU seconds|core-seconds)"
COUNTS = r"(?:passed|failed|skipped|deselected|errors?|notebooks|figures|steps)"
LONG = (rf"{RANGE} {HOURS}(?: {NUM} {MINUTES})?(?: {NUM} {SECONDS})?"
        rf"|{RANGE} {MINUTES}(?: {NUM} {SECONDS})?"
        rf"|{RANGE} {CPU}|{RANGE} {COUNTS}")
SHORT = rf"{RANGE} ?(?:{SECONDS}|ms|us|µs)"
_EDGE_BEFORE, _EDGE_AFTER = r"(?<![\w.,+-])", r"(?![\w-])"
LOOSE = re.compile(rf"{_EDGE_BEFORE}(?:{LONG}){_EDGE_AFTER}")
STRICT = re.compile(rf"{_EDGE_BEFORE}(?:{LONG}|{SHORT}){_EDGE_AFTER}")

#: (file, text): why a match there is not a measurement.
WHITELIST = {
    ("docs/nvl72.md", "1 h"): "a workload parameter: the median job duration",
    ("docs/simulator.md", "2 h"): "a workload parameter: the filled stream's period",
    ("docs/pipeline.md", "10 minutes"): "a parameter (DRR's cycle) and the paper's phrase",
    ("docs/pipeline.md", "5-15 minutes"): "how the report reads the paper's 'about 10 minutes'",
    ("docs/runtime.md", "75 minutes"): "a scenario parameter: physmix-migrate's arrival span",
    ("docs/runtime.md", "105 minutes"): "a scenario parameter: its longest job's work",
    ("docs/theory.md", "30 min"): "a model parameter: one of the popular runtime limits",
    ("docs/theory.md", "12 h"): "a model parameter: one of the popular runtime limits",
    ("docs/theory.md", "1 h"): "a model parameter: the history estimate's fallback",
    ("docs/traces.md", "10 minutes"): "a duration bucket's bound",
    ("docs/pipeline.md", "48 h"): "a property of the data: the derived Venus table's clamp, "
                                  "as its label quotes it",
}

_UNIT_SECONDS = {"h": 3600, "hour": 3600, "hours": 3600, "min": 60, "minute": 60,
                 "minutes": 60, "s": 1, "second": 1, "seconds": 1, "ms": 1e-3, "us": 1e-6,
                 "µs": 1e-6}


def parse(text: str) -> tuple[float, float, float]:
    """What a quoted text says: (low, high, tolerance) in seconds (times, CPU times) or
    units (counts); the tolerance is half the last digit written in its smallest unit."""
    low = high = 0.0
    tolerance = 0.0
    for number, unit in re.findall(rf"({RANGE}) ?([^\d\s,]+(?: seconds)?)", text):
        unit = unit.strip()
        scale = 1.0 if re.fullmatch(rf"{CPU}|{COUNTS}", unit) else _UNIT_SECONDS[unit]
        parts = [float(p.replace(",", "")) for p in number.split("-")] if "-" in number \
            else [float(number.replace(",", ""))] * 2
        low, high = low + parts[0] * scale, high + parts[1] * scale
        decimals = len(number.split(".")[1]) if "." in number else 0
        tolerance = 0.5 * 10 ** -decimals * scale
    return low, high, tolerance


def test_every_entry_is_complete_and_says_its_value():
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for entry in ENTRIES:
        assert REQUIRED <= set(entry), (entry["id"], REQUIRED - set(entry))
        assert entry["kind"] in ("measured", "computed"), entry["id"]
        if entry["kind"] == "measured":
            assert MEASURED <= set(entry), (entry["id"], MEASURED - set(entry))
        else:
            assert set(entry["from"]) <= set(ids), entry["id"]
        value = entry["value"]
        if entry["unit"] == "verdicts":
            assert entry["quoted"] == [verdict_text(value)], entry["id"]
            continue
        if entry["unit"] == "MB":
            assert entry["quoted"] == [f"{value:,} MB"], entry["id"]
            continue
        low, high = (value, value) if not isinstance(value, list) else value
        for text in entry["quoted"]:
            assert STRICT.fullmatch(text), (entry["id"], text)
            lo, hi, tol = parse(text)
            assert abs(lo - low) <= tol + 1e-9 and abs(hi - high) <= tol + 1e-9, (
                entry["id"], text, (lo, hi, tol), value)


def _quoted() -> set[str]:
    return {text for entry in ENTRIES for text in entry["quoted"]}


@pytest.mark.parametrize("name", STRICT_FILES + DOC_FILES)
def test_the_docs_quote_times_and_counts_only_from_the_measurements(name):
    text = (ROOT / name).read_text()
    pattern = STRICT if name in STRICT_FILES else LOOSE
    known = _quoted()
    spans = generated_spans(text)  # made from the YAML (test_the_cost_tables_are_generated)
    stray = []
    for match in pattern.finditer(text):
        if any(a <= match.start() < b for a, b in spans):
            continue
        if match[0] not in known and (name, match[0]) not in WHITELIST:
            line = text.count("\n", 0, match.start()) + 1
            stray.append(f"{name}:{line}: {match[0]!r}")
    assert not stray, "not in docs/measurements.yaml:\n" + "\n".join(stray)


@pytest.mark.parametrize("text, low, high", [
    ("122 min 56 s", 7376, 7376), ("1 h 40 min", 6000, 6000), ("20.5 min", 1230, 1230),
    ("515 s", 515, 515), ("2-6 s", 2, 6), ("2.5-3 min", 150, 180), ("1,000 passed", 1000, 1000),
    ("12,300 CPU-seconds", 12300, 12300), ("177 us", 177e-6, 177e-6)])
def test_the_parser_reads_each_form(text, low, high):
    assert STRICT.fullmatch(text)
    lo, hi, _ = parse(text)
    assert (lo, hi) == pytest.approx((low, high))


@pytest.mark.parametrize("line, found", [
    ("quick took 4 min 58 s (536 CPU-s)", ["4 min 58 s", "536 CPU-s"]),
    ("the suite: 946 passed, 4 skipped in 515 s", ["946 passed", "4 skipped", "515 s"]),
    ("about 16 min on 8 cores; 7 notebooks, 18 figures", ["16 min", "7 notebooks",
                                                          "18 figures"]),
    ("c = 1..10 s, eta 0.9, day26_s1.csv, +17,516 s", []),
])
def test_the_matcher_is_strict_on_durations_and_counts(line, found):
    """The forms the issue named are caught in README and ARTIFACT.md; parameters such as
    `c = 1..10 s` and signed differences are not measurements."""
    assert [m[0] for m in STRICT.finditer(line)] == found


# ---------------------------------------------------------------- the plan each entry measured

@functools.cache
def todays_plan(profile: str) -> str:
    """The fingerprint of ``profile``'s plan today: its steps from a dry run in an empty
    folder beside the repository's data/ (skips where the plan has a physical step and the
    runtime extra is missing)."""
    path = ROOT / "config" / f"{profile}.yaml"
    if yaml.safe_load(path.read_text())["experiments"].get("physical") and not RUNTIME:
        pytest.skip(f"the {profile} profile plans the physical step, which needs the runtime "
                    "extra (python3 tasks.py env --physical) to be counted")
    folder = ROOT / ".pytest_cache" / f"plan-{profile}"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "data").exists():  # the profile's data/ paths as a run from the root
        (folder / "data").symlink_to(ROOT / "data")  # sees them (REAL Venus), no fallback
    done = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile",
                           str(ROOT / "Snakefile"), "--directory", str(folder), "--cores", "1",
                           "--dry-run", "--quiet", "rules", "--configfile", str(path)],
                          capture_output=True, text=True, timeout=600)
    steps = planned_steps(done.stdout + done.stderr)
    assert done.returncode == 0 and steps, done.stderr[-3000:]
    return profile_fingerprint(path, steps)


def _profile_entries() -> list[dict]:
    return [e for e in ENTRIES if e.get("profile") in PROFILES]


def test_every_entry_of_a_profile_names_its_plan():
    for entry in _profile_entries():
        plan = entry.get("plan")
        assert plan == OLDER or re.fullmatch(r"[0-9a-f]{12}", str(plan)), (
            entry["id"], "needs `plan`: the fingerprint of the plan it measured, or older")


@pytest.mark.parametrize("profile", sorted({e["profile"] for e in _profile_entries()
                                            if e.get("plan") != OLDER}))
def test_a_fingerprinted_entry_measured_todays_plan(profile):
    """Change a profile's seeds (or days, or its steps) and this fails until the entries
    are re-measured (python3 tasks.py measure) or marked ``plan: older``."""
    stale = [e["id"] for e in _profile_entries()
             if e["profile"] == profile and e["plan"] != OLDER
             and e["plan"] != todays_plan(profile)]
    assert not stale, (f"measured on another plan than today's {profile} plan "
                       f"({todays_plan(profile)}): re-measure or mark `plan: older`: {stale}")


def _current(entry: dict) -> bool:
    return entry.get("profile") not in PROFILES or entry.get("plan") == todays_plan(
        entry["profile"])


@pytest.mark.parametrize("name", STRICT_FILES)
def test_readme_and_artifact_quote_only_todays_plan(name):
    """Outside the generated cost tables, every time, count and verdict count README.md and
    ARTIFACT.md print belongs to an entry that measured today's plan (or no profile's)."""
    text = (ROOT / name).read_text()
    spans = generated_spans(text)
    stale = []
    for match in [*STRICT.finditer(text), *VERDICT_COUNTS.finditer(text)]:
        if any(a <= match.start() < b for a, b in spans) or (name, match[0]) in WHITELIST:
            continue
        holders = [e for e in ENTRIES if match[0] in e["quoted"]]
        if not any(_current(e) for e in holders):
            line = text.count("\n", 0, match.start()) + 1
            stale.append(f"{name}:{line}: {match[0]!r}")
    assert not stale, "quoted from no entry of today's plan:\n" + "\n".join(stale)


def test_the_cost_tables_are_generated():
    entries = load_entries(ROOT / "docs" / "measurements.yaml")
    for name in ("README.md", "ARTIFACT.md", "docs/pipeline.md"):
        text = (ROOT / name).read_text()
        assert regenerate(text, entries) == text, (
            f"{name}: a cost table is not what docs/measurements.yaml makes: run "
            "python -m compass.experiments.cost_tables")


def test_the_fingerprint_follows_seeds_days_and_steps_only():
    raw = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())
    base = profile_fingerprint(raw, 84)
    days = {**raw, "traces": {**raw["traces"], "gfs": {**raw["traces"]["gfs"],
                                                      "days": [1, 2]}}}
    assert profile_fingerprint({**raw, "samples": raw["samples"] + 1}, 84) != base
    assert profile_fingerprint(days, 84) != base
    assert profile_fingerprint(raw, 85) != base
    assert profile_fingerprint({**raw, "description": "other words"}, 84) == base
