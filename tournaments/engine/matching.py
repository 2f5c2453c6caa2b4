"""Minimum-cost perfect matching in a general graph: Edmonds' blossom algorithm.

The Swiss pairer (``swiss.py``) calls this on a small reduced graph when its fast
construction cannot be proved optimal by a counting bound. Costs are exact integers (the
pairer packs its lexicographic objective into one integer), so the result is exactly
optimal, never approximately.

Algorithm: the primal–dual weighted blossom method of Edmonds in the O(n³) form described
by Z. Galil, "Efficient algorithms for finding maximum matching in graphs", ACM Computing
Surveys 18 (1986), with the data layout of J. van Rantwijk's reference implementation
(edge endpoints, least-slack edge bookkeeping for the δ₂/δ₃ steps). We maximise
``W - cost`` over maximum-cardinality matchings, which for a graph that has a perfect
matching is the minimum-cost perfect matching. Dual variables are stored doubled so that
integer weights keep every quantity integral.

Two additions for the pairer:

* a warm start: a matching made of edges of minimum cost (tight for the initial duals,
  where every vertex dual is equal) may be given; the search then begins from it, so only
  the few vertices it leaves uncovered have to be augmented;
* :func:`optimality_certificate_holds` re-checks the final primal–dual conditions (every
  edge has non-negative reduced cost, matched edges have zero reduced cost, every blossom
  with a positive dual is full), which is the LP-duality proof that the matching returned is
  a minimum-cost perfect matching. The test suite checks it on every solved instance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class NoPerfectMatching(ValueError):
    """The graph has no perfect matching."""


class _BlossomMatcher:
    """One run of the weighted blossom algorithm; read ``mate`` after :meth:`run`."""

    def __init__(self, vertex_count: int, edges: Sequence[tuple[int, int, int]]) -> None:
        n = vertex_count
        self.n = n
        self.edges = edges
        edge_count = len(edges)
        endpoint = [0] * (2 * edge_count)
        neighbours: list[list[int]] = [[] for _ in range(n)]
        for k, (u, v, _weight) in enumerate(edges):
            endpoint[2 * k] = u
            endpoint[2 * k + 1] = v
            # Each vertex lists the *remote* endpoints of its edges.
            neighbours[u].append(2 * k + 1)
            neighbours[v].append(2 * k)
        self.endpoint = endpoint
        self.neighbours = neighbours
        top_weight = max((weight for _u, _v, weight in edges), default=0)
        # mate[v]: remote endpoint of v's matched edge, or -1.
        self.mate = [-1] * n
        # Labels of top-level blossoms: 0 free, 1 S (outer), 2 T (inner); bit 4 marks a
        # breadcrumb while tracing paths back to their roots.
        self.label = [0] * (2 * n)
        self.label_end = [-1] * (2 * n)
        self.in_blossom = list(range(n))
        self.parent = [-1] * (2 * n)
        self.children: list[list[int] | None] = [None] * (2 * n)
        self.base = list(range(n)) + [-1] * n
        self.child_endpoints: list[list[int] | None] = [None] * (2 * n)
        self.best_edge = [-1] * (2 * n)
        self.blossom_best_edges: list[list[int] | None] = [None] * (2 * n)
        self.unused_blossoms = list(range(n, 2 * n))
        # Doubled vertex duals (2·u) and blossom duals (z).
        self.dual = [top_weight] * n + [0] * n
        self.allowed = [False] * edge_count
        self.queue: list[int] = []

    # -- helpers ---------------------------------------------------------------------------

    def slack(self, k: int) -> int:
        """Twice the reduced cost of edge ``k`` (ignoring blossom duals)."""
        u, v, weight = self.edges[k]
        return self.dual[u] + self.dual[v] - 2 * weight

    def leaves(self, b: int) -> list[int]:
        n = self.n
        if b < n:
            return [b]
        found = []
        stack = [b]
        children = self.children
        while stack:
            t = stack.pop()
            if t < n:
                found.append(t)
            else:
                stack.extend(children[t])
        return found

    def assign_label(self, w: int, kind: int, p: int) -> None:
        """Label the top-level blossom of ``w`` S (1) or T (2), reached through endpoint p."""
        while True:
            b = self.in_blossom[w]
            self.label[w] = self.label[b] = kind
            self.label_end[w] = self.label_end[b] = p
            self.best_edge[w] = self.best_edge[b] = -1
            if kind == 1:
                self.queue.extend(self.leaves(b))
                return
            # A T-blossom's base is matched; its mate becomes an S-vertex.
            mate_endpoint = self.mate[self.base[b]]
            w, kind, p = self.endpoint[mate_endpoint], 1, mate_endpoint ^ 1

    def trace_common_base(self, v: int, w: int) -> int:
        """Walk back from two S-vertices; return a new blossom's base vertex or -1."""
        label, label_end, in_blossom, endpoint = (
            self.label,
            self.label_end,
            self.in_blossom,
            self.endpoint,
        )
        path = []
        base = -1
        while v != -1 or w != -1:
            b = in_blossom[v]
            if label[b] & 4:
                base = self.base[b]
                break
            path.append(b)
            label[b] = 5
            if label_end[b] == -1:
                v = -1
            else:
                v = endpoint[label_end[b]]
                b = in_blossom[v]
                v = endpoint[label_end[b]]
            if w != -1:
                v, w = w, v
        for b in path:
            label[b] = 1
        return base

    # -- blossoms --------------------------------------------------------------------------

    def add_blossom(self, base_vertex: int, k: int) -> None:
        v, w, _weight = self.edges[k]
        in_blossom, label_end, endpoint = self.in_blossom, self.label_end, self.endpoint
        base_blossom = in_blossom[base_vertex]
        bv = in_blossom[v]
        bw = in_blossom[w]
        b = self.unused_blossoms.pop()
        self.base[b] = base_vertex
        self.parent[b] = -1
        self.parent[base_blossom] = b
        path: list[int] = []
        ends: list[int] = []
        while bv != base_blossom:
            self.parent[bv] = b
            path.append(bv)
            ends.append(label_end[bv])
            bv = in_blossom[endpoint[label_end[bv]]]
        path.append(base_blossom)
        path.reverse()
        ends.reverse()
        ends.append(2 * k)
        while bw != base_blossom:
            self.parent[bw] = b
            path.append(bw)
            ends.append(label_end[bw] ^ 1)
            bw = in_blossom[endpoint[label_end[bw]]]
        self.children[b] = path
        self.child_endpoints[b] = ends
        self.label[b] = 1
        label_end[b] = label_end[base_blossom]
        self.dual[b] = 0
        for x in self.leaves(b):
            if self.label[in_blossom[x]] == 2:
                # A T-vertex swallowed by an S-blossom becomes an S-vertex.
                self.queue.append(x)
            in_blossom[x] = b
        # Least-slack edges from the new blossom to each neighbouring S-blossom.
        best_to: dict[int, int] = {}
        edges, label, slack = self.edges, self.label, self.slack
        for sub in path:
            if self.blossom_best_edges[sub] is None:
                candidate_lists = [[p >> 1 for p in self.neighbours[x]] for x in self.leaves(sub)]
            else:
                candidate_lists = [self.blossom_best_edges[sub]]
            for candidates in candidate_lists:
                for kk in candidates:
                    i, j, _w = edges[kk]
                    if in_blossom[j] == b:
                        i, j = j, i
                    bj = in_blossom[j]
                    if bj != b and label[bj] == 1:
                        current = best_to.get(bj)
                        if current is None or slack(kk) < slack(current):
                            best_to[bj] = kk
            self.blossom_best_edges[sub] = None
            self.best_edge[sub] = -1
        best_list = list(best_to.values())
        self.blossom_best_edges[b] = best_list
        best = -1
        best_slack = 0
        for kk in best_list:
            s = slack(kk)
            if best == -1 or s < best_slack:
                best, best_slack = kk, s
        self.best_edge[b] = best

    def expand_blossom(self, b: int, end_of_stage: bool) -> None:
        n = self.n
        label, label_end, endpoint = self.label, self.label_end, self.endpoint
        children = self.children[b]
        for s in children:
            self.parent[s] = -1
            if s < n:
                self.in_blossom[s] = s
            elif end_of_stage and self.dual[s] == 0:
                self.expand_blossom(s, end_of_stage)
            else:
                for x in self.leaves(s):
                    self.in_blossom[x] = s
        if not end_of_stage and label[b] == 2:
            # The expanding T-blossom's sub-blossoms on the even path from the entry
            # child to the base get alternate T/S labels; the others become free unless a
            # neighbouring S-vertex already reached them.
            ends = self.child_endpoints[b]
            entry_child = self.in_blossom[endpoint[label_end[b] ^ 1]]
            j = children.index(entry_child)
            if j & 1:
                j -= len(children)
                step, trick = 1, 0
            else:
                step, trick = -1, 1
            p = label_end[b]
            while j != 0:
                label[endpoint[p ^ 1]] = 0
                label[endpoint[ends[j - trick] ^ trick ^ 1]] = 0
                self.assign_label(endpoint[p ^ 1], 2, p)
                self.allowed[ends[j - trick] >> 1] = True
                j += step
                p = ends[j - trick] ^ trick
                self.allowed[p >> 1] = True
                j += step
            bv = children[j]
            label[endpoint[p ^ 1]] = label[bv] = 2
            label_end[endpoint[p ^ 1]] = label_end[bv] = p
            self.best_edge[bv] = -1
            j += step
            while children[j] != entry_child:
                bv = children[j]
                if label[bv] == 1:
                    j += step
                    continue
                reached = -1
                for x in self.leaves(bv):
                    if label[x] != 0:
                        reached = x
                        break
                if reached != -1:
                    label[reached] = 0
                    label[endpoint[self.mate[self.base[bv]]]] = 0
                    self.assign_label(reached, 2, label_end[reached])
                j += step
        label[b] = label_end[b] = -1
        self.children[b] = self.child_endpoints[b] = None
        self.base[b] = -1
        self.blossom_best_edges[b] = None
        self.best_edge[b] = -1
        self.unused_blossoms.append(b)

    def augment_blossom(self, b: int, v: int) -> None:
        """Swap matched edges along the even path from ``v`` to the base of ``b``."""
        n = self.n
        endpoint, mate = self.endpoint, self.mate
        t = v
        while self.parent[t] != b:
            t = self.parent[t]
        if t >= n:
            self.augment_blossom(t, v)
        children = self.children[b]
        ends = self.child_endpoints[b]
        i = j = children.index(t)
        if i & 1:
            j -= len(children)
            step, trick = 1, 0
        else:
            step, trick = -1, 1
        while j != 0:
            j += step
            t = children[j]
            p = ends[j - trick] ^ trick
            if t >= n:
                self.augment_blossom(t, endpoint[p])
            j += step
            t = children[j]
            if t >= n:
                self.augment_blossom(t, endpoint[p ^ 1])
            mate[endpoint[p]] = p ^ 1
            mate[endpoint[p ^ 1]] = p
        self.children[b] = children[i:] + children[:i]
        self.child_endpoints[b] = ends[i:] + ends[:i]
        self.base[b] = self.base[self.children[b][0]]

    def augment_matching(self, k: int) -> None:
        v, w, _weight = self.edges[k]
        n = self.n
        endpoint, label_end, in_blossom, mate = (
            self.endpoint,
            self.label_end,
            self.in_blossom,
            self.mate,
        )
        for s, p in ((v, 2 * k + 1), (w, 2 * k)):
            while True:
                bs = in_blossom[s]
                if bs >= n:
                    self.augment_blossom(bs, s)
                mate[s] = p
                if label_end[bs] == -1:
                    break
                t = endpoint[label_end[bs]]
                bt = in_blossom[t]
                s = endpoint[label_end[bt]]
                j = endpoint[label_end[bt] ^ 1]
                if bt >= n:
                    self.augment_blossom(bt, j)
                mate[j] = label_end[bt]
                p = label_end[bt] ^ 1

    # -- main loop -------------------------------------------------------------------------

    def warm_start(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Pre-match the given pairs; each must be an edge of maximum weight (tight)."""
        index = {}
        for k, (u, v, _weight) in enumerate(self.edges):
            index[(u, v)] = k
            index[(v, u)] = k
        for u, v in pairs:
            k = index.get((u, v))
            if k is None or self.slack(k) != 0 or self.mate[u] != -1 or self.mate[v] != -1:
                continue
            a, _b, _w = self.edges[k]
            if a == u:
                self.mate[u], self.mate[v] = 2 * k + 1, 2 * k
            else:
                self.mate[u], self.mate[v] = 2 * k, 2 * k + 1

    def run(self) -> None:
        n = self.n
        edges = self.edges
        label, in_blossom, best_edge, parent = (
            self.label,
            self.in_blossom,
            self.best_edge,
            self.parent,
        )
        endpoint, neighbours, allowed, queue, dual = (
            self.endpoint,
            self.neighbours,
            self.allowed,
            self.queue,
            self.dual,
        )
        slack = self.slack
        while True:  # stages: each augments the matching by one edge, or ends the search
            label[:] = [0] * (2 * n)
            best_edge[:] = [-1] * (2 * n)
            self.blossom_best_edges[n:] = [None] * n
            allowed[:] = [False] * len(edges)
            queue.clear()
            for v in range(n):
                if self.mate[v] == -1 and label[in_blossom[v]] == 0:
                    self.assign_label(v, 1, -1)
            augmented = False
            while True:  # substages: grow the forest, then adjust duals
                while queue and not augmented:
                    v = queue.pop()
                    for p in neighbours[v]:
                        k = p >> 1
                        w = endpoint[p]
                        if in_blossom[v] == in_blossom[w]:
                            continue
                        k_slack = 0
                        if not allowed[k]:
                            k_slack = slack(k)
                            if k_slack <= 0:
                                allowed[k] = True
                        if allowed[k]:
                            w_label = label[in_blossom[w]]
                            if w_label == 0:
                                self.assign_label(w, 2, p ^ 1)
                            elif w_label == 1:
                                base = self.trace_common_base(v, w)
                                if base >= 0:
                                    self.add_blossom(base, k)
                                else:
                                    self.augment_matching(k)
                                    augmented = True
                                    break
                            elif label[w] == 0:
                                label[w] = 2
                                self.label_end[w] = p ^ 1
                        elif label[in_blossom[w]] == 1:
                            b = in_blossom[v]
                            if best_edge[b] == -1 or k_slack < slack(best_edge[b]):
                                best_edge[b] = k
                        elif label[w] == 0 and (
                            best_edge[w] == -1 or k_slack < slack(best_edge[w])
                        ):
                            best_edge[w] = k
                if augmented:
                    break
                delta_type = -1
                delta = 0
                delta_edge = -1
                delta_blossom = -1
                for v in range(n):
                    if label[in_blossom[v]] == 0 and best_edge[v] != -1:
                        d = slack(best_edge[v])
                        if delta_type == -1 or d < delta:
                            delta, delta_type, delta_edge = d, 2, best_edge[v]
                for b in range(2 * n):
                    if parent[b] == -1 and label[b] == 1 and best_edge[b] != -1:
                        d = slack(best_edge[b]) // 2
                        if delta_type == -1 or d < delta:
                            delta, delta_type, delta_edge = d, 3, best_edge[b]
                for b in range(n, 2 * n):
                    if (
                        self.base[b] >= 0
                        and parent[b] == -1
                        and label[b] == 2
                        and (delta_type == -1 or dual[b] < delta)
                    ):
                        delta, delta_type, delta_blossom = dual[b], 4, b
                if delta_type == -1:
                    break  # no augmenting path exists: the matching has maximum cardinality
                for v in range(n):
                    v_label = label[in_blossom[v]]
                    if v_label == 1:
                        dual[v] -= delta
                    elif v_label == 2:
                        dual[v] += delta
                for b in range(n, 2 * n):
                    if self.base[b] >= 0 and parent[b] == -1:
                        if label[b] == 1:
                            dual[b] += delta
                        elif label[b] == 2:
                            dual[b] -= delta
                if delta_type == 2:
                    allowed[delta_edge] = True
                    i, j, _w = edges[delta_edge]
                    if label[in_blossom[i]] == 0:
                        i = j
                    queue.append(i)
                elif delta_type == 3:
                    allowed[delta_edge] = True
                    queue.append(edges[delta_edge][0])
                else:
                    self.expand_blossom(delta_blossom, False)
            if not augmented:
                return
            for b in range(n, 2 * n):
                if parent[b] == -1 and self.base[b] >= 0 and label[b] == 1 and dual[b] == 0:
                    self.expand_blossom(b, True)

    def partner_list(self) -> list[int]:
        return [self.endpoint[p] if p >= 0 else -1 for p in self.mate]

    def certificate_holds(self) -> bool:
        """Check the LP optimality conditions for a perfect matching (see module doc)."""
        n = self.n
        mate = self.mate
        if any(p < 0 for p in mate):
            return False
        for b in range(n, 2 * n):
            if self.base[b] >= 0 and self.dual[b] < 0:
                return False

        def ancestry(x: int) -> list[int]:
            chain = [x]
            while self.parent[chain[-1]] != -1:
                chain.append(self.parent[chain[-1]])
            chain.reverse()
            return chain

        for k, (u, v, weight) in enumerate(self.edges):
            reduced = self.dual[u] + self.dual[v] - 2 * weight
            for bu, bv in zip(ancestry(u), ancestry(v), strict=False):
                if bu != bv:
                    break
                reduced += 2 * self.dual[bu]
            if reduced < 0:
                return False
            if (mate[u] >> 1 == k) != (mate[v] >> 1 == k):
                return False
            if mate[u] >> 1 == k and reduced != 0:
                return False
        for b in range(n, 2 * n):
            if self.base[b] >= 0 and self.dual[b] > 0:
                ends = self.child_endpoints[b]
                if len(ends) % 2 == 0:
                    return False
                for p in ends[1::2]:
                    if mate[self.endpoint[p]] != p ^ 1 or mate[self.endpoint[p ^ 1]] != p:
                        return False
        return True


def min_cost_perfect_matching(
    vertex_count: int,
    edges: Sequence[tuple[int, int, int]],
    *,
    warm_start: Iterable[tuple[int, int]] = (),
    check_certificate: bool = False,
) -> list[int]:
    """Return ``mate`` (``mate[v]`` is v's partner) of a minimum-cost perfect matching.

    ``edges`` are ``(u, v, cost)`` with integer costs, at most one edge per vertex pair.
    ``warm_start`` pairs are used only if they are edges of the minimum edge cost. Raises
    :class:`NoPerfectMatching` if the graph has none. With ``check_certificate`` the dual
    optimality conditions are re-checked and an ``AssertionError`` raised if they fail.
    """
    if vertex_count == 0:
        return []
    if vertex_count % 2:
        raise NoPerfectMatching("an odd number of vertices has no perfect matching")
    top_cost = max((cost for _u, _v, cost in edges), default=0)
    weighted = [(u, v, top_cost - cost) for u, v, cost in edges]
    matcher = _BlossomMatcher(vertex_count, weighted)
    matcher.warm_start(warm_start)
    matcher.run()
    mate = matcher.partner_list()
    if any(partner < 0 for partner in mate):
        raise NoPerfectMatching("the graph has no perfect matching")
    if check_certificate and not matcher.certificate_holds():
        raise AssertionError("blossom matching failed its optimality certificate")
    return mate


def optimality_certificate_holds(
    vertex_count: int,
    edges: Sequence[tuple[int, int, int]],
    *,
    warm_start: Iterable[tuple[int, int]] = (),
) -> bool:
    """Solve and re-check the primal–dual optimality conditions (used by the tests)."""
    top_cost = max((cost for _u, _v, cost in edges), default=0)
    matcher = _BlossomMatcher(vertex_count, [(u, v, top_cost - cost) for u, v, cost in edges])
    matcher.warm_start(warm_start)
    matcher.run()
    return matcher.certificate_holds()
