"""Why this opponent: the pairer's objective terms laid out per table, boundary and bye
(tournaments.engine.explain; the objective is swiss.py's module docstring)."""

import random
import subprocess
import sys

import pytest

from tournaments.engine.errors import PairingError
from tournaments.engine.explain import ByeReason, TableReason, explain_round
from tournaments.engine.swiss import (
    PairingObjective,
    PastMatch,
    SwissPlayer,
    SwissResult,
    evaluate_pairing,
    pair_round,
    swiss_players_from_history,
)


def player(pid, points, opponents=(), had_bye=False):
    return SwissPlayer(pid, points, frozenset(opponents), had_bye)


def test_explain_round_pairs_inside_groups_are_same_group_and_optimal():
    players = [player("a", 3), player("b", 3), player("c", 0), player("d", 0)]
    why = explain_round(players, [(1, "a", "b"), (2, "c", "d")])
    assert [t.reason for t in why.tables] == [TableReason.SAME_GROUP, TableReason.SAME_GROUP]
    assert [(g.points, g.size) for g in why.groups] == [(3, 2), (0, 2)]
    assert [(b.players_above, b.minimum, b.crossings) for b in why.boundaries] == [(2, 0, 0)]
    assert why.objective == PairingObjective(0, 0, 0, 0, 0)
    assert why.optimal
    assert why.score_gap_over_optimum == 0
    assert why.tables[0].paired_down is None
    assert why.tables[0].paired_up is None
    assert why.bye is None


def test_explain_round_odd_group_floats_one_player_down():
    # Three players on 3 points: one of them must meet a 0-point player (the bound).
    players = [
        player("a", 3),
        player("b", 3),
        player("c", 3),
        player("d", 0),
        player("e", 0),
        player("f", 0),
    ]
    why = explain_round(players, [(1, "a", "b"), (2, "c", "d"), (3, "e", "f")])
    float_table = why.tables[1]
    assert float_table.reason is TableReason.ODD_GROUP
    assert (float_table.paired_down, float_table.paired_up) == ("c", "d")
    assert (float_table.groups_crossed, float_table.point_gap) == (1, 3)
    assert [(b.players_above, b.minimum, b.crossings, b.extra) for b in why.boundaries] == [
        (3, 1, 1, 0)
    ]
    assert why.objective == why.lower_bound == why.optimum == PairingObjective(0, 0, 0, 1, 3)


def test_explain_round_floats_beyond_the_bound_avoid_a_rematch():
    # a and b met, c and d met: pairing in the groups would repeat both matches.
    players = [player("a", 3, "b"), player("b", 3, "a"), player("c", 0, "d"), player("d", 0, "c")]
    why = explain_round(players, [(1, "a", "c"), (2, "b", "d")])
    assert [t.reason for t in why.tables] == [TableReason.AVOIDS_REMATCH] * 2
    assert [(b.minimum, b.crossings, b.extra) for b in why.boundaries] == [(0, 2, 2)]
    assert why.optimal
    assert why.lower_bound == PairingObjective(0, 0, 0, 0, 0)
    assert why.objective == PairingObjective(0, 0, 0, 2, 6)


def test_explain_round_hand_made_floats_are_not_optimal_and_report_the_gap():
    players = [player("a", 3), player("b", 3), player("c", 0), player("d", 0)]
    why = explain_round(players, [(1, "a", "c"), (2, "b", "d")])
    assert [t.reason for t in why.tables] == [TableReason.NOT_OPTIMAL] * 2
    assert not why.optimal
    assert why.score_gap_over_optimum == 6
    assert why.optimum == PairingObjective(0, 0, 0, 0, 0)


def test_explain_round_marks_a_rematch_even_when_unavoidable():
    players = [player("a", 3, "b"), player("b", 0, "a")]
    why = explain_round(players, [(1, "a", "b")])
    assert why.tables[0].rematch
    assert why.tables[0].reason is TableReason.REMATCH
    assert why.optimal  # nobody else to play
    assert why.objective.rematches == 1


def test_explain_round_bye_goes_to_the_lowest_group_with_a_player_without_one():
    players = [
        player("a", 3),
        player("b", 3),
        player("c", 0),
        player("d", 0, had_bye=True),
        player("e", 0),
    ]
    why = explain_round(players, [(1, "a", "b"), (2, "d", "e"), (3, "c", None)])
    assert why.bye.player == "c"
    assert why.bye.reason is ByeReason.LOWEST_ELIGIBLE
    assert (why.bye.points, why.bye.lowest_eligible_points, why.bye.groups_skipped) == (0, 0, 0)
    assert not why.bye.had_bye_before
    # The bye receiver is not among the paired players above a boundary.
    assert [(b.players_above, b.minimum) for b in why.boundaries] == [(2, 0)]


def test_explain_round_bye_skips_a_group_whose_players_all_had_one():
    players = [
        player("a", 6),
        player("b", 3),
        player("c", 3),
        player("d", 3),
        player("e", 0, had_bye=True),
    ]
    why = explain_round(players, [(1, "a", "b"), (2, "c", "e"), (3, "d", None)])
    assert why.bye.reason is ByeReason.LOWEST_ELIGIBLE
    assert why.bye.lowest_eligible_points == 3
    assert why.optimal


def test_explain_round_bye_when_everyone_had_one():
    players = [
        player("a", 3, had_bye=True),
        player("b", 3, had_bye=True),
        player("c", 0, had_bye=True),
    ]
    why = explain_round(players, [(1, "a", "b"), (2, "c", None)])
    assert why.bye.reason is ByeReason.EVERYONE_HAD_BYE
    assert why.bye.had_bye_before
    assert why.objective.second_byes == 1
    assert why.optimal


