"""The pipeline end to end on the smoke profile, in a temporary folder (what CI runs).

Checks that every notebook executed, every figure, table and the claims report were
written, every run completed, and that a rerun redoes only what is missing.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass.experiments.config import PAPER_SCHEDULERS, parse_config
from compass.experiments.fingerprint import profile_fingerprint
from compass.experiments.layout import NOTEBOOKS, TABLE1, figure_files, table_files
from compass.experiments.pipeline import RUNTIME_MODULES
from compass.schedulers import available

ROOT = Path(__file__).parents[1]
MISSING = [m for m in ("snakemake", "papermill", "matplotlib", "seaborn")
           if importlib.util.find_spec(m) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"{', '.join(MISSING)} not installed: pip install -e '.[pipeline]'")

#: The paper's schedulers registered now; all eight once every baseline is in.
SCHEDULERS = [s for s in PAPER_SCHEDULERS if s in available()]


def snakemake(workdir: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(workdir), "--cores", "all",
           "--configfile", str(ROOT / "config" / "smoke.yaml"),
           "--config", f"schedulers={json.dumps(SCHEDULERS)}", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    workdir = tmp_path_factory.mktemp("pipeline")
    done = snakemake(workdir)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return workdir


def test_every_notebook_executed(smoke):
    import nbformat

    for name in NOTEBOOKS:
        nb = nbformat.read(smoke / "results" / "smoke" / "notebooks" / f"{name}.ipynb", 4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert any("injected-parameters" in c.metadata.get("tags", []) for c in code), name
        assert all(c.execution_count for c in code), name
        assert not [o for c in code for o in c.outputs if o.output_type == "error"], name
        assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs), name


def test_the_run_records_its_cost(smoke, loaded):
    """results/<p>/cost.json: each successful run's wall time, CPU seconds (Snakemake and
    the jobs it waited for), cores and load; the loaded rerun of two notebooks rewrote it."""
    import os

    first = json.loads((smoke / "results" / "smoke" / "cost.json").read_text())
    again = json.loads((loaded[0] / "results" / "smoke" / "cost.json").read_text())
    for record, cores in ((first, os.cpu_count()), (again, 2)):
        assert record["profile"] == "smoke" and record["cores"] == cores
        assert 0 < record["cpu_s"] and 0 < record["wall_s"]
        assert len(record["load_start"]) == len(record["load_end"]) == 3
        assert record["machine_cores"] == os.cpu_count()
    # the loaded run's CPU: at least its two notebooks' kernels (its burners are not its own)
    assert again["date"] > first["date"] and again["cpu_s"] >= 2
    # the whole run measured today's smoke plan; the rerun of two notebooks another one
    steps = planned_jobs(snakemake(smoke, "--dry-run", "--forceall").stdout)
    today = profile_fingerprint(ROOT / "config" / "smoke.yaml", sum(steps.values()))
    assert first["plan"] == today != again["plan"]
    assert sum(first["verdicts"].values()) == 81 and first["verdicts_text"].endswith(
        "(81 claims)")
    assert first["peak_memory_mb"] > 50 and first["disk_mb"] > 0


def test_the_report_and_its_page_open_with_the_headline(smoke):
    """REPRODUCTION.md and REPRODUCTION.html open with one row per section of the paper."""
    md = (smoke / "results" / "smoke" / "REPRODUCTION.md").read_text()
    page = (smoke / "results" / "smoke" / "REPRODUCTION.html").read_text()
    assert md.index("## Headline") < md.index("## Data") < md.index("## Claims")
    head = md[md.index("## Headline"):md.index("## Data")]
    assert all(f"| {n} " in head for n in ("6.1", "6.2", "6.3", "6.4", "6.5", "6.6"))
    assert page.index('id="headline"') < page.index("<h2>Terms</h2>")
    assert page.count("data:image/png;base64,") >= 10


def test_every_figure_and_table_was_written(smoke):
    figures, tables = smoke / "results/smoke/figures", smoke / "results/smoke/tables"
    expected = table_files(tables, TABLE1)
    for products in NOTEBOOKS.values():
        expected += [f for s in products.figures for f in figure_files(figures, s)]
        expected += [f for s in products.tables for f in table_files(tables, s)]
    missing = [str(p.relative_to(smoke)) for p in expected
               if not p.is_file() or p.stat().st_size == 0]
    assert not missing
    assert "SYNTHETIC" in (tables / "fig1_overall.md").read_text()


def test_every_run_completed(smoke):
    runs = pd.read_csv(smoke / "results" / "smoke" / "runs.csv")
    raw = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    lane = parse_config(raw).extension_labels   # with each runtime estimate's runs
    assert set(runs["scheduler"]) == {*SCHEDULERS, *raw["variants"], *lane}
    assert len(lane) == len(raw["extension"]) * (1 + len(raw["extension_estimates"]))
    failed = runs[runs["status"] != "ok"]
    assert failed.empty, failed[["trace", "day", "eta", "cost", "scheduler", "error"]]
    case = pd.read_csv(smoke / "results" / "smoke" / "case" / "runs.csv")
    assert (case["status"] == "ok").all(), case


def test_the_report_states_every_claim(smoke):
    text = (smoke / "results" / "smoke" / "REPRODUCTION.md").read_text()
    claims = yaml.safe_load((ROOT / "paper" / "claims.yaml").read_text())["claims"]
    assert [c["id"] for c in claims if f"| {c['id']} |" not in text] == []
    assert "**SYNTHETIC data.**" in text
    assert "## Known deviations" in text and "theorem1-per-type" in text
    assert "## Failed runs" not in text


def test_runs_keep_moves_by_operator_and_the_common_window(smoke):
    """Issue 12: the batch columns, and the report rows that read them."""
    runs = pd.read_csv(smoke / "results" / "smoke" / "runs.csv")
    mine = runs[runs["scheduler"] == "compass-abs"]
    assert mine["operator_moves"].str.contains("compact-pool").any()
    made = runs[runs["scheduler"].isin(SCHEDULERS)]  # the variants do not widen the window
    assert (made["common_seconds"] >= made["peak_seconds"]).all()
    text = (smoke / "results" / "smoke" / "REPRODUCTION.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| mig-pause |"))
    assert "compass-abs's" in row and "compact-pool" in row
    assert "## AFR and AGU: own T_peak and a common window" in text


def test_the_literal_compact_replays_the_breakeven_samples(smoke):
    """compass-abs-paper's runs are exactly the samples of FFT's break-even, at the overall
    eta and c, with the operators of the paper's Compact only; the table pairs them with
    compass-abs's overall runs, names its data, and the report says whose the pause is."""
    from compass.experiments.breakeven import breakeven_samples
    from compass.experiments.compact_literal import LITERAL, LITERAL_TABLE
    from compass.experiments.layout import Layout
    from compass.experiments.results import Results
    from compass.sim.table_files import read_frame

    results = smoke / "results" / "smoke"
    res = Results.load(results)
    samples = breakeven_samples(res.config, res.traces)
    assert samples
    for trace, pairs in samples.items():
        runs = read_frame(Layout.of(results).compact_literal_runs(trace))
        assert list(zip(runs["day"], runs["seed"])) == pairs
        assert set(runs["scheduler"]) == {LITERAL} and (runs["status"] == "ok").all()
        assert (runs["eta"] == res.config.experiments.overall_eta).all()
        assert (runs["cost"] == res.config.migration_cost).all()
        assert not runs["operator_moves"].str.contains("repair").any()
    table = pd.read_csv(results / "tables" / f"{LITERAL_TABLE}.csv")
    assert list(table["trace"].unique()) == list(samples)
    assert (table["n"] == 2).all()  # both seeds of the one day of each trace
    assert "SYNTHETIC" in (results / "tables" / f"{LITERAL_TABLE}.md").read_text()
    text = (results / "REPRODUCTION.md").read_text()
    line = next(x for x in text.splitlines() if f"{LITERAL_TABLE}.csv): " in x)
    assert all(f"{t} (c = 8 s, n = 2): pause per job literal" in line for t in samples)


