"""Swiss pairing: the rules, and optimality against an exhaustive search."""

import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.engine.errors import PairingError
from tournaments.engine.swiss import (
    PairingObjective,
    PastMatch,
    SwissPlayer,
    SwissResult,
    pair_round,
    swiss_players_from_history,
)

# -- an independent scorer and an exhaustive search --------------------------------------


def score(players, pairs, bye):
    """The objective of the module docstring, computed from scratch."""
    by_id = {p.id: p for p in players}
    levels = sorted({p.match_points for p in players}, reverse=True)
    level = {points: k for k, points in enumerate(levels)}
    eligible = [p for p in players if not p.had_bye] or list(players)
    eligible_levels = {level[p.match_points] for p in eligible}
    rematches = floats = gaps = 0
    for a, b in pairs:
        pa, pb = by_id[a], by_id[b]
        rematches += b in pa.opponents
        floats += abs(level[pa.match_points] - level[pb.match_points])
        gaps += abs(pa.match_points - pb.match_points)
    if bye is None:
        second = skipped = 0
    else:
        second = int(by_id[bye].had_bye)
        own = level[by_id[bye].match_points]
        skipped = sum(1 for lv in eligible_levels if lv > own)
    return (rematches, second, skipped, floats, gaps)


def brute_force_best(players):
    """Minimum objective over every pairing (and every bye) of a small pool."""
    by_id = {p.id: p for p in players}
    levels = sorted({p.match_points for p in players}, reverse=True)
    level = {points: k for k, points in enumerate(levels)}
    pair_cost = {}
    ids = [p.id for p in players]
    for a in ids:
        for b in ids:
            pa, pb = by_id[a], by_id[b]
            pair_cost[(a, b)] = (
                int(b in pa.opponents),
                abs(level[pa.match_points] - level[pb.match_points]),
                abs(pa.match_points - pb.match_points),
            )
    best = None

    def search(remaining, rematches, floats, gaps):
        nonlocal best
        if not remaining:
            found = (rematches, floats, gaps)
            best = found if best is None or found < best else best
            return
        first = remaining[0]
        for k in range(1, len(remaining)):
            r, f, g = pair_cost[(first, remaining[k])]
            search(remaining[1:k] + remaining[k + 1 :], rematches + r, floats + f, gaps + g)

    if len(ids) % 2 == 0:
        search(ids, 0, 0, 0)
        return (best[0], 0, 0, best[1], best[2])
    overall = None
    for bye in ids:
        best = None
        search([x for x in ids if x != bye], 0, 0, 0)
        _r, second, skipped, _f, _g = score(players, [], bye)
        candidate = (best[0], second, skipped, best[1], best[2])
        overall = candidate if overall is None or candidate < overall else overall
    return overall


def as_tuple(objective: PairingObjective):
    return (
        objective.rematches,
        objective.second_byes,
        objective.bye_groups_skipped,
        objective.floats,
        objective.score_gap_sum,
    )


def check_pairing_shape(players, result):
    ids = [p.id for p in players]
    seen = [t.player1 for t in result.tables] + [t.player2 for t in result.tables]
    if result.bye is not None:
        seen.append(result.bye)
    assert sorted(seen, key=repr) == sorted(ids, key=repr)
    assert (result.bye is None) == (len(ids) % 2 == 0)
    assert [t.number for t in result.tables] == list(range(1, len(result.tables) + 1))
    pairs = [(t.player1, t.player2) for t in result.tables]
    assert as_tuple(result.objective) == score(players, pairs, result.bye)
    assert result.objective >= result.lower_bound
    if result.proof == "counting-bound":
        assert result.objective == result.lower_bound


# -- event builders --------------------------------------------------------------------------

OUTCOMES = [SwissResult.PLAYER1] * 9 + [SwissResult.PLAYER2] * 9 + [SwissResult.DRAW] * 2


