"""Migrations of the physical runtime's training jobs on a GPU, without Ray.

Not a test: ``PYTHONPATH=. python3 benchmarks/physical_cuda_check.py --out DIR`` exercises
the trainer of ``compass.runtime`` (``Trainer``, the checkpoint file, the data-parallel
group) on CUDA the way a migration does (section 5.1, "checkpoint-and-restart"), but with
plain processes instead of Ray actors, so it runs where only PyTorch is installed:

1. One process per instance of each job (one Phys-Mix job per family, plus a two-instance
   job when there are two GPUs for its nccl group, or on ``--device cpu`` with gloo) builds
   the job's model on the device, restores its checkpoint and trains, paced to
   ``--step-period`` wall seconds per step.
2. A migration asks a job's instances to stop: every rank stops after the same step, rank 0
   saves model, optimiser, step and RNG state; the processes exit; new processes start (on
   the next GPU when there are several), restore the checkpoint and train on. Its latency is
   measured from the stop request until every new instance trains again, with its parts
   (checkpoint, exit of the old processes, launch, restore) as in ``migrations.csv`` of a
   physical run.
3. Each restored state (parameters, optimiser state, step, RNG) must equal the saved one
   byte for byte (a digest taken in the old process before the save, and in the new one
   after the restore), and the parameters must sit on the device.
4. At the end every job is stopped and its parameters compared with an uninterrupted run
   of the same number of steps on the same device: equal on the CPU; on CUDA within
   ``CUDA_TOLERANCE``, as a few CUDA kernels have no deterministic implementation.

It writes ``DIR/physical_cuda_check.json`` (machine, versions, every migration and check)
and exits 0 when every check holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import platform
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: compass

#: cuBLAS needs this for deterministic results (torch.use_deterministic_algorithms)
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

#: one job per Phys-Mix family (compass.traces.physmix TEMPLATES): (family, instances)
SINGLE_JOBS = (("CV", 1), ("NLP", 1), ("LLM", 1), ("Recommender", 1), ("Multi-modal", 1))
#: a data-parallel job ("GPT-2 large", 2 instances), run where its group can form
GROUP_JOB = ("LLM", 2)
#: how long to wait for a process to answer (start-up with CUDA, a stop, a rendezvous)
WAIT_S = 240.0
#: largest parameter difference from an uninterrupted run accepted on CUDA, where a few
#: kernels (adaptive average pooling's backward) add in a varying order; on CPU: none
CUDA_TOLERANCE = 1e-3
#: a job trains at least this many steps after a restore before it is moved again
MIN_STEPS_BETWEEN_MOVES = 5


@dataclass(frozen=True)
class CheckJob:
    """One training job of the check: its id, family and number of instances."""

    job_id: int
    family: str
    instances: int


def state_digest(trainer: Any) -> str:
    """SHA-256 of what a checkpoint holds: step, parameters and buffers, optimiser state and
    the CPU RNG, read back to the host (the same state on any device gives the same digest)."""
    import torch

    h = hashlib.sha256(str(trainer.step).encode())

    def add(name: str, value: Any) -> None:
        if isinstance(value, torch.Tensor):
            t = value.detach().cpu().contiguous()
            h.update(f"{name}:{t.dtype}:{tuple(t.shape)}".encode())
            h.update(t.numpy().tobytes())
        elif isinstance(value, dict):
            for key in sorted(value, key=str):
                add(f"{name}.{key}", value[key])
        elif isinstance(value, list | tuple):
            for i, item in enumerate(value):
                add(f"{name}[{i}]", item)
        else:
            h.update(f"{name}={value!r}".encode())

    add("model", trainer.model.state_dict())
    add("optimizer", trainer.optimizer.state_dict())
    add("rng", torch.get_rng_state())
    return h.hexdigest()


def _deterministic() -> None:
    """Deterministic kernels where PyTorch has them; warn (not fail) where it has none (the
    backward of CUDA adaptive average pooling, the CV model's)."""
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.set_num_threads(1)


def instance_main(spec_fields: dict[str, Any], conn: Any, step_box: Any) -> None:
    """One instance in its own process: build, join the group, restore, train in a thread
    until told to stop (then rank 0 saves) and report each phase's wall time."""
    try:
        _deterministic()
        import torch
        import torch.distributed as dist

        from compass.runtime.trainer import InstanceSpec, Trainer, join_group

        spec = InstanceSpec(**spec_fields)
        imported = time.time()
        trainer = Trainer(spec)
        if spec.device.startswith("cuda"):
            torch.cuda.synchronize(spec.device)
        built = time.time()
        join_group(spec)
        restored = trainer.restore()
        on_device = all(p.device == torch.device(spec.device)
                        for p in trainer.model.parameters())
        restored_digest = state_digest(trainer) if spec.rank == 0 else None
        stop, failure = threading.Event(), []

        def train() -> None:
            try:
                trainer.run(stop)
            except Exception as err:  # reported to the parent below
                failure.append(f"{type(err).__name__}: {err}")

        thread = threading.Thread(target=train, daemon=True)
        thread.start()
        conn.send(("ready", {"imported": imported, "built": built, "ready": time.time(),
                             "restored_step": trainer.step, "resumed_from": restored.resumed_from,
                             "restored_digest": restored_digest, "on_device": on_device,
                             "device_name": (torch.cuda.get_device_name(spec.device)
                                             if spec.device.startswith("cuda") else "cpu")}))
        while thread.is_alive() and not conn.poll(0.02):
            step_box.value = trainer.step
        if not thread.is_alive() and failure:
            conn.send(("error", failure[0]))
            return
        conn.recv()  # the stop request
        stop.set()
        thread.join()
        if failure:
            conn.send(("error", failure[0]))
            return
        digest = state_digest(trainer) if spec.rank == 0 else None
        if spec.rank == 0:
            trainer.save()
        conn.send(("stopped", {"saved": time.time(), "step": trainer.step, "digest": digest}))
        if spec.world_size > 1:
            dist.destroy_process_group()
    except Exception as err:  # start-up failures (CUDA, rendezvous) reach the report
        conn.send(("error", f"{type(err).__name__}: {err}"))


class Gang:
    """The processes of one job's instances (one generation)."""

    def __init__(self, ctx: Any, job: CheckJob, specs: list[Any]) -> None:
        self.job, self.procs, self.conns, self.steps = job, [], [], []
        for spec in specs:
            parent, child = ctx.Pipe()
            step = ctx.Value("q", 0)
            proc = ctx.Process(target=instance_main, args=(asdict(spec), child, step),
                               daemon=True)
            proc.start()
            self.procs.append(proc)
            self.conns.append(parent)
            self.steps.append(step)

    def receive(self, kind: str) -> list[dict[str, Any]]:
        """Every instance's next message, which must be ``kind``."""
        out = []
        for k, conn in enumerate(self.conns):
            if not conn.poll(WAIT_S):
                raise TimeoutError(f"job {self.job.job_id} rank {k}: no '{kind}' in {WAIT_S} s")
            got, body = conn.recv()
            if got != kind:
                raise RuntimeError(f"job {self.job.job_id} rank {k}: {got}: {body}")
            out.append(body)
        return out

    @property
    def step(self) -> int:
        return min(s.value for s in self.steps)

    def stop(self) -> list[dict[str, Any]]:
        for conn in self.conns:
            conn.send("stop")
        stopped = self.receive("stopped")
        for proc in self.procs:
            proc.join(WAIT_S)
        return stopped


def instance_specs(job: CheckJob, generation: int, device: str, workdir: Path,
                   step_period_s: float) -> list[Any]:
    """The InstanceSpec of each instance of ``job``'s ``generation`` (same checkpoint)."""
    from compass.runtime.trainer import InstanceSpec

    rendezvous = workdir / f"rendezvous-j{job.job_id}-g{generation}"
    return [InstanceSpec(job_id=job.job_id, family=job.family, seed=1000 + job.job_id,
                         steps=10**9, rank=rank, world_size=job.instances,
                         checkpoint=workdir / f"job-{job.job_id}.pt",
                         checkpoint_every=10**9, step_period_s=step_period_s,
                         rendezvous=rendezvous if job.instances > 1 else None,
                         device=_device_of(device, job, generation, rank))
            for rank in range(job.instances)]


def _device_of(device: str, job: CheckJob, generation: int, rank: int) -> str:
    """Where an instance trains: with several GPUs each generation moves to the next ones."""
    if device == "cpu":
        return "cpu"
    import torch

    count = torch.cuda.device_count()
    return f"cuda:{(job.job_id + generation * job.instances + rank) % count}"


def distance_to_uninterrupted(job: CheckJob, steps: int, device: str,
                              workdir: Path) -> dict[str, Any]:
    """Compare the parameters ``job`` checkpointed after ``steps`` steps (with its
    migrations) with those of a run of ``steps`` steps in one go on the same device
    (single-instance jobs): the largest absolute difference where both are finite, and how
    many values are not finite in each (a run that diverged; equal masks are required)."""
    import torch

    from compass.runtime.trainer import Trainer

    spec = instance_specs(job, 0, device, workdir / "reference", 0.0)[0]
    trainer = Trainer(replace(spec, steps=steps))
    trainer.run(threading.Event())
    saved = torch.load(workdir / f"job-{job.job_id}.pt", map_location="cpu",
                       weights_only=True)["model"]
    diff, nonfinite_migrated, nonfinite_uninterrupted, masks_equal = 0.0, 0, 0, True
    for name, t in trainer.model.state_dict().items():
        ours, theirs = saved[name].float(), t.detach().cpu().float()
        ok_ours, ok_theirs = torch.isfinite(ours), torch.isfinite(theirs)
        nonfinite_migrated += int((~ok_ours).sum())
        nonfinite_uninterrupted += int((~ok_theirs).sum())
        masks_equal &= bool(torch.equal(ok_ours, ok_theirs))
        both = ok_ours & ok_theirs
        if both.any():
            diff = max(diff, float((ours[both] - theirs[both]).abs().max()))
    return {"max_abs_diff_uninterrupted": diff, "nonfinite_migrated": nonfinite_migrated,
            "nonfinite_uninterrupted": nonfinite_uninterrupted,
            "nonfinite_masks_equal": masks_equal}


def run_check(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Start the jobs, migrate them in turn, stop them and compare (fills ``report``)."""
    _deterministic()
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda but torch.cuda.is_available() is False")
    gpus = torch.cuda.device_count() if args.device == "cuda" else 0
    report["machine"].update({"gpus": gpus, "gpu_names": [torch.cuda.get_device_name(i)
                                                          for i in range(gpus)]})
    shapes = list(SINGLE_JOBS)
    if args.device == "cpu" or gpus >= GROUP_JOB[1]:
        shapes.append(GROUP_JOB)
    else:
        report["skipped"].append(f"the {GROUP_JOB[1]}-instance {GROUP_JOB[0]} job: its nccl "
                                 f"group needs {GROUP_JOB[1]} GPUs, found {gpus}")
    jobs = [CheckJob(i, family, w) for i, (family, w) in enumerate(shapes[:args.jobs])]
    workdir = Path(tempfile.mkdtemp(prefix="physical-cuda-check-"))
    ctx = mp.get_context("spawn")  # CUDA cannot be used in forked children
    gangs, generations = {}, {}
    for job in jobs:
        generations[job.job_id] = 0
        gangs[job.job_id] = Gang(ctx, job, instance_specs(job, 0, args.device, workdir,
                                                          args.step_period))
    for job in jobs:
        ready = gangs[job.job_id].receive("ready")
        report["jobs"].append({**asdict(job), "devices": [r["device_name"] for r in ready],
                               "ready_after_import_s": max(r["ready"] for r in ready)
                               - min(r["imported"] for r in ready)})
    for m in range(args.migrations):
        job = jobs[m % len(jobs)]
        gang = gangs[job.job_id]
        while gang.step < MIN_STEPS_BETWEEN_MOVES:
            time.sleep(0.05)
        requested = time.time()
        stopped = gang.stop()
        exited = time.time()
        generations[job.job_id] += 1
        gen = generations[job.job_id]
        specs = instance_specs(job, gen, args.device, workdir, args.step_period)
        gangs[job.job_id] = new = Gang(ctx, job, specs)
        ready = new.receive("ready")
        saved = stopped[0]
        row = {
            "migration": m, "job": job.job_id, "family": job.family,
            "instances": job.instances, "generation": gen,
            "src": sorted({s.device for s in instance_specs(job, gen - 1, args.device,
                                                            workdir, 0.0)}),
            "dst": sorted({s.device for s in specs}), "step": saved["step"],
            "checkpoint_s": max(s["saved"] for s in stopped) - requested,
            "exit_s": exited - max(s["saved"] for s in stopped),
            "launch_s": max(r["built"] for r in ready) - exited,
            "restore_s": max(r["ready"] for r in ready) - max(r["built"] for r in ready),
            "latency_s": max(r["ready"] for r in ready) - requested,
            "restored_step": ready[0]["restored_step"],
            "resumed_from": ready[0]["resumed_from"],
            "state_equal": ready[0]["restored_digest"] == saved["digest"],
            "on_device": all(r["on_device"] for r in ready),
        }
        report["migrations"].append(row)
        print(f"migration {m}: job {job.job_id} ({job.family}, w={job.instances}) "
              f"{row['src']} -> {row['dst']} at step {row['step']}: {row['latency_s']:.2f} s "
              f"(checkpoint {row['checkpoint_s']:.3f}, launch {row['launch_s']:.2f}, restore "
              f"{row['restore_s']:.3f}), state equal: {row['state_equal']}", flush=True)
    finals = {job.job_id: gangs[job.job_id].stop()[0] for job in jobs}
    for job, entry in zip(jobs, report["jobs"]):
        final = finals[job.job_id]
        entry.update(final_step=final["step"], migrations=generations[job.job_id])
        if job.instances == 1:
            entry.update(distance_to_uninterrupted(job, final["step"], args.device, workdir))
    report["workdir"] = str(workdir)


def verdict(report: dict[str, Any], wanted: int) -> list[str]:
    """What failed: too few migrations, a restored state that differs from the saved one,
    parameters off the device, a continuation unlike an uninterrupted run."""
    failed = []
    migrations = report["migrations"]
    if len(migrations) < wanted:
        failed.append(f"{len(migrations)} migrations of {wanted}")
    for row in migrations:
        if not (row["state_equal"] and row["on_device"] and row["resumed_from"] == "latest"
                and row["restored_step"] == row["step"]):
            failed.append(f"migration {row['migration']}: restored state differs or off device")
    tolerance = 0.0 if report["device"] == "cpu" else CUDA_TOLERANCE
    for job in report["jobs"]:
        if "max_abs_diff_uninterrupted" not in job:
            continue  # a data-parallel job: compared through its restored digests only
        if not job["max_abs_diff_uninterrupted"] <= tolerance:  # NaN fails too
            failed.append(f"job {job['job_id']}: differs from its uninterrupted run by "
                          f"{job['max_abs_diff_uninterrupted']:.3g} > {tolerance:g}")
        if not job["nonfinite_masks_equal"]:
            failed.append(f"job {job['job_id']}: non-finite values in different places "
                          f"({job['nonfinite_migrated']} after migrations, "
                          f"{job['nonfinite_uninterrupted']} uninterrupted)")
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the JSON report")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--migrations", type=int, default=6,
                        help="checkpoint-restarts, one job after the other (default 6)")
    parser.add_argument("--jobs", type=int, default=len(SINGLE_JOBS) + 1,
                        help="train only the first JOBS jobs: one per family, then the "
                             "two-instance one (default: all)")
    parser.add_argument("--step-period", type=float, default=0.05,
                        help="wall seconds per training step (default 0.05)")
    args = parser.parse_args(argv)
    import torch

    report: dict[str, Any] = {
        "check": "physical runtime trainer: checkpoint-and-restart migrations without Ray",
        "device": args.device, "migrations_wanted": args.migrations,
        "step_period_s": args.step_period,
        "machine": {"python": platform.python_version(), "torch": torch.__version__,
                    "cuda": torch.version.cuda, "platform": platform.platform(),
                    "cpus": os.cpu_count()},
        "jobs": [], "migrations": [], "skipped": [], "error": None,
    }
    started = time.monotonic()
    try:
        run_check(args, report)
    except Exception as err:  # the report says what broke; the exit code says it failed
        report["error"] = f"{type(err).__name__}: {err}"
    report["wall_s"] = time.monotonic() - started
    failed = verdict(report, args.migrations) + ([report["error"]] if report["error"] else [])
    report["ok"], report["failed"] = not failed, failed
    latencies = [row["latency_s"] for row in report["migrations"]]
    report["mean_latency_s"] = sum(latencies) / len(latencies) if latencies else None
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "physical_cuda_check.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"{'OK' if report['ok'] else 'FAILED'}: {len(latencies)} migrations, mean latency "
          f"{report['mean_latency_s']} s, wall {report['wall_s']:.1f} s -> {path}")
    for line in failed:
        print(f"  failed: {line}")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
