"""Physical-mode training jobs: each family trains, and a checkpoint round trip is exact."""

import threading

import pytest

torch = pytest.importorskip("torch", reason="physical mode needs the 'runtime' extra (torch)")

from compass.runtime.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
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
    assert restored.restore() == 4
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
    assert load_checkpoint(tmp_path / "none.pt", model, optimizer) is None
    save_checkpoint(tmp_path / "x" / "c.pt", model, torch.optim.Adam(model.parameters()), 5)
    assert [p.name for p in (tmp_path / "x").iterdir()] == ["c.pt"]  # no temporary left


def test_step_budget_and_family():
    assert step_budget(100.0, 0.05) == 5 and step_budget(1.0, 0.05) == 1
    assert family_of(3, "LLM") == "LLM" and family_of(7, None) == FAMILIES[2]
    assert family_of(7, float("nan")) == FAMILIES[2]
    with pytest.raises(ValueError, match="unknown workload"):
        family_of(0, "Speech")
