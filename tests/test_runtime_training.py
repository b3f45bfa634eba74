"""Physical-mode training jobs: each family trains, a checkpoint round trip is exact, and an
unreadable checkpoint falls back to the previous one, else to a fresh start."""

import threading

import pytest

torch = pytest.importorskip("torch", reason="physical mode needs the 'runtime' extra (torch)")

from compass.runtime.checkpoint import (  # noqa: E402
    load_checkpoint,
    previous_path,
    save_checkpoint,
)
from compass.runtime.trainer import InstanceSpec, Trainer  # noqa: E402
from compass.runtime.workloads import FAMILIES, build_model, family_of, step_budget  # noqa: E402


def _spec(tmp_path, family="CV", steps=6, **kw):
    return InstanceSpec(job_id=0, family=family, seed=7, steps=steps, rank=0, world_size=1,
                        checkpoint=tmp_path / "ckpt.pt", checkpoint_every=100, **kw)


def _params(model):
    return [p.detach().clone() for p in model.parameters()]


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_builds_and_trains(family, tmp_path):
    trainer = Trainer(_spec(tmp_path, family, steps=3))
    before = _params(trainer.model)
    trainer.run(threading.Event())
    assert trainer.step == 3 and trainer.done
    assert torch.isfinite(torch.tensor(trainer.loss))
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.model.parameters()))


def test_models_are_seeded_and_leave_global_rng_alone():
    state = torch.get_rng_state()
    a, b = build_model("LLM", 3), build_model("LLM", 3)
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters()))
    assert torch.equal(state, torch.get_rng_state())


def test_checkpoint_round_trip_restores_step_and_parameters(tmp_path):
    trainer = Trainer(_spec(tmp_path, "NLP"))
    for _ in range(4):
        trainer.train_step()
    trainer.save()
    restored = Trainer(_spec(tmp_path, "NLP"))
    assert restored.restore().step == 4 and restored.step == 4
    assert all(torch.equal(a, b) for a, b in zip(trainer.model.parameters(),
                                                 restored.model.parameters()))
    opt_a, opt_b = trainer.optimizer.state_dict(), restored.optimizer.state_dict()
    for k, state in opt_a["state"].items():
        assert all(torch.equal(state[n], opt_b["state"][k][n]) for n in ("exp_avg", "exp_avg_sq"))


@pytest.mark.parametrize("family", ["CV", "Recommender"])
def test_training_continues_as_if_never_interrupted(family, tmp_path):
    straight = Trainer(_spec(tmp_path / "a", family, steps=6))
    straight.run(threading.Event())
    first = Trainer(_spec(tmp_path / "b", family, steps=6))
    for _ in range(3):
        first.train_step()
    first.save()
    resumed = Trainer(_spec(tmp_path / "b", family, steps=6))
    resumed.restore()
    resumed.run(threading.Event())
    assert resumed.step == straight.step == 6
    assert all(torch.equal(a, b) for a, b in zip(straight.model.parameters(),
                                                 resumed.model.parameters()))


def test_stop_event_halts_training_at_a_step_boundary(tmp_path):
    trainer = Trainer(_spec(tmp_path, steps=1000, step_period_s=0.01))
    stop = threading.Event()
    thread = threading.Thread(target=trainer.run, args=(stop,))
    thread.start()
    stop.set()
    thread.join(timeout=10)
    assert not thread.is_alive() and 0 <= trainer.step < 1000


def test_checkpoint_without_file_is_none(tmp_path):
    model = build_model("CV", 0)
    optimizer = torch.optim.Adam(model.parameters())
    none = load_checkpoint(tmp_path / "none.pt", model, optimizer)
    assert (none.step, none.file, none.faults, none.resumed_from) == (None, None, (), "scratch")
    save_checkpoint(tmp_path / "x" / "c.pt", model, torch.optim.Adam(model.parameters()), 5)
    assert [p.name for p in (tmp_path / "x").iterdir()] == ["c.pt"]  # no temporary left
    save_checkpoint(tmp_path / "x" / "c.pt", model, torch.optim.Adam(model.parameters()), 6)
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == ["c.pt", "c.pt.prev"]


def _saved_twice(tmp_path):
    """A trainer checkpointed after steps 2 and 5; the parameters at step 2."""
    trainer = Trainer(_spec(tmp_path, "NLP"))
    for _ in range(2):
        trainer.train_step()
    trainer.save()
    at_two = _params(trainer.model)
    for _ in range(3):
        trainer.train_step()
    trainer.save()
    return trainer.spec.checkpoint, at_two


@pytest.mark.parametrize("damage", [b"", b"not a checkpoint", "truncate"])
def test_an_unreadable_checkpoint_restores_the_previous_one(tmp_path, damage):
    path, at_two = _saved_twice(tmp_path)
    path.write_bytes(path.read_bytes()[:200] if damage == "truncate" else damage)
    trainer = Trainer(_spec(tmp_path, "NLP"))
    restored = trainer.restore()
    assert (restored.step, trainer.step, restored.resumed_from) == (2, 2, "previous")
    assert restored.file == previous_path(path)
    assert [f.file for f in restored.faults] == [str(path)] and restored.faults[0].error
    assert all(torch.equal(a, b) for a, b in zip(at_two, trainer.model.parameters()))


def test_without_a_readable_checkpoint_the_job_starts_from_scratch(tmp_path):
    path, _ = _saved_twice(tmp_path)
    path.write_bytes(b"garbage")
    state = torch.load(previous_path(path), weights_only=True)
    state["optimizer"] = {"not": "an optimiser state"}  # loads the model, then fails
    torch.save(state, previous_path(path))
    trainer = Trainer(_spec(tmp_path, "NLP"))
    restored = trainer.restore()
    assert (restored.step, trainer.step, restored.resumed_from) == (None, 0, "scratch")
    assert [f.file for f in restored.faults] == [str(path), str(previous_path(path))]
    fresh = Trainer(_spec(tmp_path, "NLP"))  # the half-loaded model was rebuilt
    assert all(torch.equal(a, b) for a, b in zip(fresh.model.parameters(),
                                                 trainer.model.parameters()))


def test_a_missing_latest_checkpoint_restores_the_previous_one(tmp_path):
    """A save stopped between its two renames leaves only the previous checkpoint."""
    path, at_two = _saved_twice(tmp_path)
    path.unlink()
    trainer = Trainer(_spec(tmp_path, "NLP"))
    restored = trainer.restore()
    assert (restored.step, restored.faults, restored.resumed_from) == (2, (), "previous")
    assert all(torch.equal(a, b) for a, b in zip(at_two, trainer.model.parameters()))


def test_step_budget_and_family():
    assert step_budget(100.0, 0.05) == 5 and step_budget(1.0, 0.05) == 1
    assert family_of(3, "LLM") == "LLM" and family_of(7, None) == FAMILIES[2]
    assert family_of(7, float("nan")) == FAMILIES[2]
    with pytest.raises(ValueError, match="unknown workload"):
        family_of(0, "Speech")