def simulate(rng, players, rounds, *, drop_rate=0.0, late_entries=0, engine_history=True):
    """Pool for the next round after ``rounds`` rounds (history paired by the engine, or
    by random shuffles that may repeat opponents)."""
    active = list(range(1, players + 1))
    history = []
    next_id = players + 1
    for rnd in range(1, rounds + 1):
        pool = swiss_players_from_history(active, history)
        if engine_history:
            result = pair_round(pool, round_number=rnd, seed=rng.randrange(10**6))
            pairs = [(t.player1, t.player2) for t in result.tables]
            bye = result.bye
        else:
            order = [p.id for p in pool]
            rng.shuffle(order)
            bye = order.pop() if len(order) % 2 else None
            pairs = list(zip(order[::2], order[1::2], strict=True))
        for a, b in pairs:
            history.append(PastMatch(rnd, a, b, rng.choice(OUTCOMES)))
        if bye is not None:
            history.append(PastMatch(rnd, bye, None, SwissResult.BYE))
        active = [p for p in active if rng.random() >= drop_rate]
        for _ in range(late_entries if rnd == rounds // 2 else 0):
            active.append(next_id)
            next_id += 1
    return swiss_players_from_history(active, history)


LATE_ROUND_CASES = [
    # (players, completed rounds, drop rate, late entries, history by engine)
    (8, 6, 0.0, 0, True),
    (10, 6, 0.0, 0, True),
    (9, 6, 0.0, 0, True),
    (11, 6, 0.0, 0, True),
    (10, 6, 0.1, 0, True),
    (8, 6, 0.0, 2, True),
    (10, 5, 0.05, 1, True),
    (8, 7, 0.0, 0, True),
    (10, 6, 0.0, 0, False),
    (9, 6, 0.1, 1, False),
]


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize(
    ("players", "rounds", "drop_rate", "late", "engine_history"), LATE_ROUND_CASES
)
def test_pair_round_late_rounds_match_exhaustive_search(
    seed, players, rounds, drop_rate, late, engine_history
):
    rng = random.Random(f"{seed}-{players}-{rounds}-{drop_rate}-{late}-{engine_history}")
    pool = simulate(
        rng, players, rounds, drop_rate=drop_rate, late_entries=late, engine_history=engine_history
    )
    if len(pool) > 11:
        pool = pool[:11]
    result = pair_round(pool, round_number=rounds + 1, seed=seed)
    check_pairing_shape(pool, result)
    assert as_tuple(result.objective) == brute_force_best(pool)


@st.composite
def adversarial_pools(draw):
    size = draw(st.integers(min_value=2, max_value=10))
    ids = list(range(size))
    points = draw(
        st.lists(st.sampled_from([0, 1, 3, 4, 6, 7, 9, 12]), min_size=size, max_size=size)
    )
    byes = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    met = {i: set() for i in ids}
    for a in ids:
        for b in ids[a + 1 :]:
            if draw(st.integers(0, 9)) < 6:
                met[a].add(b)
                met[b].add(a)
    return [SwissPlayer(i, points[i], frozenset(met[i]), byes[i]) for i in ids]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pool=adversarial_pools(), seed=st.integers(0, 1000))
def test_pair_round_dense_conflicts_match_exhaustive_search(pool, seed):
    result = pair_round(pool, round_number=7, seed=seed)
    check_pairing_shape(pool, result)
    assert as_tuple(result.objective) == brute_force_best(pool)


# -- the rules, one by one -------------------------------------------------------------------


def test_pair_round_first_round_is_seeded_and_reproducible():
    pool = [SwissPlayer(i, 0) for i in range(1, 33)]
    first = pair_round(pool, round_number=1, seed=2026)
    again = pair_round(list(reversed(pool)), round_number=1, seed=2026)
    other = pair_round(pool, round_number=1, seed=2027)
    assert first.tables == again.tables
    assert first.tables != other.tables
    assert first.objective == PairingObjective(0, 0, 0, 0, 0)
    check_pairing_shape(pool, first)


