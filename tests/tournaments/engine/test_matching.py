"""The blossom minimum-cost perfect matching against exhaustive search."""

import random

import pytest

from tournaments.engine.matching import (
    NoPerfectMatching,
    min_cost_perfect_matching,
    optimality_certificate_holds,
)


def brute_force_minimum(vertex_count, edges):
    cost = {}
    for u, v, c in edges:
        cost[(u, v)] = cost[(v, u)] = c
    best = None

    def search(remaining, total):
        nonlocal best
        if not remaining:
            best = total if best is None else min(best, total)
            return
        first = remaining[0]
        for k in range(1, len(remaining)):
            other = remaining[k]
            if (first, other) in cost:
                search(remaining[1:k] + remaining[k + 1 :], total + cost[(first, other)])

    search(list(range(vertex_count)), 0)
    return best


def random_graph(rng, vertex_count):
    density = rng.choice([0.3, 0.6, 1.0])
    edges = []
    for u in range(vertex_count):
        for v in range(u + 1, vertex_count):
            if rng.random() < density:
                edges.append((u, v, rng.choice([0, 0, 1, 2, 3, 7, 10, 50, rng.randint(0, 99)])))
    return edges


@pytest.mark.parametrize("seed", range(40))
def test_min_cost_perfect_matching_equals_exhaustive_search(seed):
    rng = random.Random(seed)
    for _ in range(10):
        vertex_count = rng.choice([2, 4, 6, 8, 10])
        edges = random_graph(rng, vertex_count)
        expected = brute_force_minimum(vertex_count, edges)
        lowest = min((c for _u, _v, c in edges), default=0)
        warm = [(u, v) for u, v, c in edges if c == lowest] if seed % 2 else []
        rng.shuffle(warm)
        if expected is None:
            with pytest.raises(NoPerfectMatching):
                min_cost_perfect_matching(vertex_count, edges, warm_start=warm)
            continue
        mate = min_cost_perfect_matching(
            vertex_count, edges, warm_start=warm, check_certificate=True
        )
        cost = {(u, v): c for u, v, c in edges} | {(v, u): c for u, v, c in edges}
        assert all(mate[mate[v]] == v for v in range(vertex_count))
        assert sum(cost[(v, mate[v])] for v in range(vertex_count) if v < mate[v]) == expected
        assert optimality_certificate_holds(vertex_count, edges, warm_start=warm)


def test_min_cost_perfect_matching_prefers_two_cheap_edges_over_a_greedy_one():
    # Greedy would take 1-2 (cost 0) and be left with 0-3 (cost 100).
    edges = [(0, 1, 1), (1, 2, 0), (2, 3, 1), (0, 3, 100)]
    assert min_cost_perfect_matching(4, edges) == [1, 0, 3, 2]


def test_min_cost_perfect_matching_needs_a_blossom():
    # Odd cycle 0-1-2 of cheap edges plus pendant 3 (reachable only through 2).
    edges = [(0, 1, 0), (1, 2, 0), (0, 2, 0), (2, 3, 5), (0, 4, 9), (4, 5, 0), (3, 5, 0)]
    mate = min_cost_perfect_matching(6, edges, check_certificate=True)
    cost = {(u, v): c for u, v, c in edges} | {(v, u): c for u, v, c in edges}
    assert sum(cost[(v, mate[v])] for v in range(6) if v < mate[v]) == 5


def test_min_cost_perfect_matching_rejects_graph_without_perfect_matching():
    with pytest.raises(NoPerfectMatching):
        min_cost_perfect_matching(4, [(0, 1, 0), (0, 2, 0), (0, 3, 0)])
    with pytest.raises(NoPerfectMatching):
        min_cost_perfect_matching(3, [(0, 1, 0), (1, 2, 0)])


def test_min_cost_perfect_matching_empty_graph():
    assert min_cost_perfect_matching(0, []) == []


def test_min_cost_perfect_matching_ignores_unusable_warm_start_pairs():
    edges = [(0, 1, 5), (2, 3, 5), (0, 2, 0), (1, 3, 0)]
    # (0, 1) is not of minimum cost and (0, 3) is not an edge: both must be ignored.
    mate = min_cost_perfect_matching(4, edges, warm_start=[(0, 1), (0, 3)])
    assert mate == [2, 3, 0, 1]
