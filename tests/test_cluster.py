"""ClusterState: refusals, indexes, and a hypothesis state machine against a naive model."""

import hypothesis.strategies as st
import pytest
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from compass.cluster import ClusterState, FreeOverlay, PlacementError


def test_refuses_over_commit_and_leaves_no_trace():
    s = ClusterState(2)
    s.place_job(0, 4, [0, 0])
    with pytest.raises(PlacementError, match="over-commit"):
        s.place_job(1, 4, [1, 0])  # second instance does not fit node 0
    assert not s.is_running(1) and s.free(1) == 8 and s.used_gpus == 8
    s.check()


def test_refuses_bad_requests():
    s = ClusterState(2)
    s.place_job(0, 2, [0])
    with pytest.raises(PlacementError, match="already running"):
        s.place_job(0, 2, [1])
    with pytest.raises(PlacementError, match="not in 0..1"):
        s.place_job(1, 2, [2])
    with pytest.raises(PlacementError, match="does not fit"):
        s.place_job(1, 9, [1])
    with pytest.raises(PlacementError, match="not running"):
        s.release_job(7)
    with pytest.raises(PlacementError, match="already on node"):
        s.move((0, 0), 0)
    s.place_job(2, 8, [1])
    with pytest.raises(PlacementError, match="needs 2 GPUs"):
        s.move((0, 0), 1)
    s.check()


def test_indexes_follow_mutations():
    s = ClusterState(4)
    assert (s.empty_nodes, s.partial_nodes, s.full_nodes) == (4, 0, 0)
    s.place_job(0, 3, [0, 1])
    s.place_job(1, 5, [0])
    assert list(s.nodes_with_free(0)) == [0] and list(s.nodes_with_free(5)) == [1]
    assert (s.empty_nodes, s.partial_nodes, s.full_nodes) == (2, 1, 1)
    assert s.counts[3] == 2 and s.counts[5] == 1
    assert s.instance_capacity(4) == 2 * 2 + 1  # two empty nodes, node 1 has 5 free
    s.move((0, 1), 2)
    assert s.job_nodes(0) == (0, 2) and s.free(1) == 8
    s.release_job(1)
    assert s.counts_by_size() == {3: 2} and s.used_gpus == 6
    assert list(s.iter_nodes_by_free(5))[:2] == [(5, 0), (5, 2)]
    s.check()


def test_copy_is_independent():
    s = ClusterState(2)
    s.place_job(0, 4, [0])
    c = s.copy()
    c.place_job(1, 8, [1])
    assert s.free(1) == 8 and c.free(1) == 0
    s.check()
    c.check()


def test_free_overlay_tracks_tentative_takes():
    s = ClusterState(3)
    s.place_job(0, 6, [1])
    ov = FreeOverlay(s)
    assert ov.lowest_node_with_free(8) == 0 and ov.lowest_node_with_free(2) == 1
    ov.take(0, 6)
    assert ov.lowest_node_with_free(8) == 2
    assert ov.lowest_node_with_free(2) == 0  # tentative node 0 (2 free) before node 1
    ov.take(0, 2)
    assert ov.free(0) == 0 and s.free(0) == 8
    with pytest.raises(PlacementError):
        ov.take(0, 1)


class ClusterMachine(RuleBasedStateMachine):
    """Random place/release/move against a dict model; every index must agree."""

    def __init__(self):
        super().__init__()
        self.state: ClusterState | None = None
        self.model: dict[int, tuple[int, list[int]]] = {}  # job -> (size, nodes)
        self.next_job = 0

    @initialize(nodes=st.integers(1, 6), gpus=st.sampled_from([1, 2, 4, 8]))
    def init(self, nodes, gpus):
        self.state = ClusterState(nodes, gpus)
        self.G = gpus

    def _free(self):
        free = [self.G] * self.state.nodes
        for size, nodes in self.model.values():
            for n in nodes:
                free[n] -= size
        return free

    @precondition(lambda self: self.state is not None)
    @rule(data=st.data())
    def place(self, data):
        size = data.draw(st.integers(1, self.G))
        nodes = data.draw(st.lists(st.integers(0, self.state.nodes - 1), min_size=1, max_size=4))
        free = self._free()
        for n in nodes:
            free[n] -= size
        job = self.next_job
        self.next_job += 1
        if min(free) < 0:
            with pytest.raises(PlacementError):
                self.state.place_job(job, size, nodes)
        else:
            self.state.place_job(job, size, nodes)
            self.model[job] = (size, list(nodes))

    @precondition(lambda self: self.state is not None and self.model)
    @rule(data=st.data())
    def release(self, data):
        job = data.draw(st.sampled_from(sorted(self.model)))
        self.state.release_job(job)
        del self.model[job]

    @precondition(lambda self: self.state is not None and self.model)
    @rule(data=st.data())
    def move(self, data):
        job = data.draw(st.sampled_from(sorted(self.model)))
        size, nodes = self.model[job]
        k = data.draw(st.integers(0, len(nodes) - 1))
        dst = data.draw(st.integers(0, self.state.nodes - 1))
        if dst == nodes[k] or self._free()[dst] < size:
            with pytest.raises(PlacementError):
                self.state.move((job, k), dst)
        else:
            assert self.state.move((job, k), dst) == nodes[k]
            nodes[k] = dst

    @invariant()
    def agrees_with_model(self):
        if self.state is None:
            return
        self.state.check()
        free = self._free()
        assert self.state.free_list() == free
        G = self.G
        assert self.state.empty_nodes == sum(f == G for f in free)
        assert self.state.partial_nodes == sum(0 < f < G for f in free)
        for g in range(1, G + 1):
            assert self.state.instance_capacity(g) == sum(f // g for f in free)
        for job, (_, nodes) in self.model.items():
            assert self.state.job_nodes(job) == tuple(nodes)
        # the two parallel views pair every running instance's node with its size
        pairs = sorted(zip(*self.state.instance_nodes_and_sizes(), strict=True))
        assert pairs == sorted((n, size) for size, nodes in self.model.values() for n in nodes)


TestClusterMachine = ClusterMachine.TestCase
TestClusterMachine.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
