"""DRR's optional learned placement policy (compass/schedulers/drr_policy.py, trained by
compass/sim/drr_training.py; docs/baselines.md).

Behaviour cloning of best-fit: deterministic training, agreement with best-fit on held-out
and fresh decisions, a hand-made state, the training-slice protocol (no shared day with the
evaluated window, the same G), the profile's parameters, the best-fit fallback, and the
simulator invariants of learned DRR.
"""

from pathlib import Path

import hypothesis.strategies as st
import jsonschema
import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from trace_rows import gap_trace, trace

import compass
from compass.cluster import ClusterState
from compass.experiments.config import parse_config
from compass.experiments.runs import simulate_window
from compass.model import Job
from compass.schedulers.drr import DRR
from compass.schedulers.drr_policy import (
    LearnedPlacement,
    PolicyConfig,
    RecordingScheduler,
    agreement,
    candidate_features,
    train,
)
from compass.schedulers.gfs import best_fit_gang
from compass.sim.drr_training import drr_arguments, fit_policy, record_decisions, train_policy
from compass.traces import demo_trace, jobs_from_frame
from compass.traces.windows import DAY_SECONDS

ROOT = Path(__file__).resolve().parents[1]

#: Agreement floor of the tests. Measured (SYNTHETIC demo mix, 300 jobs, 4, 8 and 16 nodes,
#: seeds 1-3, default PolicyConfig): 1.0 on the held-out 20 % and 0.9926-1.0 on a fresh demo
#: trace (one miss in 135 decisions at 4 nodes: a free-count pair rarely seen in training);
#: the floor leaves room for such misses.
AGREEMENT_FLOOR = 0.95


def training_frame(num_jobs=300, seed=1, day=10):
    """A SYNTHETIC demo trace moved to day ``day`` (the evaluated traces sit in day 0)."""
    frame = demo_trace(num_jobs=num_jobs, seed=seed)
    frame["submit_time"] += day * DAY_SECONDS
    return frame


