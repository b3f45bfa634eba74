"""Scheduler cards: one declaration per class, read by the registry, the pipeline's role
tuples and the figures; ``params()`` read back by the constructor's signature; modules
discovered; re-registering the same class tolerated, another class under a taken name not."""

from __future__ import annotations

import inspect
import pkgutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import compass.schedulers as S
from compass import plotting
from compass.experiments.config import EXTENSION_SCHEDULERS, PAPER_SCHEDULERS
from compass.schedulers.gfs import GFS

#: Section 5.4's order, written out independently of the cards.
PAPER_ORDER = ("compass-abs", "gfs", "fgd", "cafgd", "mcg", "fft", "drr", "sifopt")


def test_role_tuples_come_from_the_cards_in_the_papers_order() -> None:
    assert PAPER_SCHEDULERS == PAPER_ORDER
    assert EXTENSION_SCHEDULERS == ("compass-abs-plus", "gfs-backfill")
    roles = {c.name: c.role for c in S.cards()}
    assert roles["compass-abs"] == "paper" and roles["sifopt"] == "oracle"
    assert roles["compass-abs-paper"] == "variant"  # not inherited from compass-abs


def _own_cards() -> list[S.SchedulerCard]:
    """The package's schedulers' cards (not a plugin another test loaded)."""
    return [c for c in S.cards()
            if S.scheduler_class(c.name).__module__.startswith("compass.schedulers.")]


def test_plotting_tables_are_the_cards() -> None:
    assert plotting.order(S.available())[: len(PAPER_ORDER)] == list(PAPER_ORDER)
    for card in _own_cards():
        assert plotting.display(card.name) == card.display
        if card.color:
            assert plotting.color(card.name) == card.color
    colored = [c.color for c in _own_cards() if c.color]
    assert len(colored) == len(set(colored))  # no two schedulers share a colour


def test_every_module_of_the_package_is_imported() -> None:
    package = Path(S.__file__).parent
    names = {m.name for m in pkgutil.iter_modules([str(package)])}
    import sys
    assert all(f"compass.schedulers.{n}" in sys.modules for n in names)
    source = (package / "__init__.py").read_text()
    assert "gfs" not in source.replace("greedy_gang", "")  # no module listed by hand


@pytest.mark.parametrize("name", S.available())
def test_params_are_the_constructor_arguments(name: str) -> None:
    cls = S.scheduler_class(name)
    signature = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    recorded = S.create(name).params()
    wanted = [p for p in signature if p != "learned"]  # drr records its policy's report
    assert [k for k in recorded if k in signature] == wanted
    for key in wanted:
        assert recorded[key] == inspect.signature(cls.__init__).parameters[key].default


@given(water=st.floats(0.5, 1.0), hold=st.floats(0, 1000), short=st.integers(1, 500))
def test_params_follow_the_values_given(water: float, hold: float, short: int) -> None:
    params = S.create("cafgd", water=water, hold_window=hold, short_window=short).params()
    assert (params["water"], params["hold_window"], params["short_window"]) == (water, hold,
                                                                                 short)


def test_a_constructor_argument_kept_under_another_name_is_left_out() -> None:
    class Scripted(GFS):
        def __init__(self, script: dict, *, seed: int = 0, period: float = 5.0) -> None:
            super().__init__(seed=seed)
            self.script = script
            self.timer_period = period

    assert Scripted({1.0: ()}, seed=2).params() == {"script": {1.0: ()}, "seed": 2}


def test_registering_the_same_class_again_is_tolerated() -> None:
    def define() -> type[GFS]:
        class CellScheduler(GFS):  # what a notebook cell run twice defines twice
            name = "test-cell-scheduler"
        return CellScheduler

    try:
        first = S.register(define())
        second = S.register(define())
        assert first is not second and S.scheduler_class("test-cell-scheduler") is second

        class Other(GFS):
            name = "test-cell-scheduler"

        with pytest.raises(ValueError, match="already registered"):
            S.register(Other)
    finally:
        S.registry._REGISTRY.pop("test-cell-scheduler", None)


def test_an_unknown_role_is_refused() -> None:
    class Odd(GFS):
        name = "test-odd"
        role = "champion"  # type: ignore[assignment]

    with pytest.raises(ValueError, match="role"):
        S.register(Odd)
    assert "test-odd" not in S.available()


def test_run_inputs_names_no_scheduler_and_loads_no_simulator() -> None:
    import subprocess
    import sys

    import compass.sim.run_inputs as R

    source = Path(R.__file__).read_text().lower()
    assert not [n for n in S.available() if f'"{n}"' in source or f"import {n}" in source]
    assert "drr" not in source
    code = ("import sys, compass.sim.run_inputs; print('compass.sim.simulator' in sys.modules, "
            "'compass.sim.drr_training' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def test_a_registered_builder_is_called_with_the_cluster(monkeypatch) -> None:
    """A builder registered for a scheduler name (by the layer above the schedulers) turns
    the run's parameters into constructor arguments; DRR's is registered there, and no
    scheduler names a module above its layer."""
    from compass.sim import builders
    from compass.sim.run_inputs import build_scheduler

    calls = []

    def builder(params, *, nodes, gpus_per_node, seed):
        calls.append((dict(params), nodes, gpus_per_node, seed))
        return {}

    class Built(GFS):
        name = "test-built"

    monkeypatch.setitem(builders._BUILDERS, "test-built", builder)
    S.register(Built)
    try:
        made = build_scheduler("test-built", nodes=7, gpus_per_node=8, seed=3,
                               params={"anything": 1})
        assert isinstance(made, Built) and calls == [({"anything": 1}, 7, 8, 3)]
    finally:
        S.registry._REGISTRY.pop("test-built", None)
    assert builders.builder_of("drr") is not None and builders.builder_of("gfs") is None


def test_a_scheduler_registered_after_plotting_is_imported_has_its_card_in_figures():
    """plotting reads the cards at each call: a plugin registered later has its colour,
    name and place (its role's) in every figure."""
    from compass.schedulers import registry

    class LateFit(GFS):
        name = "late-fit-test"
        role = "baseline"
        display = "Late-fit (test)"
        color = "#123456"
        rank = 99

    registry.register(LateFit)
    try:
        assert plotting.color("late-fit-test") == "#123456"
        assert plotting.display("late-fit-test") == "Late-fit (test)"
        assert plotting.order(["late-fit-test", "sifopt", "zz-unknown", "compass-abs"]) == [
            "compass-abs", "late-fit-test", "sifopt", "zz-unknown"]
    finally:
        del registry._REGISTRY["late-fit-test"]
    assert plotting.color("late-fit-test") in plotting._SPARE_COLORS
    assert plotting.display("late-fit-test") == "late-fit-test"