def test_pair_round_first_round_is_random_not_in_list_order():
    pool = [SwissPlayer(i, 0) for i in range(1, 65)]
    result = pair_round(pool, round_number=1, seed=7)
    in_order = sum(1 for t in result.tables if abs(t.player1 - t.player2) == 1)
    assert in_order < 10


def test_pair_round_odd_first_round_gives_one_bye():
    pool = [SwissPlayer(i, 0) for i in range(1, 8)]
    result = pair_round(pool, round_number=1, seed=3)
    assert result.bye is not None
    assert len(result.tables) == 3


def test_pair_round_pairs_equal_points_together():
    pool = [SwissPlayer(i, 6 if i <= 4 else 3 if i <= 8 else 0) for i in range(1, 13)]
    result = pair_round(pool, round_number=3, seed=1)
    points = {p.id: p.match_points for p in pool}
    assert all(points[t.player1] == points[t.player2] for t in result.tables)
    assert result.objective.floats == 0


def test_pair_round_floats_one_player_from_an_odd_group():
    pool = [SwissPlayer(i, 6 if i <= 3 else 3) for i in range(1, 9)]
    result = pair_round(pool, round_number=3, seed=1)
    assert result.objective == PairingObjective(0, 0, 0, 1, 3)


def test_pair_round_avoids_a_rematch_a_greedy_pairer_makes():
    # Top-down greedy pairs A-B, then C and D (who met) are stuck. Optimal: A-C, B-D.
    pool = [
        SwissPlayer("A", 9, frozenset({"D"})),
        SwissPlayer("B", 9, frozenset()),
        SwissPlayer("C", 9, frozenset({"D"})),
        SwissPlayer("D", 9, frozenset({"A", "C"})),
    ]
    for seed in range(20):
        result = pair_round(pool, round_number=4, seed=seed)
        assert result.objective.rematches == 0
        assert {frozenset((t.player1, t.player2)) for t in result.tables} == {
            frozenset(("B", "D")),
            frozenset(("A", "C")),
        }


def test_pair_round_never_rematches_when_avoidable_even_at_a_float_cost():
    # The two 9-point players met; each must float rather than meet again.
    pool = [
        SwissPlayer("A", 9, frozenset({"B"})),
        SwissPlayer("B", 9, frozenset({"A"})),
        SwissPlayer("C", 6),
        SwissPlayer("D", 6),
    ]
    result = pair_round(pool, round_number=4, seed=0)
    assert result.objective == PairingObjective(0, 0, 0, 2, 6)


def test_pair_round_rematch_only_when_unavoidable():
    pool = [SwissPlayer("A", 3, frozenset({"B"})), SwissPlayer("B", 0, frozenset({"A"}))]
    result = pair_round(pool, round_number=2, seed=0)
    assert result.objective.rematches == 1
    assert result.proof == "blossom"


def test_pair_round_bye_goes_to_lowest_group_without_a_bye():
    pool = [
        SwissPlayer("A", 9),
        SwissPlayer("B", 6),
        SwissPlayer("C", 6),
        SwissPlayer("D", 3),
        SwissPlayer("E", 3),
        SwissPlayer("F", 0, had_bye=True),
        SwissPlayer("G", 3, had_bye=True),
    ]
    for seed in range(10):
        result = pair_round(pool, round_number=4, seed=seed)
        assert result.bye in {"D", "E"}
        assert result.objective.second_byes == 0
        assert result.objective.bye_groups_skipped == 0


def test_pair_round_nobody_gets_a_second_bye():
    pool = [
        SwissPlayer("A", 6),
        SwissPlayer("B", 3, had_bye=True),
        SwissPlayer("C", 3, had_bye=True),
    ]
    result = pair_round(pool, round_number=3, seed=0)
    assert result.bye == "A"
    assert result.objective == PairingObjective(0, 0, 0, 0, 0)


