"""Real-trace download: blob-id verification, unpacking, and a clear failure offline.

No test touches the network: downloads come from file:// URLs or a mocked ``urlopen``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path
from urllib.error import URLError

import pytest

from compass.traces import fetch
from compass.traces.fetch import (
    REMOTE_TRACES,
    FetchError,
    RemoteFile,
    fetch_trace,
    git_blob_id,
)
from compass.traces.paths import data_file

CSV = b"job_name,gpu_request,worker_num,submit_time,duration\n1,1.0,1,5.0,10.0\n"


@pytest.fixture
def offline(monkeypatch):
    def refuse(url, timeout):
        raise URLError("[Errno 101] Network is unreachable")
    monkeypatch.setattr(fetch, "urlopen", refuse)


def _file(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_blob_id_matches_git(tmp_path):
    path = _file(tmp_path, "x.csv", CSV)
    if shutil.which("git"):
        out = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True,
                             check=True)
        assert git_blob_id(path) == out.stdout.strip()
    empty = _file(tmp_path, "empty", b"")
    assert git_blob_id(empty) == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob


def test_fetch_verifies_and_places_the_file(tmp_path):
    src = _file(tmp_path, "job_info_df.csv", CSV)
    source = RemoteFile(src.as_uri(), git_blob_id(src))
    path = fetch_trace("gfs", tmp_path / "raw", sources=(source,))
    assert path == tmp_path / "raw" / "gfs" / "job_info_df.csv" and path.read_bytes() == CSV
    provenance = json.loads(path.with_name("job_info_df.csv.source.json").read_text())
    assert provenance == {"url": source.url, "blob_id": source.blob_id, "member": None,
                          "file_blob_id": source.blob_id}
    assert not list(path.parent.glob("*.part"))


def test_fetch_unpacks_a_zip_member(tmp_path):
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("data/Venus/cluster_log.csv", CSV)
        z.writestr("data/Earth/cluster_log.csv", b"other")
    source = RemoteFile(archive.as_uri(), git_blob_id(archive), member="data/Venus/cluster_log.csv")
    path = fetch_trace("venus", tmp_path / "raw", sources=(source,))
    assert path.read_bytes() == CSV and path.name == "cluster_log.csv"


def test_wrong_blob_falls_through_to_the_next_source(tmp_path):
    good = _file(tmp_path, "good.csv", CSV)
    bad = _file(tmp_path, "bad.csv", CSV + b"tampered\n")
    sources = (RemoteFile(bad.as_uri(), git_blob_id(good)), RemoteFile(good.as_uri(),
                                                                          git_blob_id(good)))
    assert fetch_trace("gfs", tmp_path / "raw", sources=sources).read_bytes() == CSV
    with pytest.raises(FetchError, match=f"blob id {git_blob_id(bad)}, expected"):
        fetch_trace("gfs", tmp_path / "raw2", sources=sources[:1])
    assert not (tmp_path / "raw2" / "gfs" / "job_info_df.csv").exists()


def test_lfs_pointer_is_not_data(tmp_path):
    pointer = _file(tmp_path, "p.csv", b"version https://git-lfs.github.com/spec/v1\n"
                                       b"oid sha256:abc\nsize 25000000\n")
    with pytest.raises(FetchError, match="Git LFS pointer"):
        fetch_trace("gfs", tmp_path / "raw", sources=(RemoteFile(pointer.as_uri(),
                                                                 git_blob_id(pointer)),))


def test_missing_zip_member_is_reported(tmp_path):
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("data/Earth/cluster_log.csv", CSV)
    source = RemoteFile(archive.as_uri(), git_blob_id(archive), member="data/Venus/cluster_log.csv")
    with pytest.raises(FetchError, match="no item named"):
        fetch_trace("venus", tmp_path / "raw", sources=(source,))


def test_offline_failure_is_clear(tmp_path, offline):
    with pytest.raises(FetchError) as err:
        fetch_trace("venus", tmp_path / "raw")
    message = str(err.value)
    for source in REMOTE_TRACES["venus"].sources:
        assert source.url in message
    assert "Network is unreachable" in message and "may be offline" in message
    assert "git hash-object" in message and "compass trace synth --kind venus-synth" in message
    assert not (tmp_path / "raw" / "venus" / "cluster_log.csv").exists()


def test_present_file_is_kept_unless_forced(tmp_path, offline):
    target = tmp_path / "raw" / "gfs" / "job_info_df.csv"
    target.parent.mkdir(parents=True)
    target.write_bytes(CSV)
    assert fetch_trace("gfs", tmp_path / "raw") == target
    with pytest.raises(FetchError):
        fetch_trace("gfs", tmp_path / "raw", force=True)


def test_unknown_trace_name():
    with pytest.raises(ValueError, match="unknown trace"):
        fetch_trace("philly")


def test_sources_match_the_data_readme():
    """Every blob id and commit is the one data/README.md lists."""
    readme = data_file("README.md").read_text()
    for trace in REMOTE_TRACES.values():
        for source in trace.sources:
            assert source.blob_id in readme
            commit = source.url.split("/")[5]
            assert commit == "master" or commit in readme
