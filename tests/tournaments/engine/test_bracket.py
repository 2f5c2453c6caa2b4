"""Single-elimination top cut seeding (MTR 10.4 style)."""

import pytest

from tournaments.engine.bracket import (
    advance,
    bracket_order,
    cut_rounds,
    round_name,
    seed_top_cut,
)
from tournaments.engine.errors import BracketError


def first_round_seeds(size):
    players = [f"s{seed}" for seed in range(1, size + 1)]
    return [(m.seed1, m.seed2) for m in seed_top_cut(players, size)]


def test_seed_top_cut_top_8_is_1v8_4v5_2v7_3v6():
    assert first_round_seeds(8) == [(1, 8), (4, 5), (2, 7), (3, 6)]


def test_seed_top_cut_top_4_is_1v4_2v3():
    assert first_round_seeds(4) == [(1, 4), (2, 3)]


def test_seed_top_cut_top_2_is_the_final():
    assert first_round_seeds(2) == [(1, 2)]


def test_seed_top_cut_top_16():
    assert first_round_seeds(16) == [
        (1, 16),
        (8, 9),
        (4, 13),
        (5, 12),
        (2, 15),
        (7, 10),
        (3, 14),
        (6, 11),
    ]


def test_seed_top_cut_uses_the_standings_order():
    standings = ["ann", "bob", "cho", "dee", "eve"]
    matches = seed_top_cut(standings, 4)
    assert [(m.player1, m.player2) for m in matches] == [("ann", "dee"), ("bob", "cho")]
    assert all(m.round_number == 1 for m in matches)


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_bracket_top_seeds_meet_last(size):
    # If the better seed always wins, the last 2^k players are exactly seeds 1..2^k.
    players = list(range(1, size + 1))
    matches = seed_top_cut(players, size)
    remaining = size
    while matches:
        remaining //= 2
        winners = {m.position: min(m.player1, m.player2) for m in matches}
        assert sorted(winners.values()) == list(range(1, remaining + 1))
        matches = advance(matches, winners)
        for m in matches:
            assert m.seed1 < m.seed2
            assert m.seed1 + m.seed2 == remaining + 1  # 1v4, 2v3 in the semi-finals …
    assert remaining == 1


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32])
def test_bracket_order_is_a_permutation(size):
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    assert all(order[k] + order[k + 1] == size + 1 for k in range(0, size, 2))


def test_advance_pairs_adjacent_winners_better_seed_first():
    matches = seed_top_cut([f"s{k}" for k in range(1, 9)], 8)
    # Upsets: 8 beats 1, 5 beats 4, 2 and 3 win.
    semis = advance(matches, {0: "s8", 1: "s5", 2: "s2", 3: "s3"})
    assert [(m.player1, m.player2, m.seed1, m.seed2) for m in semis] == [
        ("s5", "s8", 5, 8),
        ("s2", "s3", 2, 3),
    ]
    final = advance(semis, {0: "s8", 1: "s2"})
    assert [(m.player1, m.player2, m.round_number) for m in final] == [("s2", "s8", 3)]
    assert advance(final, {0: "s8"}) == ()


def test_advance_requires_a_winner_no_draws():
    matches = seed_top_cut(["a", "b", "c", "d"], 4)
    with pytest.raises(BracketError) as caught:
        advance(matches, {0: "a"})
    assert caught.value.code == "result_missing"


def test_advance_rejects_a_winner_from_another_match():
    matches = seed_top_cut(["a", "b", "c", "d"], 4)
    with pytest.raises(BracketError) as caught:
        advance(matches, {0: "b", 1: "b"})
    assert caught.value.code == "winner_not_in_match"


def test_advance_needs_the_whole_round():
    matches = seed_top_cut(["a", "b", "c", "d"], 4)
    with pytest.raises(BracketError) as caught:
        advance(matches[1:], {1: "b"})
    assert caught.value.code == "incomplete_round"
    with pytest.raises(BracketError) as caught:
        advance((), {})
    assert caught.value.code == "empty_round"


@pytest.mark.parametrize("size", [0, 1, 3, 6, 12])
def test_seed_top_cut_rejects_sizes_that_are_not_powers_of_two(size):
    with pytest.raises(BracketError) as caught:
        seed_top_cut(list(range(20)), size)
    assert caught.value.code == "cut_size"


def test_seed_top_cut_rejects_too_few_players_and_duplicates():
    with pytest.raises(BracketError) as caught:
        seed_top_cut(["a", "b", "c"], 4)
    assert caught.value.code == "not_enough_players"
    with pytest.raises(BracketError) as caught:
        seed_top_cut(["a", "b", "a", "c"], 4)
    assert caught.value.code == "duplicate_player"


@pytest.mark.parametrize(
    ("size", "names"),
    [
        (2, ["final"]),
        (4, ["semifinal", "final"]),
        (8, ["quarterfinal", "semifinal", "final"]),
        (32, ["round_of_32", "round_of_16", "quarterfinal", "semifinal", "final"]),
    ],
)
def test_round_name_counts_the_players_left(size, names):
    assert cut_rounds(size) == len(names)
    assert [round_name(size, number) for number in range(1, len(names) + 1)] == names


def test_round_name_rejects_a_round_the_cut_does_not_have():
    for size, number in ((8, 0), (8, 4), (6, 1)):
        with pytest.raises(BracketError) as caught:
            round_name(size, number)
        assert caught.value.code in ("round_number", "cut_size")
