"""A local real trace is replayed only if it is the published file (issue 17, item 1).

``compass trace verify`` and the pipeline check the file's git blob id against the published
one and refuse a file cut mid-line or with another format's header; ``trust_local: true``
replays a mismatching (but whole) file with every product labelled "unverified local
file". The published files are not available offline, so tests stand a small sample in for
the published GFS table by pointing its entry at the sample's blob id.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compass.cli import main
from compass.experiments.classes import table1
from compass.experiments.config import ResolvedTrace, parse_config, read_config_record
from compass.experiments.data import resolve_trace, write_canonical
from compass.experiments.layout import Layout
from compass.experiments.pipeline import make_plan
from compass.experiments.results import Results
from compass.traces import TraceError
from compass.traces import fetch as F

ROOT = Path(__file__).parents[1]
SAMPLE = ROOT / "tests" / "data" / "traces" / "alibaba_spot_job_info_df.csv"
RAW = Path("data") / "raw" / "gfs" / "job_info_df.csv"


@pytest.fixture
def published(monkeypatch):
    """The GFS entry with the sample as its published file."""
    spec = F.REMOTE_TRACES["gfs"]
    source = F.RemoteFile(SAMPLE.as_uri(), F.git_blob_id(SAMPLE))
    monkeypatch.setitem(F.REMOTE_TRACES, "gfs", F.RemoteTrace(
        spec.name, spec.target, spec.format, (source, *spec.sources[1:])))
    return source.blob_id


def plant(root: Path, data: bytes | None = None) -> Path:
    path = root / RAW
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(SAMPLE.read_bytes() if data is None else data)
    return path


def tampered() -> bytes:
    """The sample with one row fewer: whole, of the right format, not the published file."""
    return b"".join(SAMPLE.read_bytes().splitlines(keepends=True)[:-1])


def quick(trust_local: bool | None = None) -> dict:
    raw = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())
    if trust_local is not None:
        raw["trust_local"] = trust_local
    return raw


def record_traces(record: dict) -> dict[str, ResolvedTrace]:
    return read_config_record(record)[1]


# ---------------------------------------------------------------- compass trace verify
def test_the_published_file_is_verified(tmp_path, published, capsys):
    path = plant(tmp_path)
    found = F.verify_trace("gfs", dest=tmp_path / "data" / "raw")
    assert found.verified and found.blob_id == published and found.problem is None
    assert found.size == SAMPLE.stat().st_size
    assert main(["trace", "verify", "gfs", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"verified: {path}: the published gfs trace (blob id {published}" in out


def test_a_wrong_blob_id_is_refused_naming_file_expected_and_found(tmp_path, published, capsys):
    path = plant(tmp_path, tampered())
    found_id = F.git_blob_id(path)
    with pytest.raises(F.UnverifiedTrace) as err:
        F.verify_trace("gfs", path)
    message = str(err.value)
    assert str(path) in message and published in message and found_id in message
    assert "compass trace fetch gfs --force" in message and "trust_local: true" in message
    assert main(["trace", "verify", "gfs", "--file", str(path)]) == 2
    assert found_id in capsys.readouterr().err
    trusted = F.verify_trace("gfs", path, trust_local=True)
    assert not trusted.verified and found_id in trusted.problem


def test_the_real_gfs_id_is_the_data_readmes(tmp_path):
    """Without the stand-in, the sample is not the published table (f2a0dcbc...)."""
    path = plant(tmp_path)
    with pytest.raises(F.UnverifiedTrace, match="expected f2a0dcbc26b5a1a047e49a7efa886e86ec"):
        F.verify_trace("gfs", path)


@pytest.mark.parametrize("cut", [-1, -20, 200])
def test_a_file_cut_mid_line_is_refused_even_when_trusted(tmp_path, published, cut):
    path = plant(tmp_path, SAMPLE.read_bytes()[:cut])
    with pytest.raises(TraceError, match="cut"):
        F.verify_trace("gfs", path, trust_local=True)
    assert main(["trace", "verify", "gfs", "--file", str(path)]) == 2


def test_a_cut_last_line_with_a_newline_is_refused(tmp_path, published):
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    path = plant(tmp_path, b"".join(lines[:-1]) + lines[-1].split(b",")[0] + b"\n")
    with pytest.raises(TraceError, match="the last line has 1 fields, the header 9"):
        F.verify_trace("gfs", path, trust_local=True)


def test_a_wrong_header_is_refused_even_when_trusted(tmp_path, published):
    helios = ROOT / "tests" / "data" / "traces" / "helios_cluster_log.csv"
    path = plant(tmp_path, helios.read_bytes())
    with pytest.raises(TraceError, match=r"lacks the alibaba-spot column\(s\) \['job_name'"):
        F.verify_trace("gfs", path, trust_local=True)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(TraceError, match="file not found .*compass trace fetch venus"):
        F.verify_trace("venus", dest=tmp_path)


def test_a_member_unpacked_from_a_listed_archive_is_verified(tmp_path, monkeypatch):
    """The zip source's member may differ from the raw file's release: its provenance, written
    by fetch_trace after verifying the archive, names its id; editing it afterwards is caught."""
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("data/Venus/cluster_log.csv",
                   (ROOT / "tests" / "data" / "traces" / "helios_cluster_log.csv").read_bytes())
    spec = F.REMOTE_TRACES["venus"]
    zipped = F.RemoteFile(archive.as_uri(), F.git_blob_id(archive),
                          member="data/Venus/cluster_log.csv")
    monkeypatch.setitem(F.REMOTE_TRACES, "venus", F.RemoteTrace(
        spec.name, spec.target, spec.format, (spec.sources[0], zipped)))
    path = F.fetch_trace("venus", tmp_path / "raw", sources=(zipped,))
    provenance = json.loads(path.with_name(path.name + ".source.json").read_text())
    assert provenance["file_blob_id"] == F.git_blob_id(path) != spec.blob_id
    assert F.verify_trace("venus", path).verified
    path.write_bytes(path.read_bytes() + path.read_bytes().splitlines(keepends=True)[-1])
    with pytest.raises(F.UnverifiedTrace):
        F.verify_trace("venus", path)


# ---------------------------------------------------------------- the pipeline
def test_the_plan_stops_on_an_unverified_file(tmp_path, published):
    plant(tmp_path, tampered())
    with pytest.raises(F.UnverifiedTrace, match="not the published gfs trace"):
        make_plan(quick(), tmp_path)
    with pytest.raises(F.UnverifiedTrace):
        make_plan(quick(trust_local=False), tmp_path)


def test_trust_local_labels_every_product_unverified(tmp_path, published, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plant(tmp_path, tampered())
    plan = make_plan(quick(trust_local=True), tmp_path)
    gfs = plan.traces["gfs"]
    assert gfs.origin == "real" and gfs.unverified
    assert gfs.label == f"REAL gfs ({RAW}, unverified local file)"
    assert any(n.startswith("UNVERIFIED: ") and "trust_local: true" in n for n in plan.notes)
    # config.json carries it to the notebooks, tables and report, which print ``label``:
    # figure titles and table captions (Results.label), Table 1's data column, the report
    record = json.loads(json.dumps(plan.record()))
    again = ResolvedTrace.from_record(record["resolved"]["gfs"])
    assert again == gfs and record["resolved"]["gfs"]["label"] == gfs.label
    res = Results(Layout(tmp_path), parse_config(record["profile"]), record_traces(record),
                  pd.DataFrame())
    assert "unverified local file" in res.label(["gfs"]) and "unverified" in res.label()
    write_canonical(gfs, tmp_path / "canonical.csv")
    rows = table1({"gfs": again}, 0, {"gfs": tmp_path / "canonical.csv"})
    assert (rows["data"] == gfs.label).all()


def test_the_published_file_is_labelled_real(tmp_path, published):
    plant(tmp_path)
    gfs = make_plan(quick(), tmp_path).traces["gfs"]
    assert not gfs.unverified and gfs.note is None and gfs.label == f"REAL gfs ({RAW})"


def test_a_trace_without_a_published_file_needs_trust_local(tmp_path):
    raw = quick()
    raw["traces"]["mine"] = {**raw["traces"]["gfs"], "real": {"path": str(RAW)}}
    plant(tmp_path)
    cfg = parse_config(raw)
    with pytest.raises(F.UnverifiedTrace, match="no published file of a trace named 'mine'"):
        resolve_trace(cfg.traces["mine"], tmp_path)
    raw["trust_local"] = True
    mine = resolve_trace(parse_config(raw).traces["mine"], tmp_path)
    assert mine.unverified and "unverified local file" in mine.label


def test_the_canonical_rule_checks_the_file_again(tmp_path, published, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plant(tmp_path)
    verified = make_plan(quick(), tmp_path).traces["gfs"]
    write_canonical(verified, tmp_path / "canonical.csv")
    assert (tmp_path / "canonical.csv").read_text().startswith("job_id,")
    plant(tmp_path, tampered())  # replaced after the plan
    with pytest.raises(F.UnverifiedTrace, match="not the published gfs trace"):
        write_canonical(verified, tmp_path / "canonical.csv")
    trusted = make_plan(quick(trust_local=True), tmp_path).traces["gfs"]
    write_canonical(trusted, tmp_path / "canonical.csv")
    plant(tmp_path)  # the published file again: the labels the plan wrote would be wrong
    with pytest.raises(F.UnverifiedTrace, match="changed since the pipeline was planned"):
        write_canonical(trusted, tmp_path / "canonical.csv")


@pytest.mark.skipif(importlib.util.find_spec("snakemake") is None, reason="needs snakemake")
def test_the_canonical_rule_takes_the_raw_file_as_input(tmp_path):
    """A replaced raw file reruns the rule (Snakemake sees it as an updated input); a cut one
    stops the pipeline with the reason."""
    plant(tmp_path, tampered())
    target = "results/quick/traces/gfs/canonical.csv"

    def snakemake(*extra: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
               "--directory", str(tmp_path), "--cores", "1",
               "--configfile", str(ROOT / "config" / "quick.yaml"),
               "--config", "trust_local=True",
               *extra, "--", target]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    dry = snakemake("-n")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert f"rule canonical_trace:\n    input: {RAW}\n" in dry.stdout
    run = snakemake()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "unverified local file" in run.stdout + run.stderr
    time.sleep(1.1)
    plant(tmp_path, b"".join(tampered().splitlines(keepends=True)[:-1]))
    again = snakemake("-n")
    assert f"reason: Updated input files: {RAW}" in again.stdout, again.stdout
    plant(tmp_path, tampered()[:-5])
    cut = snakemake("-n")
    assert cut.returncode != 0 and "ends mid-line" in cut.stdout + cut.stderr