def test_the_claims_table_gives_every_lead_an_interval_over_the_samples(smoke):
    """paper/tables/claims.csv: one row per claim; every AJCT/AGU lead that has data comes
    with n >= 2 samples (smoke: 2 seeds per synthetic day) and an interval around it; every
    verdict is one of the report's classes, and the report counts them."""
    from compass.experiments.verdict.claims import VERDICTS

    results = smoke / "results" / "smoke"
    table = pd.read_csv(results / "tables" / "claims.csv")
    claims = yaml.safe_load((ROOT / "paper" / "claims.yaml").read_text())["claims"]
    assert {c["id"] for c in claims} <= set(table["id"])
    assert set(table["verdict"]) <= set(VERDICTS)
    leads = {c["id"] for c in claims if c["measure"]["kind"] == "lead"
             and c["measure"]["metric"] in ("ajct", "agu")}
    measured = table[table["id"].isin(leads) & table["ours"].notna()]
    assert len(measured) >= 6
    assert (measured["n"] >= 2).all()
    assert (measured["ci_low"] <= measured["ci_high"]).all()
    text = (results / "REPRODUCTION.md").read_text()
    default = table[table["variant"] == "default"]
    counts = default["verdict"].value_counts()
    assert ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS) in text
    # the sensitivity section: every lead claim again under each variant of the profile
    variants = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["variants"]
    for variant in variants:
        assert leads <= set(table.loc[table["variant"] == variant, "id"]), variant
    assert "## Sensitivity" in text and "mcg-backfill" in text


