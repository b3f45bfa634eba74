"""The cluster state: which instance sits on which node (the single source of truth).

``ClusterState`` holds N nodes of G GPUs. It refuses over-commit, unknown or duplicate
instances and split instances (an instance is placed on exactly one node), and keeps
incremental indexes so that policies never scan all nodes:

* nodes bucketed by free GPUs (``nodes_with_free(f)``, a plain sorted list per f in 0..G,
  kept sorted by bisection: a node changes bucket once per job event, not per instance);
* counts of partial and empty nodes;
* active instances per size (``counts``), the input of the exact Phi* oracle.

Only the simulator mutates a state; schedulers read it and return decisions.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Collection, Iterator, Mapping, Sequence
from types import MappingProxyType

from compass.model import G_DEFAULT, InstanceKey


class PlacementError(ValueError):
    """A placement, release or move that the cluster refuses."""


class ClusterState:
    """N nodes x G GPUs with indexed free capacity (nodes are numbered 0..N-1)."""

    __slots__ = (
        "nodes",
        "gpus_per_node",
        "_free",
        "_buckets",
        "_node_instances",
        "_where",
        "_size",
        "_jobs",
        "_counts",
        "_used",
        "_changed",
    )

    def __init__(self, nodes: int, gpus_per_node: int = G_DEFAULT) -> None:
        if nodes < 1:
            raise ValueError(f"a cluster needs at least one node, got nodes={nodes}")
        if gpus_per_node < 1:
            raise ValueError(f"gpus_per_node must be >= 1, got {gpus_per_node}")
        self.nodes = nodes
        self.gpus_per_node = gpus_per_node
        self._free = [gpus_per_node] * nodes
        #: nodes by free GPUs, each list ascending
        self._buckets: list[list[int]] = [[] for _ in range(gpus_per_node)] + [list(range(nodes))]
        self._node_instances: list[dict[InstanceKey, int]] = [{} for _ in range(nodes)]
        self._where: dict[InstanceKey, int] = {}
        self._size: dict[InstanceKey, int] = {}
        self._jobs: dict[int, tuple[InstanceKey, ...]] = {}
        self._counts = [0] * (gpus_per_node + 1)
        self._used = 0
        #: nodes whose instances changed since ``pop_changed``; None until ``track_changes``
        self._changed: set[int] | None = None

    # ------------------------------------------------------------------ queries
    @property
    def total_gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def used_gpus(self) -> int:
        return self._used

    @property
    def empty_nodes(self) -> int:
        """Nodes with every GPU free."""
        return len(self._buckets[self.gpus_per_node])

    @property
    def full_nodes(self) -> int:
        return len(self._buckets[0])

    @property
    def partial_nodes(self) -> int:
        """Non-empty nodes with at least one free GPU (section 3.1)."""
        buckets = self._buckets
        return self.nodes - len(buckets[self.gpus_per_node]) - len(buckets[0])

    @property
    def counts(self) -> tuple[int, ...]:
        """Active instances per size: ``counts[g]`` for g in 0..G (index 0 is always 0)."""
        return tuple(self._counts)

    def counts_by_size(self) -> dict[int, int]:
        """Active instances per size as ``{g: n_g}`` with zero sizes left out."""
        return {g: n for g, n in enumerate(self._counts) if n}

    def census(self) -> tuple[int, ...]:
        """(partial nodes, used GPUs, empty nodes, running jobs, *``counts``) in one call, a
        flat tuple of ints: the timeline's read of every instant."""
        buckets = self._buckets
        empty = len(buckets[self.gpus_per_node])
        return (self.nodes - empty - len(buckets[0]), self._used, empty, len(self._jobs),
                *self._counts)

    def free(self, node: int) -> int:
        return self._free[node]

    def free_list(self) -> list[int]:
        """A copy of the free GPUs of every node (O(N): for tests and reports only)."""
        return list(self._free)

    def nodes_with_free(self, f: int) -> list[int]:
        """Nodes with exactly ``f`` free GPUs, ascending (read-only: do not mutate)."""
        return self._buckets[f]

    def free_buckets(self) -> list[list[int]]:
        """Every bucket at once: ``free_buckets()[f]`` is ``nodes_with_free(f)`` (read-only)."""
        return self._buckets

    def instance_nodes_and_sizes(self) -> tuple[Collection[int], Collection[int]]:
        """Every running instance's node and size, as two parallel read-only views (the two
        maps gain and lose keys together and a move keeps a key's position), for callers
        that tabulate the placement in C (``realise.node_counts``)."""
        return self._where.values(), self._size.values()

    def instances_on(self, node: int) -> Mapping[InstanceKey, int]:
        """Instances on ``node`` mapped to their sizes, in placement order."""
        return MappingProxyType(self._node_instances[node])

    def node_of(self, instance: InstanceKey) -> int:
        try:
            return self._where[instance]
        except KeyError:
            raise PlacementError(f"instance {instance} is not running") from None

    def size_of(self, instance: InstanceKey) -> int:
        try:
            return self._size[instance]
        except KeyError:
            raise PlacementError(f"instance {instance} is not running") from None

    def is_running(self, job_id: int) -> bool:
        return job_id in self._jobs

    @property
    def running_job_count(self) -> int:
        return len(self._jobs)

    def running_jobs(self) -> Iterator[int]:
        """Ids of running jobs in start order."""
        return iter(self._jobs)

    def job_instances(self, job_id: int) -> tuple[InstanceKey, ...]:
        try:
            return self._jobs[job_id]
        except KeyError:
            raise PlacementError(f"job {job_id} is not running") from None

    def job_nodes(self, job_id: int) -> tuple[int, ...]:
        """Node of each instance of a running job, in instance order."""
        return tuple(self._where[i] for i in self.job_instances(job_id))

    def instance_capacity(self, g: int) -> int:
        """How many more g-GPU instances fit now: sum over nodes of floor(f_n / g), O(G)."""
        buckets = self._buckets
        total = 0
        for f in range(g, self.gpus_per_node + 1):
            if k := len(buckets[f]):
                total += k * (f // g)
        return total

    def iter_nodes_by_free(self, min_free: int) -> Iterator[tuple[int, int]]:
        """``(free, node)`` for nodes with free >= min_free, by free then index (best-fit order)."""
        for f in range(max(min_free, 0), self.gpus_per_node + 1):
            for n in self._buckets[f]:
                yield f, n

    def track_changes(self) -> None:
        """Start recording which nodes' instances change (for incremental per-node views)."""
        if self._changed is None:
            self._changed = set()

    def pop_changed(self) -> set[int]:
        """Nodes whose instances changed since the last call (needs ``track_changes``)."""
        if self._changed is None:
            raise RuntimeError("call track_changes() before pop_changed()")
        changed, self._changed = self._changed, set()
        return changed

    # ---------------------------------------------------------------- mutations
    def place_job(self, job_id: int, size: int, nodes: Sequence[int]) -> None:
        """Start a job: instance k of size ``size`` on ``nodes[k]``; all or nothing."""
        if job_id in self._jobs:
            raise PlacementError(f"job {job_id} is already running")
        if not nodes:
            raise PlacementError(f"job {job_id}: a job needs at least one instance")
        if not 1 <= size <= self.gpus_per_node:
            raise PlacementError(
                f"job {job_id}: instance size {size} does not fit a {self.gpus_per_node}-GPU node"
            )
        free = self._free
        if len(nodes) == 1:  # the common case, without the per-node tally
            n = nodes[0]
            if not (type(n) is int and 0 <= n < self.nodes):
                self._check_node(n)
            if size > free[n]:
                raise PlacementError(
                    f"job {job_id}: node {n} has {free[n]} free GPUs, "
                    f"{size} requested (over-commit)"
                )
            key = (job_id, 0)
            self._jobs[job_id] = (key,)
            self._size[key] = size
            self._where[key] = n
            self._node_instances[n][key] = size
            self._shift(n, -size)
            self._counts[size] += 1
            self._used += size
            return
        need: dict[int, int] = {}
        for n in nodes:
            need[n] = need.get(n, 0) + size
        in_range = range(self.nodes)
        for n in need:
            if not (type(n) is int and n in in_range):
                self._check_node(n)
        for n, gpus in need.items():
            if gpus > free[n]:
                raise PlacementError(
                    f"job {job_id}: node {n} has {free[n]} free GPUs, "
                    f"{gpus} requested (over-commit)"
                )
        keys = tuple([(job_id, k) for k in range(len(nodes))])
        self._jobs[job_id] = keys
        sizes, where, hosted = self._size, self._where, self._node_instances
        for key, n in zip(keys, nodes):
            sizes[key] = size
            where[key] = n
            hosted[n][key] = size
        shift = self._shift
        for n, gpus in need.items():
            shift(n, -gpus)
        self._counts[size] += len(keys)
        self._used += size * len(keys)

    def release_job(self, job_id: int) -> tuple[InstanceKey, ...]:
        """Stop a job and free its GPUs; returns its instance keys."""
        keys = self._jobs.pop(job_id, None)
        if keys is None:
            raise PlacementError(f"job {job_id} is not running")
        sizes, where, hosted = self._size, self._where, self._node_instances
        size = sizes[keys[0]]  # every instance of a job has the job's size
        if len(keys) == 1:
            key = keys[0]
            del sizes[key]
            n = where.pop(key)
            del hosted[n][key]
            self._shift(n, size)
            self._counts[size] -= 1
            self._used -= size
            return keys
        freed: dict[int, int] = {}
        for key in keys:
            del sizes[key]
            n = where.pop(key)
            del hosted[n][key]
            freed[n] = freed.get(n, 0) + size
        for n, gpus in freed.items():
            self._shift(n, gpus)
        self._counts[size] -= len(keys)
        self._used -= size * len(keys)
        return keys

    def move(self, instance: InstanceKey, dst: int) -> int:
        """Migrate one running instance to ``dst``; returns the source node."""
        size = self._size.get(instance)
        if size is None:
            raise PlacementError(f"instance {instance} is not running")
        if not (type(dst) is int and 0 <= dst < self.nodes):
            self._check_node(dst)
        where = self._where
        src = where[instance]
        if src == dst:
            raise PlacementError(f"instance {instance} is already on node {dst}")
        if self._free[dst] < size:
            raise PlacementError(
                f"instance {instance} needs {size} GPUs, node {dst} has {self._free[dst]} free"
            )
        hosted = self._node_instances
        del hosted[src][instance]
        hosted[dst][instance] = size
        where[instance] = dst
        self._shift(src, size)
        self._shift(dst, -size)
        return src

    def place_job_after_moves(
        self, job_id: int, size: int, nodes: Sequence[int],
        moves: Sequence[tuple[InstanceKey, int]],
    ) -> list[int]:
        """Migrate ``moves`` ((instance, dst), in order), then start the job as ``place_job``.

        All or nothing: every step is first validated on the state the steps before it leave
        (no over-commit in between, no move onto the node an instance is on), and the job
        against the state all the moves leave, so a refused plan leaves no trace. Returns
        each move's source node.
        """
        free: dict[int, int] = {}  # free GPUs of the nodes the moves touch, as they leave them
        at: dict[InstanceKey, int] = {}
        sources = []
        for step, (instance, dst) in enumerate(moves):
            gpus = self.size_of(instance)
            self._check_node(dst)
            src = at.get(instance, self._where[instance])
            room = free.get(dst, self._free[dst])
            if src == dst or room < gpus:
                raise PlacementError(
                    f"job {job_id}: move {step} of {instance} to node {dst} is refused (it is "
                    f"on node {src}, node {dst} has {room} free GPUs, {gpus} needed)")
            free[src] = free.get(src, self._free[src]) + gpus
            free[dst] = room - gpus
            at[instance] = dst
            sources.append(src)
        if job_id in self._jobs or not nodes or not 1 <= size <= self.gpus_per_node:
            self.place_job(job_id, size, nodes)  # raises place_job's own error, no trace
        need: dict[int, int] = {}
        for n in nodes:
            need[n] = need.get(n, 0) + size
        for n, gpus in need.items():
            self._check_node(n)
            if gpus > free.get(n, self._free[n]):
                raise PlacementError(
                    f"job {job_id}: node {n} has {free.get(n, self._free[n])} free GPUs after "
                    f"the moves, {gpus} requested (over-commit)")
        for instance, dst in moves:
            self.move(instance, dst)
        self.place_job(job_id, size, nodes)
        return sources

    def copy(self) -> ClusterState:
        """An independent deep copy (O(N + instances))."""
        other = ClusterState.__new__(ClusterState)
        other.nodes = self.nodes
        other.gpus_per_node = self.gpus_per_node
        other._free = list(self._free)
        other._buckets = [list(b) for b in self._buckets]
        other._node_instances = [dict(d) for d in self._node_instances]
        other._where = dict(self._where)
        other._size = dict(self._size)
        other._jobs = dict(self._jobs)
        other._counts = list(self._counts)
        other._used = self._used
        other._changed = None
        return other

    def check(self) -> None:
        """Recompute every index from scratch and raise AssertionError on any mismatch."""
        G = self.gpus_per_node
        counts = [0] * (G + 1)
        used = 0
        for n in range(self.nodes):
            load = sum(self._node_instances[n].values())
            assert 0 <= load <= G, f"node {n} holds {load} GPUs > {G}"
            assert self._free[n] == G - load, f"node {n}: free index {self._free[n]} != {G - load}"
            bucket = self._buckets[G - load]
            i = bisect_left(bucket, n)
            assert i < len(bucket) and bucket[i] == n, f"node {n} missing from bucket {G - load}"
            for key, size in self._node_instances[n].items():
                assert self._where[key] == n and self._size[key] == size
                counts[size] += 1
            used += load
        assert sum(len(b) for b in self._buckets) == self.nodes, "a node sits in two buckets"
        assert all(b == sorted(b) for b in self._buckets), "a bucket is out of order"
        assert counts == self._counts, f"size counts {self._counts} != recomputed {counts}"
        assert used == self._used
        assert len(self._where) == sum(len(k) for k in self._jobs.values())

    # ----------------------------------------------------------------- helpers
    def _check_node(self, n: int) -> None:
        if not (type(n) is int or isinstance(n, int)) or not 0 <= n < self.nodes:
            raise PlacementError(f"node {n!r} is not in 0..{self.nodes - 1}")

    def _shift(self, n: int, delta: int) -> None:
        """Node ``n`` gains ``delta`` free GPUs (negative: uses them): move it between buckets."""
        f = self._free[n]
        bucket = self._buckets[f]
        del bucket[bisect_left(bucket, n)]
        insort(self._buckets[f + delta], n)
        self._free[n] = f + delta
        if self._changed is not None:
            self._changed.add(n)


class FreeOverlay:
    """Tentative free-GPU view over a ``ClusterState`` for planning a gang placement.

    A policy takes GPUs on the overlay instance by instance; the real state is untouched,
    so a job that does not fit leaves no trace. Queries stay indexed: O(log N + k) for k
    nodes already taken in the overlay.
    """

    __slots__ = ("_state", "_free", "_moved")

    def __init__(self, state: ClusterState) -> None:
        self._state = state
        self._free: dict[int, int] = {}
        self._moved: list[list[int]] = [[] for _ in range(state.gpus_per_node + 1)]

    def free(self, node: int) -> int:
        return self._free.get(node, self._state._free[node])

    def lowest_node_with_free(self, f: int) -> int | None:
        """Lowest-index node whose tentative free count is exactly ``f``."""
        best = None
        for n in self._state._buckets[f]:
            if n not in self._free:
                best = n
                break
        moved = self._moved[f]
        if moved and (best is None or moved[0] < best):
            best = moved[0]
        return best

    def take(self, node: int, gpus: int) -> None:
        f = self.free(node)
        if gpus > f:
            raise PlacementError(f"node {node} has {f} free GPUs, {gpus} requested")
        if node in self._free:
            self._moved[f].remove(node)
        self._free[node] = f - gpus
        lst = self._moved[f - gpus]
        # keep each overlay bucket sorted (small lists: linear insertion is fine)
        i = len(lst)
        while i > 0 and lst[i - 1] > node:
            i -= 1
        lst.insert(i, node)
