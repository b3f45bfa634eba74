"""Download the real Venus and GFS job tables, verify them by git blob id, unpack into data/raw/.

Never needed for the default (synthetic) run. The sources and blob ids are those of
data/README.md ("raw/ — fetched, never committed"); each trace lists its sources in the
order they are tried. A download counts only if ``git hash-object`` of the file equals the
listed blob id; a zip source is verified as a whole, then the member is unpacked.

``verify_trace`` checks a local file later, whoever put it there (``compass trace verify``,
and the pipeline before it replays one): its blob id must be the published file's (or that
of the member ``fetch_trace`` unpacked from a verified archive, as its provenance records).
A file cut mid-line or without its format's columns is refused even when trusted.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

from compass.traces.formats import alibaba_spot, helios
from compass.traces.schema import TraceError

#: Where fetched traces go by default (git-ignored).
DEFAULT_DEST = Path("data") / "raw"
_LFS_POINTER = b"version https://git-lfs"


class FetchError(RuntimeError):
    """No source of a trace could be downloaded and verified."""


class UnverifiedTrace(ValueError):
    """A local real trace is not the published file (its blob id differs)."""


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

    @property
    def blob_id(self) -> str:
        """The published file's git blob id (its first source, which is not an archive).

        Git hashes b"blob <size>\\0" + the content, so the id also fixes the file's size,
        which the data README does not give exactly."""
        return self.sources[0].blob_id

    @property
    def published(self) -> str:
        """Where the published file comes from (its first source's URL)."""
        return self.sources[0].url


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


#: Columns each format's loader needs: a header without them is not the trace.
_REQUIRED = {helios.FORMAT: helios.REQUIRED, alibaba_spot.FORMAT: alibaba_spot.REQUIRED}
_TAIL_BYTES = 1 << 16


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
    provenance = {"url": source.url, "blob_id": source.blob_id, "member": source.member,
                  "file_blob_id": git_blob_id(target)}
    _provenance_path(target).write_text(json.dumps(provenance, indent=2))


def _provenance_path(target: Path) -> Path:
    return target.with_name(target.name + ".source.json")


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


@dataclass(frozen=True)
class Verification:
    """What ``verify_trace`` found: the file's blob id and size, and whether it is published."""

    name: str
    path: Path
    blob_id: str
    size: int
    expected: str
    verified: bool

    @property
    def problem(self) -> str | None:
        """Why the file is not the published one (None when it is)."""
        if self.verified:
            return None
        return (f"{self.path} is not the published {self.name} trace: blob id {self.blob_id} "
                f"({self.size:,} bytes), expected {self.expected} (`git hash-object` of "
                f"{REMOTE_TRACES[self.name].published})")

    @property
    def message(self) -> str:
        """What ``compass trace verify`` and the pipeline print: the facts and what to do."""
        if self.problem is None:
            return (f"{self.path}: the published {self.name} trace (blob id {self.blob_id}, "
                    f"{self.size:,} bytes)")
        return (f"{self.problem}. Fetch it again (compass trace fetch {self.name} --force), "
                "or set trust_local: true in the profile to replay it anyway, labelled "
                "\"unverified local file\"")


def verify_trace(name: str, path: str | Path | None = None, *, dest: str | Path = DEFAULT_DEST,
                 trust_local: bool = False) -> Verification:
    """Check the local file of trace ``name`` (default: its place under ``dest``).

    Raises ``UnverifiedTrace`` (naming the file, the expected and the found blob id) when it
    is not the published file, unless ``trust_local``; ``TraceError`` when it is missing,
    cut mid-line or lacks its format's columns (even if trusted).
    """
    if name not in REMOTE_TRACES:
        raise ValueError(f"unknown trace {name!r}; choose one of {sorted(REMOTE_TRACES)}")
    spec = REMOTE_TRACES[name]
    path = Path(path) if path is not None else Path(dest) / spec.target
    if not path.is_file():
        raise TraceError(str(path), f"file not found (fetch it: compass trace fetch {name})")
    blob = git_blob_id(path)
    found = Verification(name, path, blob, path.stat().st_size, spec.blob_id,
                         blob in _accepted(spec, path))
    if found.verified:
        return found
    check_structure(path, spec.format)
    if not trust_local:
        raise UnverifiedTrace(found.message)
    return found


def _accepted(spec: RemoteTrace, path: Path) -> set[str]:
    """The published blob id, plus that of a member unpacked from a listed, verified archive
    (its provenance, written by ``fetch_trace``, names the archive and the member's id)."""
    accepted = {spec.blob_id}
    try:
        provenance = json.loads(_provenance_path(path).read_text())
    except (OSError, ValueError):
        return accepted
    archives = {s.blob_id for s in spec.sources if s.member is not None}
    if provenance.get("member") and provenance.get("blob_id") in archives:
        accepted.add(str(provenance.get("file_blob_id")))
    return accepted


def check_structure(path: Path, format: str) -> None:
    """Raise ``TraceError`` if ``path`` lacks the columns of ``format`` or was cut mid-line
    (no final newline, or a last line with another number of fields than the header)."""
    with path.open("rb") as f:
        header_line = f.readline()
        f.seek(max(0, path.stat().st_size - _TAIL_BYTES))
        tail = f.read()
    header = next(csv.reader(io.StringIO(header_line.decode("utf-8", "replace"))), [])
    missing = [c for c in _REQUIRED.get(format, ()) if c not in header]
    if missing:
        raise TraceError(str(path), f"header {header} lacks the {format} column(s) {missing}: "
                                    "not this trace", line=1)
    if not tail.endswith(b"\n"):
        raise TraceError(str(path), "the file ends mid-line (no final newline): it was cut, "
                                    "e.g. by an interrupted copy; fetch it again")
    last = tail.rstrip(b"\r\n").rsplit(b"\n", 1)[-1].decode("utf-8", "replace")
    fields = next(csv.reader(io.StringIO(last)), [])
    if header_line.rstrip(b"\r\n") and len(fields) != len(header):
        raise TraceError(str(path), f"the last line has {len(fields)} fields, the header "
                                    f"{len(header)}: the file was cut; fetch it again")