def test_the_paper_beside_ours_has_every_stated_number(smoke):
    """paper/tables/paper_vs_ours.csv from the smoke run: every number the paper states for
    Figs. 1-7 and Tables 1-3 (at least 30), each with ours or why not; the report points to
    it in its own section."""
    from compass.experiments.paper_values import stated_values
    tables = smoke / "results" / "smoke" / "tables"
    table = pd.read_csv(tables / "paper_vs_ours.csv")
    assert len(table) == len(stated_values()) >= 30
    measured = table["difference"].notna()
    assert table.loc[~measured, "note"].str.startswith("not measured: ").all()
    assert (table.loc[measured, "ours"].notna() | table.loc[measured, "ours_low"].notna()).all()
    assert measured.sum() >= 30  # the smoke run measures most of them
    assert (tables / "paper_vs_ours.md").read_text().count("\n| ") >= 31
    text = (smoke / "results" / "smoke" / "REPRODUCTION.md").read_text()
    assert "## The paper beside ours" in text and "paper_vs_ours.csv" in text


def test_the_regime_table_sets_each_paper_quantity_beside_ours(smoke):
    """regime.csv from the smoke run: one row per quantity of paper/regime.yaml, the paper's
    value beside ours (or `not measured` where the run has nothing to measure it on), and
    the report's section that renders it."""
    from compass.experiments.studies.regime.operating import read_regime
    quantities = read_regime(ROOT / "paper" / "regime.yaml")
    table = pd.read_csv(smoke / "results" / "smoke" / "tables" / "regime.csv",
                        keep_default_na=False)
    assert list(table["id"]) == [q.id for q in quantities]
    assert (table["paper"] != "").all() and (table["ours"] != "").all()
    assert (table["ours"] != "not measured").sum() >= 3  # the composition bands at least
    text = (smoke / "results" / "smoke" / "REPRODUCTION.md").read_text()
    assert "## The operating regime" in text and "regime.csv" in text


def test_the_baseline_ranking_sets_the_paper_order_beside_ours(smoke):
    """baseline_ranking.csv from the smoke run: our order of the six baselines in every group
    the run measures, each paper order beside ours in every case window it covers, and the
    report's section with the computed summary line."""
    from compass.experiments.ranking import ranking_summary, read_rankings
    table = pd.read_csv(smoke / "results" / "smoke" / "tables" / "baseline_ranking.csv",
                        keep_default_na=False)
    assert {"overall", "eta_sweep", "composition", "case"} <= set(table["experiment"])
    measured = table[table["n"] > 0]
    assert (measured["ours"] != "").all() and (measured["strongest"] != "").all()
    shares = measured[[c for c in table if c.startswith("p_first_")]].replace("", "nan")
    assert shares.astype(float).sum(axis=1).to_numpy() == pytest.approx(1.0)
    ordered = table[table["paper"] != ""]
    assert set(ordered["metric"]) == {r.metric for r in read_rankings(
        ROOT / "paper" / "paper_rankings.yaml")}
    assert set(ordered["agreement"]) <= {"agrees", "differs", "undecided", "not measured"}
    text = (smoke / "results" / "smoke" / "REPRODUCTION.md").read_text()
    line = ranking_summary(table)
    assert "## Do the baselines rank as in the paper?" in text
    assert line[0].upper() + line[1:] + "." in text