def test_pair_round_second_bye_only_if_everyone_had_one():
    pool = [SwissPlayer(x, 3, had_bye=True) for x in "ABC"]
    result = pair_round(pool, round_number=2, seed=0)
    assert result.objective.second_byes == 1
    assert result.lower_bound.second_byes == 1
    assert result.proof == "counting-bound"


def test_pair_round_bye_moves_up_a_group_to_avoid_a_rematch():
    # Rematches weigh more than the bye rule: B and C both met A.
    pool = [
        SwissPlayer("A", 3, frozenset({"B", "C"})),
        SwissPlayer("B", 0, frozenset({"A"})),
        SwissPlayer("C", 0, frozenset({"A"})),
    ]
    result = pair_round(pool, round_number=2, seed=0)
    assert result.bye == "A"
    assert result.objective == PairingObjective(0, 0, 1, 0, 0)


def test_pair_round_bye_choice_avoids_a_rematch_inside_the_lowest_group():
    pool = [
        SwissPlayer("A", 3, frozenset({"B"})),
        SwissPlayer("B", 0, frozenset({"A"})),
        SwissPlayer("C", 0),
    ]
    result = pair_round(pool, round_number=2, seed=0)
    assert result.bye == "B"
    assert result.objective == PairingObjective(0, 0, 0, 1, 3)


def test_pair_round_tables_run_from_the_top():
    points = [0, 3, 3, 6, 6, 9, 9, 12, 12, 15, 15, 0]
    pool = [SwissPlayer(i, pts) for i, pts in enumerate(points)]
    result = pair_round(pool, round_number=6, seed=0)
    by_id = {p.id: p.match_points for p in pool}
    table_points = [(by_id[t.player1], by_id[t.player2]) for t in result.tables]
    assert table_points == sorted(table_points, reverse=True)
    assert table_points[0] == (15, 15)
    assert all(a >= b for a, b in table_points)


def test_swiss_players_from_history_scores_win_draw_loss_bye():
    history = [
        PastMatch(1, "A", "B", SwissResult.PLAYER1),
        PastMatch(1, "C", "D", SwissResult.DRAW),
        PastMatch(1, "E", None, SwissResult.BYE),
        PastMatch(2, "A", "C", SwissResult.PLAYER2),
    ]
    pool = {p.id: p for p in swiss_players_from_history("ABCDE", history)}
    assert {pid: p.match_points for pid, p in pool.items()} == {
        "A": 3,
        "B": 0,
        "C": 4,
        "D": 1,
        "E": 3,
    }
    assert pool["E"].had_bye
    assert not pool["A"].had_bye
    assert pool["A"].opponents == {"B", "C"}
    assert pool["E"].opponents == frozenset()


def test_swiss_players_from_history_drops_leave_the_pool_but_count_for_opponents():
    history = [
        PastMatch(1, "A", "B", SwissResult.PLAYER1),
        PastMatch(1, "C", "D", SwissResult.PLAYER2),
    ]
    pool = swiss_players_from_history(["A", "C", "D"], history)  # B dropped
    assert [p.id for p in pool] == ["A", "C", "D"]
    result = pair_round(pool, round_number=2, seed=0)
    assert "B" not in {t.player1 for t in result.tables} | {t.player2 for t in result.tables}
    assert result.bye == "C"  # the only player on 0 points


def test_swiss_players_from_history_late_entry_joins_on_zero():
    history = [
        PastMatch(1, "A", "B", SwissResult.PLAYER1),
        PastMatch(1, "C", "D", SwissResult.PLAYER1),
    ]
    pool = swiss_players_from_history(["A", "B", "C", "D", "LATE1", "LATE2"], history)
    late = {p.id: p for p in pool}["LATE1"]
    assert late.match_points == 0
    assert late.opponents == frozenset()
    assert not late.had_bye
    result = pair_round(pool, round_number=2, seed=0)
    check_pairing_shape(pool, result)
    assert result.objective.rematches == 0
    assert result.objective.floats == 0


