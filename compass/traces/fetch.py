"""Download the real Venus and GFS job tables, verify them by git blob id, unpack into data/raw/.

Never needed for the default (synthetic) run. The sources and blob ids are those of
data/README.md ("raw/ — fetched, never committed"); each trace lists its sources in the
order they are tried. A download counts only if ``git hash-object`` of the file equals the
listed blob id; a zip source is verified as a whole, then the member is unpacked.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

#: Where fetched traces go by default (git-ignored).
DEFAULT_DEST = Path("data") / "raw"
_LFS_POINTER = b"version https://git-lfs"


class FetchError(RuntimeError):
    """No source of a trace could be downloaded and verified."""


@dataclass(frozen=True)
class RemoteFile:
    """A public file, its git blob id, and the zip member to unpack (None: use it as is)."""

    url: str
    blob_id: str
    member: str | None = None


@dataclass(frozen=True)
class RemoteTrace:
    """A real trace: where it goes under the destination, its loader format, its sources."""

    name: str
    target: str
    format: str
    sources: tuple[RemoteFile, ...]


_HELIOS = "https://raw.githubusercontent.com/S-Lab-System-Group/HeliosData"
_ALIBABA = "https://raw.githubusercontent.com/alibaba/clusterdata"
_GFS_MIRROR = "https://raw.githubusercontent.com/sultanul-ovi/GPU-Cluster-Spot-Resource-Dataset-Analysis"
_GFS_BLOB = "f2a0dcbc26b5a1a047e49a7efa886e86ec9cde32"

REMOTE_TRACES: dict[str, RemoteTrace] = {
    "venus": RemoteTrace("venus", "venus/cluster_log.csv", "helios", (
        RemoteFile(f"{_HELIOS}/106713b0d0fc761c70073b4af018681656b60f48/data/Venus/cluster_log.csv",
                   "147adc2c7b6302394966786d78f811ca7d08a0b0"),
        RemoteFile(f"{_HELIOS}/master/data.zip", "1a48d5e0fb816fe9bbf1ad7086e7dec90923e5c6",
                   member="data/Venus/cluster_log.csv"),
    )),
    "gfs": RemoteTrace("gfs", "gfs/job_info_df.csv", "alibaba-spot", (
        RemoteFile(f"{_ALIBABA}/7a6c496e4f4b6ce6150be8f881cb051bf2abff42/"
                   "cluster-trace-v2026-spot-gpu/job_info_df.csv", _GFS_BLOB),
        RemoteFile(f"{_GFS_MIRROR}/3a727e58ba52e3dcb598814e2e1f9f7f3b4821f4/job_info_df.csv",
                   _GFS_BLOB),
    )),
}


def git_blob_id(path: str | Path) -> str:
    """What ``git hash-object FILE`` prints: sha1 of b"blob <size>\\0" + the content."""
    path = Path(path)
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download(source: RemoteFile, part: Path, timeout: float) -> None:
    try:
        with urlopen(source.url, timeout=timeout) as response, part.open("wb") as out:
            shutil.copyfileobj(response, out)
    except (URLError, OSError, ValueError) as e:
        raise FetchError(f"unreachable ({getattr(e, 'reason', e)})") from None


def _fetch_one(source: RemoteFile, target: Path, timeout: float) -> None:
    part = target.with_name(target.name + ".part")
    try:
        _download(source, part, timeout)
        blob = git_blob_id(part)
        with part.open("rb") as f:
            if f.read(len(_LFS_POINTER)) == _LFS_POINTER:
                raise FetchError("got a Git LFS pointer, not the data")
        if blob != source.blob_id:
            raise FetchError(f"blob id {blob}, expected {source.blob_id}")
        if source.member is None:
            part.replace(target)
        else:
            unpacked = target.with_name(target.name + ".unzip")
            with zipfile.ZipFile(part) as archive, archive.open(source.member) as member, \
                    unpacked.open("wb") as out:
                shutil.copyfileobj(member, out)
            unpacked.replace(target)
    finally:
        part.unlink(missing_ok=True)
    provenance = {"url": source.url, "blob_id": source.blob_id, "member": source.member}
    target.with_name(target.name + ".source.json").write_text(json.dumps(provenance, indent=2))


def fetch_trace(
    name: str,
    dest: str | Path = DEFAULT_DEST,
    *,
    force: bool = False,
    timeout: float = 60.0,
    sources: tuple[RemoteFile, ...] | None = None,
) -> Path:
    """Download trace ``name`` ('venus' or 'gfs') into ``dest``; return the file's path.

    An existing file is kept unless ``force``. ``sources`` replaces the built-in list (tests).
    Raises ``FetchError`` with every source's failure and what to do offline.
    """
    if name not in REMOTE_TRACES:
        raise ValueError(f"unknown trace {name!r}; choose one of {sorted(REMOTE_TRACES)}")
    spec = REMOTE_TRACES[name]
    target = Path(dest) / spec.target
    if target.is_file() and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    failures = []
    for source in sources if sources is not None else spec.sources:
        try:
            _fetch_one(source, target, timeout)
            return target
        except (FetchError, zipfile.BadZipFile, KeyError) as e:
            failures.append(f"  - {source.url}: {e}")
    first = (sources or spec.sources)[0]
    raise FetchError(
        f"could not fetch the {name} trace; every source failed:\n" + "\n".join(failures) +
        "\nThis machine may be offline. Elsewhere, download a source above, check that "
        f"`git hash-object FILE` prints its blob id (e.g. {first.blob_id}), unzip the member "
        f"if it is an archive, and put the file at {target}. Offline, use the calibrated "
        f"stand-in instead: compass trace synth --kind {name}-synth --out FILE"
    )