def test_the_paper_regime_judges_the_comparisons_apart(smoke):
    """The smoke profile's regime (profile key `regimes`): its runs in their own folder,
    claims_paper_regime.csv with every comparison claim judged on them and the case-study
    claims listed as not re-judged, regime.csv with the regime's quantities beside ours, and
    the report's section and its one line per claim family in "What we found"."""
    from compass.experiments.studies.regime.sensitivity import NOT_REJUDGED, is_comparison, reading
    from compass.experiments.verdict.claims import load_claims

    results = smoke / "results" / "smoke"
    assert (results / "regimes" / "paper-regime" / "runs.csv").is_file()
    claims = load_claims(ROOT / "paper" / "claims.yaml")
    table = pd.read_csv(results / "tables" / "claims_paper_regime.csv", keep_default_na=False)
    judged = table[table["verdict"] != NOT_REJUDGED]
    assert list(judged["id"]) == [c.id for c in claims if is_comparison(c)]
    assert set(table.loc[table["verdict"] == NOT_REJUDGED, "id"]) == {
        c.id for c in claims if c.section.startswith("6.6")}
    assert judged["data"].str.startswith("SYNTHETIC").any()
    regime = pd.read_csv(results / "tables" / "regime.csv", keep_default_na=False)
    assert (regime["ours_paper_regime"] != "not measured").sum() >= 3
    assert {"interval_paper_regime", "samples_paper_regime"} <= set(regime.columns)
    text = (results / "REPRODUCTION.md").read_text()
    assert "## On the paper's regime" in text and "claims_paper_regime.csv" in text
    found = text[text.index("## What we found"):text.index("## Summary")]
    lines = [r.line("paper-regime") for r in reading(
        pd.read_csv(results / "tables" / "claims.csv", keep_default_na=False), table)]
    assert lines and all(line in found for line in lines)


def test_the_extension_lane_never_changes_a_verdict(smoke, tmp_path):
    """claims.csv measured again on the same results without the extension (its rows out of
    runs.csv and the openb tables, its key out of the profile) has the same verdicts, and
    the report gives the lane its own section after the paper's claims."""
    import shutil

    from compass.experiments.verdict.verdicts import write_claims

    results, copy = smoke / "results" / "smoke", tmp_path / "smoke"
    shutil.copytree(results, copy, ignore=shutil.ignore_patterns("notebooks", "logs", "runs"))
    record = json.loads((copy / "config.json").read_text())
    extension = parse_config(record["profile"]).extension_labels   # estimates' runs too
    for key in ("extension", "extension_estimates"):
        record["profile"].pop(key)
    (copy / "config.json").write_text(json.dumps(record))
    for table in [copy / "runs.csv", *(copy / "openb").glob("*.csv")]:
        frame = pd.read_csv(table)
        if "scheduler" in frame:
            frame[~frame["scheduler"].isin(extension)].to_csv(table, index=False)
    write_claims(copy, [ROOT / "paper" / "claims.yaml", ROOT / "paper" / "claims_openb.yaml"],
                 ROOT / "paper" / "deviations.yaml", copy / "tables")
    columns = ["id", "variant", "verdict", "ours", "ci_low", "ci_high", "n", "ours_text"]
    mine, theirs = (pd.read_csv(folder / "tables" / "claims.csv")[columns]
                    for folder in (results, copy))
    pd.testing.assert_frame_equal(mine, theirs)
    text = (results / "REPRODUCTION.md").read_text()
    assert text.index("## Claims") < text.index("## Beyond the paper: COMPASS-ABS+")
    assert (results / "tables" / "extension_leads.csv").is_file()


def test_the_real_openb_experiments_ran_and_are_reported(smoke):
    """Notebook 08 (REAL openb: replay and the four packing variants) and its claims."""
    import nbformat

    from compass.experiments.studies.openb.config import NOTEBOOK, PRODUCTS

    results = smoke / "results" / "smoke"
    nb = nbformat.read(results / "notebooks" / f"{NOTEBOOK}.ipynb", 4)
    assert not any(o.get("output_type") == "error" for c in nb.cells
                   for o in c.get("outputs", []))
    for stem in PRODUCTS.figures:
        assert all(f.exists() for f in figure_files(results / "figures", stem)), stem
    for stem in PRODUCTS.tables:
        assert all(f.exists() for f in table_files(results / "tables", stem)), stem
    packing = pd.read_csv(results / "tables" / "openb_packing.csv")
    assert set(packing["variant"]) == {"multigpu20", "multigpu30", "multigpu40", "multigpu50"}
    text = (results / "REPRODUCTION.md").read_text()
    claims = yaml.safe_load((ROOT / "paper" / "claims_openb.yaml").read_text())["claims"]
    assert [c["id"] for c in claims if f"| {c['id']} |" not in text] == []
    assert "REAL openb" in text