def test_explain_round_bye_higher_than_needed_is_not_optimal():
    players = [player("a", 3), player("b", 0), player("c", 0)]
    why = explain_round(players, [(1, "b", "c"), (2, "a", None)])
    assert why.bye.reason is ByeReason.NOT_OPTIMAL
    assert why.bye.groups_skipped == 1
    assert why.objective.bye_groups_skipped == 1
    assert not why.optimal


def test_explain_round_bye_moved_up_to_avoid_a_rematch():
    # a (3 points) met both 0-point players: the bye to either of them pairs a into a
    # rematch, so a takes it (rematches come before the bye rule).
    players = [player("a", 3, "bc"), player("b", 0, "a"), player("c", 0, "a")]
    why = explain_round(players, pair_round(players, round_number=3))
    assert why.bye.player == "a"
    assert why.bye.reason is ByeReason.AVOIDS_REMATCH
    assert why.bye.groups_skipped == 1
    assert why.bye.lowest_eligible_points == 0
    assert why.tables[0].reason is TableReason.SAME_GROUP
    assert why.optimal
    assert why.objective == PairingObjective(0, 0, 1, 0, 0)
    # The same bye in a pool where nothing forces it is not optimal.
    free = [player("a", 3), player("b", 0), player("c", 0)]
    assert explain_round(free, [(1, "b", "c"), (2, "a", None)]).bye.reason is (
        ByeReason.NOT_OPTIMAL
    )


def test_explain_round_accepts_the_pairers_result():
    players = [player(k, 3 * (k % 3)) for k in range(9)]
    pairing = pair_round(players, round_number=2, seed=7)
    why = explain_round(players, pairing)
    assert why.objective == pairing.objective == why.optimum
    assert [t.table for t in why.tables] == [t.number for t in pairing.tables]
    assert why.bye.player == pairing.bye


@pytest.mark.parametrize(
    ("rows", "code"),
    [
        ([(1, "a", "z")], "unknown_player"),
        ([(1, "a", "b"), (2, "b", "c")], "paired_twice"),
        ([(1, "a", "b")], "unpaired"),
        ([(1, "a", None), (2, "b", None), (3, "c", "d")], "two_byes"),
        ([(1, "a", "b"), (2, "c", None), (3, "d", None)], "two_byes"),
    ],
)
def test_explain_round_refuses_a_pairing_of_another_pool(rows, code):
    players = [player("a", 0), player("b", 0), player("c", 0), player("d", 0)]
    with pytest.raises(PairingError) as caught:
        explain_round(players, rows)
    assert caught.value.code == code


def test_explain_round_refuses_a_bye_in_an_even_pool():
    players = [player("a", 0), player("b", 0)]
    with pytest.raises(PairingError) as caught:
        explain_round(players, [(1, "a", None), (2, "b", "b")])
    assert caught.value.code in {"bye_in_even_pool", "paired_twice"}
    with pytest.raises(PairingError) as caught:
        explain_round([*players, player("c", 0), player("d", 0)], [(1, "a", "b"), (2, "c", None)])
    assert caught.value.code == "bye_in_even_pool"


def test_evaluate_pairing_refuses_an_unknown_player():
    with pytest.raises(PairingError) as caught:
        evaluate_pairing([player("a", 0), player("b", 0)], [("a", "x")], None)
    assert caught.value.code == "unknown_player"


def _random_event(rng, size, rounds):
    ids = list(range(size))
    history = []
    for number in range(1, rounds + 1):
        pool = swiss_players_from_history(ids, history)
        pairing = pair_round(pool, round_number=number, seed=rng.random())
        for t in pairing.tables:
            outcome = rng.choice(list(SwissResult)[:3])
            history.append(PastMatch(number, t.player1, t.player2, outcome))
        if pairing.bye is not None:
            history.append(PastMatch(number, pairing.bye, None, SwissResult.BYE))
    return swiss_players_from_history(ids, history)


@pytest.mark.parametrize("seed", range(12))
def test_explain_round_terms_add_up_to_the_pairers_objective(seed):
    """Σ crossings = floats, Σ crossings·gap = score gaps, Σ minimum = the bound's floats;
    every pairing the pairer makes is explained as optimal, and an odd_group table crosses
    only boundaries that needed a crossing."""
    rng = random.Random(seed)
    pool = _random_event(rng, rng.randint(5, 24), rng.randint(1, 5))
    pairing = pair_round(pool, round_number=9, seed=seed)
    why = explain_round(pool, pairing)
    assert why.optimal
    assert why.objective == pairing.objective
    assert sum(b.crossings for b in why.boundaries) == why.objective.floats
    assert sum(b.crossings * b.gap for b in why.boundaries) == why.objective.score_gap_sum
    assert sum(b.minimum for b in why.boundaries) == why.lower_bound.floats
    assert all(b.extra >= 0 and b.extra % 2 == 0 for b in why.boundaries)
    assert {t.reason for t in why.tables} <= {
        TableReason.SAME_GROUP,
        TableReason.ODD_GROUP,
        TableReason.AVOIDS_REMATCH,
        TableReason.REMATCH,
    }
    if why.bye is not None:
        assert why.bye.reason is not ByeReason.NOT_OPTIMAL
    as_dict = why.as_dict()
    assert as_dict["optimal"] is True
    assert len(as_dict["tables"]) == len(pairing.tables)


def test_explain_module_imports_no_django():
    code = "import sys, tournaments.engine.explain; print('django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