def test_swiss_players_from_history_custom_scoring():
    history = [PastMatch(1, "A", "B", SwissResult.DRAW)]
    pool = swiss_players_from_history("AB", history, scoring={"draw": 2})
    assert [p.match_points for p in pool] == [2, 2]


def test_swiss_players_from_history_rejects_bye_with_an_opponent():
    with pytest.raises(PairingError) as caught:
        swiss_players_from_history("AB", [PastMatch(1, "A", "B", SwissResult.BYE)])
    assert caught.value.code == "bye_with_opponent"


def test_pair_round_empty_and_single_player_pools():
    assert pair_round([], round_number=1).tables == ()
    alone = pair_round([SwissPlayer("A", 0)], round_number=1)
    assert alone.tables == ()
    assert alone.bye == "A"


def test_pair_round_rejects_duplicate_players():
    with pytest.raises(PairingError) as caught:
        pair_round([SwissPlayer("A", 0), SwissPlayer("A", 3)], round_number=2)
    assert caught.value.code == "duplicate_player"


@pytest.mark.parametrize("points", [-3, 1.5, "3"])
def test_pair_round_rejects_bad_points(points):
    with pytest.raises(PairingError) as caught:
        pair_round([SwissPlayer("A", points), SwissPlayer("B", 0)], round_number=2)
    assert caught.value.code == "invalid_points"


def test_pair_round_rejects_self_as_opponent():
    with pytest.raises(PairingError) as caught:
        pair_round([SwissPlayer("A", 0, frozenset({"A"})), SwissPlayer("B", 0)], round_number=2)
    assert caught.value.code == "self_opponent"


def test_pair_round_large_event_is_proved_by_the_counting_bound():
    rng = random.Random(11)
    pool = simulate(rng, 600, 5)
    result = pair_round(pool, round_number=6, seed=1)
    check_pairing_shape(pool, result)
    assert result.objective.rematches == 0
    assert result.proof == "counting-bound"


def test_pair_round_exact_solver_on_a_mid_size_late_event():
    # 60 players after 9 rounds: groups are small, the exact solver is needed and its
    # result must not be worse than the fast construction or above the bound rules.
    rng = random.Random(5)
    pool = simulate(rng, 60, 9, drop_rate=0.03, late_entries=2)
    result = pair_round(pool, round_number=10, seed=2)
    check_pairing_shape(pool, result)
    assert result.objective.rematches == 0
    assert result.objective.bye_groups_skipped == 0


def test_engine_modules_do_not_import_django():
    code = (
        "import sys\n"
        "import tournaments.engine.swiss, tournaments.engine.games, "
        "tournaments.engine.standings, tournaments.engine.bracket, "
        "tournaments.engine.eventfile, tournaments.engine.matching\n"
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules), "
        "sorted(m for m in sys.modules if m.startswith('django'))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the reduced exact solver against an unreduced blossom on the whole graph ---------------


def pool_with_big_groups(rng):
    """Big groups that the solver may cut down, small fully-met groups that defeat the
    counting bound, random earlier rounds and byes."""
    sizes = [
        rng.choice([1, 2, 3]),
        rng.randint(30, 60),
        rng.choice([2, 3, 4]),
        rng.randint(30, 60),
        rng.choice([1, 2, 3]),
        rng.randint(20, 40),
    ]
    points = [12, 9, 7, 6, 4, 3]
    groups, next_id = [], 0
    for size in sizes:
        groups.append(list(range(next_id, next_id + size)))
        next_id += size
    ids = list(range(next_id))
    met = {i: set() for i in ids}
    for _ in range(rng.randint(1, 3)):
        order = ids[:]
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=False):
            met[a].add(b)
            met[b].add(a)
    for group in groups:
        if len(group) <= 4:
            for a in group:
                met[a].update(b for b in group if b != a)
    level_points = {i: points[k] for k, group in enumerate(groups) for i in group}
    return [SwissPlayer(i, level_points[i], frozenset(met[i]), rng.random() < 0.3) for i in ids]