def test_every_step_logs_to_the_profile_logs_folder(smoke):
    """Each job's stderr goes to results/<profile>/logs/ (a simulate job's start-up, batch
    and run lines included)."""
    logs = smoke / "results" / "smoke" / "logs"
    for name in NOTEBOOKS:
        assert (logs / "notebooks" / f"{name}.log").is_file(), name
    for step in ("config_json", "collect_runs", "case_study", "table1", "nvl72", "claims",
                 "report", "openb_replay", "openb_packing"):
        assert (logs / f"{step}.log").is_file(), step
    jobs = list((smoke / "results" / "smoke" / "runs").rglob("*.csv"))
    job_logs = list((logs / "simulate").rglob("*.log"))
    assert len(job_logs) == len(jobs)
    assert all("compass-abs" in log.read_text() and "start-up" in log.read_text()
               for log in job_logs)


def test_the_html_report_shows_every_figure_and_the_claims_table(smoke):
    """`snakemake --report report.html`: every PNG figure and the claims table, captioned."""
    done = snakemake(smoke, "--report", "report.html")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    html = (smoke / "report.html").read_text()
    stems = [s for products in NOTEBOOKS.values() for s in products.figures]
    assert [s for s in stems if f"{s}.png" not in html] == []
    assert "claims.csv" in html and "paired-bootstrap interval" in html


#: Two notebook steps (among the cheapest) run again side by side on a loaded machine.
LOADED = ["04_wcc_coverage", "07_nvl72"]


@pytest.fixture(scope="module")
def loaded(smoke, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of the smoke run whose notebooks LOADED run again at once, on 2 cores, while
    busy processes hold every core (the copy leaves the smoke run's outputs untouched)."""
    import os
    import shutil

    copy = tmp_path_factory.mktemp("loaded") / "pipeline"
    shutil.copytree(smoke, copy, symlinks=True)
    folder = copy / "results" / "smoke" / "notebooks"
    for name in LOADED:
        (folder / f"{name}.ipynb").unlink()
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(os.cpu_count() or 1)]
    try:
        done = snakemake(copy, "--cores", "2", "--printshellcmds",
                         *[f"results/smoke/notebooks/{name}.ipynb" for name in LOADED])
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    return copy, done


def test_two_notebook_steps_at_once_on_a_loaded_machine(loaded):
    """Both kernels start within papermill's start-up timeout (600 s, not its default 60 s)
    and both steps finish; the `notebook` resource lets two run at once."""
    copy, done = loaded
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-4000:]
    assert text.count("--start-timeout 600") == len(LOADED)
    started = [text.index(f"rule notebook_{name}:") for name in LOADED]
    assert max(started) < text.index("Finished job")  # both started before one finished
    folder = copy / "results" / "smoke" / "notebooks"
    assert all((folder / f"{name}.ipynb").is_file() for name in LOADED)


@pytest.mark.parametrize("where", ["notebooks", "moved"])
def test_an_executed_notebook_reruns_from_its_folder_and_moved(loaded, tmp_path, where,
                                                               monkeypatch):
    """results/<p>/notebooks/<name>.ipynb runs again as it is (what `jupyter nbconvert
    --execute` does) from its own folder, also after the results folder was moved elsewhere:
    the pipeline injected parameters relative to that folder, so the moved copy reads and
    writes its own files and never the checkout that produced it."""
    import nbformat
    from nbclient import NotebookClient

    copy, _ = loaded
    results = copy / "results" / "smoke"
    if where == "moved":
        results = Path(shutil.copytree(results, tmp_path / "elsewhere" / "smoke"))
    folder = results / "notebooks"
    nb = nbformat.read(folder / f"{LOADED[-1]}.ipynb", 4)
    injected = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    paths = re.findall(r'^\w+ = "(.*)"$', injected.source, flags=re.M)
    assert paths and not any(Path(p).is_absolute() for p in paths), injected.source
    moved = {p: p.stat().st_mtime_ns for p in (results / "figures").glob("*.png")}
    before = {p: p.stat().st_mtime_ns for p in (copy / "results" / "smoke" / "figures").glob(
        "*.png")}
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the kernel imports this checkout's compass
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs)
    if where == "moved":  # it wrote its figures into the moved folder, not the original
        assert any(p.stat().st_mtime_ns > t for p, t in moved.items())
        assert before == {p: p.stat().st_mtime_ns for p in before}