def fitting(frame, nodes):
    return [j for j in jobs_from_frame(frame)
            if j.num_instances <= nodes * (8 // j.gpus_per_instance)]


@pytest.fixture(scope="module")
def trained():
    return fit_policy(jobs_from_frame(training_frame()), DRR(), 8, 8, PolicyConfig(), seed=0)


def learned_params(frame=None, **extra):
    return {"policy": "learned",
            "training_trace": training_frame() if frame is None else frame, **extra}


# ------------------------------------------------------------------------------ training
def test_training_is_deterministic_given_the_seed():
    decisions = record_decisions(fitting(training_frame(), 8), DRR(), 8, 8)
    config = PolicyConfig()
    first, second = train(decisions, config, seed=0), train(decisions, config, seed=0)
    assert np.array_equal(first, second)
    assert not np.array_equal(first, train(decisions, config, seed=1))
    a, report_a = fit_policy(jobs_from_frame(training_frame()), DRR(), 8, 8, config, seed=3)
    b, report_b = fit_policy(jobs_from_frame(training_frame()), DRR(), 8, 8, config, seed=3)
    assert np.array_equal(a.weights, b.weights) and report_a == report_b


def test_agreement_with_best_fit_is_high_on_held_out_and_fresh_decisions(trained):
    policy, report = trained
    assert report.agreement_on == "holdout" and report.holdout_examples > 20
    assert report.fit_examples + report.holdout_examples == report.examples
    assert report.agreement >= AGREEMENT_FLOOR
    fresh = record_decisions(fitting(demo_trace(num_jobs=300, seed=11), 8), DRR(), 8, 8)
    assert len(fresh) > 100
    assert agreement(policy.weights, fresh) >= AGREEMENT_FLOOR


def test_agreement_falls_back_to_the_training_examples_without_a_holdout():
    _, report = fit_policy(jobs_from_frame(training_frame()), DRR(), 8, 8,
                           PolicyConfig(holdout=0.0), seed=0)
    assert report.agreement_on == "training" and report.holdout_examples == 0
    assert report.agreement >= AGREEMENT_FLOOR


def test_split_scores_equal_the_feature_table(trained):
    policy, _ = trained
    state = hand_made_state()
    for g, w in [(1, 1), (2, 3), (3, 1), (8, 2)]:
        table = candidate_features(state, g, w) @ policy.weights
        assert np.allclose(policy.scores(state, g, w), table[g:])


def hand_made_state():
    """Free GPUs per node: N0 8 (empty), N1 3, N2 5, N3 2, N4 1."""
    state = ClusterState(5)
    for job_id, (node, used) in enumerate([(1, 5), (2, 3), (3, 6), (4, 7)]):
        state.place_job(job_id, used, [node])
    return state


@pytest.mark.parametrize(
    ("g", "w", "expected"),
    [(2, 1, (3,)),  # least free >= 2: N3 (f = 2)
     (2, 2, (3, 1)),  # N3 then N1 (f = 3)
     (4, 1, (2,)),  # N2 (f = 5) before the empty N0
     (1, 2, (4, 3))],  # N4 (f = 1), then N3 (f = 2)
)
def test_trained_policy_picks_best_fit_on_a_hand_made_state(trained, g, w, expected):
    policy, _ = trained
    state = hand_made_state()
    job = Job(99, 0.0, 1.0, w, g)
    assert best_fit_gang(state, g, w) == expected
    assert policy.place(state, job) == expected
    assert policy.fallbacks == 0


def test_untrained_policy_falls_back_to_best_fit_and_counts_it():
    policy = LearnedPlacement(None)
    state = hand_made_state()
    assert policy.place(state, Job(1, 0.0, 1.0, 2, 2)) == (3, 1)
    assert policy.place(state, Job(2, 0.0, 1.0, 9, 8)) is None  # does not fit: no decision
    assert (policy.fallbacks, policy.decisions, policy.agreed) == (1, 1, 1)


def test_recording_leaves_the_teacher_run_unchanged():
    jobs = demo_trace(num_jobs=120, seed=4)
    recorder = RecordingScheduler(DRR(re_time=600.0))
    recorded = compass.simulate(jobs, recorder, nodes=8)
    plain = compass.simulate(jobs, DRR(re_time=600.0), nodes=8)
    for frame in ("jobs", "timeline", "migrations"):
        pd.testing.assert_frame_equal(getattr(recorded, frame), getattr(plain, frame))
    decisions = recorder.decisions(8)
    assert 0 < decisions.tables.shape[0] <= len(jobs) and len(decisions) >= len(recorder.tables)
    assert (decisions.mask.sum(axis=1) > 1).all()
    assert decisions.mask[np.arange(len(decisions)), decisions.label].all()


# ------------------------------------------------------------------------------ protocol
def test_learned_drr_runs_through_simulate_and_reports(tmp_path):
    path = tmp_path / "train.csv"
    training_frame().to_csv(path, index=False)
    evaluated = demo_trace(num_jobs=150, seed=5)
    result = compass.simulate(evaluated, "drr", nodes=8, debug_checks=True,
                              scheduler_params=learned_params(str(path), re_time=900.0,
                                                              policy_config={"epochs": 50}))
    assert result.jobs["end_time"].notna().all()
    params = result.metadata["scheduler_params"]
    assert params["policy"] == "learned" and params["training_trace"] == str(path)
    assert params["policy_config"]["epochs"] == 50
    assert params["training_jobs"] == 300 and params["agreement_on"] == "holdout"
    assert params["agreement"] >= AGREEMENT_FLOOR
    assert params["run_agreement"] >= AGREEMENT_FLOOR


def test_a_profile_selects_the_learned_policy_through_scheduler_params(tmp_path):
    """The pipeline passes ``scheduler_params.drr`` verbatim: no pipeline change is needed."""
    path = tmp_path / "train.csv"
    training_frame().to_csv(path, index=False)
    raw = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    raw["scheduler_params"] = {"drr": {"policy": "learned", "training_trace": str(path)}}
    jsonschema.validate(raw, yaml.safe_load((ROOT / "config" / "schema.yaml").read_text()))
    run = parse_config(raw).run
    result = simulate_window(demo_trace(num_jobs=80, seed=6), "drr", 8, 8.0, run)
    assert result.metadata["scheduler_params"]["policy"] == "learned"


def test_a_training_slice_sharing_a_day_with_the_evaluated_window_is_refused():
    evaluated = demo_trace(num_jobs=50, seed=5)  # day 0
    with pytest.raises(ValueError, match=r"evaluated day\(s\) \[0\]"):
        compass.simulate(evaluated, "drr", nodes=8,
                         scheduler_params=learned_params(training_frame(day=0)))
    late = training_frame(num_jobs=20)
    late["submit_time"] = DAY_SECONDS - 100.0 + np.arange(20)  # same day, disjoint range
    with pytest.raises(ValueError, match="training slice"):
        compass.simulate(evaluated, "drr", nodes=8, scheduler_params=learned_params(late))
    next_day = compass.simulate(evaluated, "drr", nodes=8,
                                scheduler_params=learned_params(training_frame(day=1)))
    assert next_day.jobs["end_time"].notna().all()


def test_learned_policy_needs_its_training_trace():
    def args(**params):
        return drr_arguments(params, nodes=8, gpus_per_node=8, seed=0)

    with pytest.raises(ValueError, match="training_trace"):
        args(policy="learned")
    with pytest.raises(ValueError, match="training_trace"):
        args(training_trace=training_frame())
    with pytest.raises(ValueError, match="policy"):
        args(policy="drl", training_trace=training_frame())
    with pytest.raises(ValueError, match="policy_config"):
        args(policy_config={"epochs": 5})
    assert args(policy="best-fit", re_num=3) == {"re_num": 3}


def test_the_profile_parameters_train_for_the_evaluated_cluster():
    """``scheduler_params.drr`` with ``policy: learned`` trains on the run's cluster size
    with the run's drain parameters, as a policy trained by hand for it."""
    params = drr_arguments({"policy": "learned", "training_trace": training_frame(),
                            "re_time": 900.0, "policy_config": {"epochs": 20}},
                           nodes=6, gpus_per_node=8, seed=2)
    learned = params.pop("learned")
    assert params == {"re_time": 900.0}
    assert (learned.nodes, learned.gpus_per_node, learned.config.epochs) == (6, 8, 20)
    assert learned.training == "<DataFrame>" and learned.training_days == {10}
    by_hand = train_policy(training_frame(), nodes=6, gpus_per_node=8, seed=2,
                           config={"epochs": 20}, re_time=900.0)
    assert np.array_equal(learned.placement.weights, by_hand.placement.weights)
    assert learned.report == by_hand.report


def test_a_policy_for_other_nodes_is_refused():
    learned = train_policy(training_frame(num_jobs=60), nodes=8, gpus_per_node=8)
    with pytest.raises(ValueError, match="trained for 8-GPU nodes, the cluster has 16"):
        compass.simulate(demo_trace(num_jobs=20, seed=5), DRR(learned=learned), nodes=8,
                         gpus_per_node=16)


def test_a_slice_without_choices_trains_nothing_and_places_by_best_fit():
    only_full = trace(*[(k, 10 * DAY_SECONDS + k, 50.0, 1, 8) for k in range(10)])
    drr = DRR(learned=train_policy(only_full, nodes=8, gpus_per_node=8))
    result = compass.simulate(demo_trace(num_jobs=60, seed=2), drr, nodes=8)
    report = drr.policy_report
    assert report["agreement_on"] == "none" and report["agreement"] is None
    assert report["fallbacks"] == report["run_jobs"] == 60 and report["run_agreement"] == 1.0
    plain = compass.simulate(demo_trace(num_jobs=60, seed=2), "drr", nodes=8)
    pd.testing.assert_frame_equal(result.jobs, plain.jobs)


def test_best_fit_default_is_unchanged():
    drr = DRR()
    assert drr.policy == "best-fit" and drr.policy_report == {}
    assert set(drr.params()) == {"re_time", "util_threshold", "re_num", "seed"}


# ---------------------------------------------------------------------------- invariants
job_rows = st.lists(
    st.tuples(
        st.integers(0, 30),  # gap to the previous submission
        st.integers(1, 60),  # duration
        st.integers(1, 4),  # w
        st.sampled_from([1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8]),  # g
    ),
    min_size=1,
    max_size=25,
)


#: One learned DRR for every example, trained on the largest cluster drawn (its features are
#: shares and ratios, so it places on any size).
INVARIANT_DRR = DRR(re_time=20.0, learned=train_policy(training_frame(num_jobs=120), nodes=5,
                                                       gpus_per_node=8, re_time=20.0))


@settings(max_examples=30, deadline=None)
@given(rows=job_rows, nodes=st.integers(1, 5))
def test_learned_drr_keeps_the_simulator_invariants(rows, nodes):
    jobs = gap_trace(rows, nodes)
    result = compass.simulate(jobs, INVARIANT_DRR, nodes=nodes, debug_checks=True)
    done = result.jobs
    assert done["end_time"].notna().all()
    assert (done["start_time"] >= done["submit_time"]).all()
    assert np.allclose(done["end_time"] - done["start_time"],
                       done["duration"] + done["pause_time"])
    timeline = result.timeline
    assert (timeline["used_gpus"] <= nodes * 8).all() and (timeline["sif"] >= 0).all()
    assert timeline["used_gpus"].iloc[-1] == 0 and timeline["queue_len"].iloc[-1] == 0