def full_graph_optimum(pool):
    """Minimum objective by one blossom run over every pair (no reduction, no pruning)."""
    from tournaments.engine.matching import min_cost_perfect_matching

    levels = sorted({p.match_points for p in pool}, reverse=True)
    level = {points: k for k, points in enumerate(levels)}
    eligible = [p for p in pool if not p.had_bye] or pool
    eligible_levels = {level[p.match_points] for p in eligible}
    size = len(pool)
    odd = size % 2
    w = 10**6
    edges = []
    for i in range(size):
        for j in range(i + 1, size):
            a, b = pool[i], pool[j]
            rematch = int(b.id in a.opponents)
            floats = abs(level[a.match_points] - level[b.match_points])
            gap = abs(a.match_points - b.match_points)
            edges.append((i, j, rematch * w**4 + floats * w + gap))
    if odd:
        for i, a in enumerate(pool):
            skipped = sum(1 for lv in eligible_levels if lv > level[a.match_points])
            edges.append((size, i, int(a.had_bye) * w**3 + skipped * w**2))
    mate = min_cost_perfect_matching(size + odd, edges)
    total = sum(cost for i, j, cost in edges if mate[i] == j)
    return (total // w**4, total // w**3 % w, total // w**2 % w, total // w % w, total % w)


@pytest.mark.parametrize("seed", range(12))
def test_pair_round_reduced_solver_matches_full_blossom(seed):
    rng = random.Random(seed)
    pool = pool_with_big_groups(rng)
    result = pair_round(pool, round_number=4, seed=seed)
    check_pairing_shape(pool, result)
    assert as_tuple(result.objective) == full_graph_optimum(pool)


def test_pair_round_reduced_solver_really_reduces():
    sizes = []
    for seed in range(12):
        pool = pool_with_big_groups(random.Random(seed))
        result = pair_round(pool, round_number=4, seed=seed)
        if result.proof == "blossom":
            sizes.append((result.solver_vertices, len(pool)))
    assert len(sizes) >= 6
    assert sum(vertices for vertices, _ in sizes) < 0.7 * sum(players for _, players in sizes)


@pytest.mark.parametrize("seed", range(6))
def test_exact_solver_without_pruning_matches_full_blossom(seed):
    # White-box: hand the exact solver a fast pairing that contains a rematch, so that
    # nothing may be pruned and only the group-size reduction applies.
    from tournaments.engine import swiss

    rng = random.Random(100 + seed)
    pool = pool_with_big_groups(rng)
    internal = swiss._Pool(sorted(pool, key=lambda p: repr(p.id)), random.Random(seed))
    pairs, bye = swiss._construct(internal)
    a, b = pairs[0]
    met = next(iter(internal.opponents[a]))
    k = next(t for t, pair in enumerate(pairs) if met in pair)
    other = pairs[k][1] if pairs[k][0] == met else pairs[k][0]
    pairs[0], pairs[k] = (a, met), (b, other)
    assert internal.objective(pairs, bye).rematches >= 1
    solved_pairs, solved_bye, vertices = swiss._solve_exactly(internal, pairs, bye)
    objective = internal.objective(solved_pairs, solved_bye)
    assert as_tuple(objective) == full_graph_optimum(pool)
    assert vertices < len(pool)


def test_pair_round_counts_a_meeting_recorded_on_one_side_only():
    pool = [
        SwissPlayer("A", 3, frozenset({"B"})),
        SwissPlayer("B", 3),  # forgot A
        SwissPlayer("C", 3),
        SwissPlayer("D", 3),
    ]
    for seed in range(10):
        result = pair_round(pool, round_number=2, seed=seed)
        assert result.objective.rematches == 0
        assert {"A", "B"} not in [{t.player1, t.player2} for t in result.tables]