def test_a_rerun_redoes_only_what_is_missing(smoke):
    first = snakemake(smoke, "--dry-run")
    assert "Nothing to be done" in first.stdout + first.stderr
    # as if interrupted while simulating: one simulate job's CSV and everything after the
    # jobs missing
    results = smoke / "results" / "smoke"
    (results / "runs" / "gfs" / "part1.csv").unlink()
    for done in [results / "runs.csv", results / "REPRODUCTION.md",
                 *(results / "notebooks").glob("*.ipynb")]:
        done.unlink()
    again = snakemake(smoke, "--dry-run")
    plan = again.stdout + again.stderr
    jobs = dict(line.split()[:2] for line in plan.splitlines()
                if line.split()[:1] and line.split()[0] in ("simulate", "case_study",
                                                            "collect_runs"))
    assert jobs == {"simulate": "1", "collect_runs": "1"}


#: Runs snakemake as on a machine without the runtime extra: the plan looks for a module
#: that does not exist instead of Ray and PyTorch (CI also runs the suite without the extra).
WITHOUT_RUNTIME = ("import sys, compass.experiments.pipeline as p; "
                   "p.RUNTIME_MODULES = ('compass_absent_runtime',); "
                   "sys.argv[0] = 'snakemake'; from snakemake.cli import main; main()")


def planned_jobs(text: str) -> dict[str, int]:
    """The rule -> count lines of a dry run's "Job stats" table."""
    lines = text[text.index("Job stats:"):].splitlines()[3:]
    jobs = {}
    for line in lines:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit() or parts[0] == "total":
            break
        jobs[parts[0]] = int(parts[1])
    return jobs


RUNTIME = all(importlib.util.find_spec(m) for m in RUNTIME_MODULES)


@pytest.mark.parametrize("runtime", [
    pytest.param(True, marks=pytest.mark.skipif(not RUNTIME, reason="runtime extra not "
                                                 "installed: pip install -e '.[runtime]'")),
    False])
@pytest.mark.parametrize("profile", ["quick", "medium", "full"])
def test_every_profile_plans(tmp_path, profile, runtime):
    """A dry run of the other profiles builds their whole DAG (e.g. free text in a profile
    is not taken for a wildcard; the full profile plans its physical step with the runtime
    extra, and without it plans none and says it skips it), with or without the extra."""
    start = ([sys.executable, "-m", "snakemake"] if runtime else
             [sys.executable, "-c", WITHOUT_RUNTIME])
    cmd = [*start, "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(tmp_path), "--cores", "1", "--dry-run", "--quiet", "rules",
           "--configfile", str(ROOT / "config" / f"{profile}.yaml")]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    jobs = planned_jobs(done.stdout + done.stderr)
    assert jobs.get("simulate", 0) > 0 and jobs.get("report") == 1, jobs
    assert ("physical" in jobs) == (profile == "full" and runtime)
    assert ("claims_paper_regime" in jobs) == (profile != "full")  # its cost: not in full
    skipped = "SKIPPED: the physical step" in done.stdout + done.stderr
    assert skipped == (profile == "full" and not runtime)


def test_a_profile_asking_for_parquet_plans_its_run_tables_as_parquet(tmp_path):
    """``outputs: {table_format: parquet}``: every per-run table of the plan (each simulate
    job's part, runs, the case study's, NVL72's, openb's) is a Parquet file, none a CSV."""
    outputs = {**yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["outputs"],
               "table_format": "parquet"}
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(tmp_path), "--cores", "1", "--dry-run",
           "--configfile", str(ROOT / "config" / "smoke.yaml"),
           "--config", f"outputs={json.dumps(outputs)}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text[-4000:]
    planned = set(re.findall(r"results/smoke/[\w/.-]+", text))
    tables = {p for p in planned if re.match(r"results/smoke/(runs|case|nvl72|openb)(/|\.)", p)
              and not p.endswith(".json")}
    assert {"results/smoke/runs.parquet", "results/smoke/case/runs.parquet",
            "results/smoke/nvl72/runs.parquet", "results/smoke/openb/replay_runs.parquet",
            "results/smoke/openb/replay_days.parquet", "results/smoke/openb/packing.parquet",
            } <= tables
    assert any(re.fullmatch(r"results/smoke/runs/gfs/part\d+\.parquet", p) for p in tables)
    assert all(p.endswith(".parquet") for p in tables), sorted(tables)
