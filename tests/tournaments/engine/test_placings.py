"""Final placings after a top cut: the bracket first, then the Swiss standings."""

import pytest

from tournaments.engine.bracket import advance, seed_top_cut
from tournaments.engine.errors import BracketError
from tournaments.engine.placings import CutMatch, Placing, final_placings, result_name


def swiss(*players, ranks=None):
    """(player, rank) best first; ranks 1, 2, 3 … unless given."""
    ranks = ranks or range(1, len(players) + 1)
    return [(player, rank) for player, rank in zip(players, ranks, strict=True)]


def play(order, size, rounds_of_winners):
    """CutMatches of a top ``size`` cut seeded from ``order``: each item of
    ``rounds_of_winners`` names the winners of one round by match position (a partial dict
    leaves the other matches undecided; the next round is then not paired)."""
    played = []
    matches = seed_top_cut(order, size)
    for winners in rounds_of_winners:
        played += [
            CutMatch(m.round_number, m.player1, m.player2, winners.get(m.position)) for m in matches
        ]
        if len(winners) < len(matches):
            return played
        matches = advance(matches, winners)
    played += [CutMatch(m.round_number, m.player1, m.player2) for m in matches]
    return played


def table(placings):
    return [(p.player, p.placing, p.top_cut_result, p.decided) for p in placings]


TEN = [f"s{n}" for n in range(1, 11)]


def test_top_8_finished_with_upsets_follows_the_bracket():
    # Quarterfinals 1v8, 4v5, 2v7, 3v6: 8, 4, 2 and 6 win; semis 4v8 → 8, 2v6 → 6;
    # final 6v8 → 6.
    cut = play(TEN, 8, [{0: "s8", 1: "s4", 2: "s2", 3: "s6"}, {0: "s8", 1: "s6"}, {0: "s6"}])
    assert table(final_placings(swiss(*TEN), cut)) == [
        ("s6", 1, "champion", True),
        ("s8", 2, "finalist", True),
        ("s2", 3, "semifinal", True),  # semifinal losers by Swiss rank
        ("s4", 4, "semifinal", True),
        ("s1", 5, "quarterfinal", True),  # quarterfinal losers by Swiss rank
        ("s3", 6, "quarterfinal", True),
        ("s5", 7, "quarterfinal", True),
        ("s7", 8, "quarterfinal", True),
        ("s9", 9, None, True),  # then the Swiss standings
        ("s10", 10, None, True),
    ]


def test_top_4_finished():
    # Semis 1v4 → 4, 2v3 → 2; final 2v4 → 2.
    cut = play(TEN[:6], 4, [{0: "s4", 1: "s2"}, {0: "s2"}])
    assert final_placings(swiss(*TEN[:6]), cut) == (
        Placing("s2", 1, "champion", True),
        Placing("s4", 2, "finalist", True),
        Placing("s1", 3, "semifinal", True),
        Placing("s3", 4, "semifinal", True),
        Placing("s5", 5, None, True),
        Placing("s6", 6, None, True),
    )


def test_top_2_is_only_a_final():
    cut = play(["a", "b", "c"], 2, [{0: "b"}])
    assert table(final_placings(swiss("a", "b", "c"), cut)) == [
        ("b", 1, "champion", True),
        ("a", 2, "finalist", True),
        ("c", 3, None, True),
    ]


def test_player_who_dropped_before_the_cut_follows_it_in_swiss_order():
    # s3 dropped after the Swiss rounds: the top 4 was seeded from s1, s2, s4, s5.
    order = ["s1", "s2", "s4", "s5"]
    cut = play(order, 4, [{0: "s1", 1: "s2"}, {0: "s1"}])
    placings = final_placings(swiss("s1", "s2", "s3", "s4", "s5", "s6"), cut)
    assert table(placings) == [
        ("s1", 1, "champion", True),
        ("s2", 2, "finalist", True),
        ("s4", 3, "semifinal", True),
        ("s5", 4, "semifinal", True),
        ("s3", 5, None, True),  # first of the rest: 3rd in the Swiss, 5th overall
        ("s6", 6, None, True),
    ]


def test_player_who_drops_in_the_cut_loses_there():
    # s1 dropped after the quarterfinals: the semifinal is a loss (a concession).
    cut = play(TEN, 8, [{0: "s1", 1: "s4", 2: "s2", 3: "s3"}, {0: "s4", 1: "s3"}, {0: "s4"}])
    placings = {p.player: (p.placing, p.top_cut_result) for p in final_placings(swiss(*TEN), cut)}
    assert placings["s4"] == (1, "champion")
    assert placings["s3"] == (2, "finalist")
    assert placings["s1"] == (3, "semifinal")
    assert placings["s2"] == (4, "semifinal")


def test_top_cut_in_progress_keeps_the_players_still_in_it_in_swiss_order():
    # Quarterfinals played (8, 4, 2, 6 through); the semifinals not yet.
    cut = play(TEN, 8, [{0: "s8", 1: "s4", 2: "s2", 3: "s6"}])
    assert table(final_placings(swiss(*TEN), cut)) == [
        ("s2", 1, "semifinal", False),
        ("s4", 2, "semifinal", False),
        ("s6", 3, "semifinal", False),
        ("s8", 4, "semifinal", False),
        ("s1", 5, "quarterfinal", True),
        ("s3", 6, "quarterfinal", True),
        ("s5", 7, "quarterfinal", True),
        ("s7", 8, "quarterfinal", True),
        ("s9", 9, None, True),
        ("s10", 10, None, True),
    ]


def test_top_cut_in_progress_with_one_semifinal_decided():
    cut = play(TEN, 8, [{0: "s8", 1: "s4", 2: "s2", 3: "s6"}, {1: "s6"}])
    assert table(final_placings(swiss(*TEN), cut))[:4] == [
        ("s6", 1, "finalist", False),  # in the final
        ("s4", 2, "semifinal", False),  # still playing their semifinal
        ("s8", 3, "semifinal", False),
        ("s2", 4, "semifinal", True),  # out in the semifinal
    ]


def test_first_round_not_yet_played_is_the_swiss_order_with_the_cut_marked():
    cut = play(TEN, 8, [{}])
    assert table(final_placings(swiss(*TEN), cut))[:9] == [
        *((f"s{n}", n, "quarterfinal", False) for n in range(1, 9)),
        ("s9", 9, None, True),
    ]


def test_without_a_cut_the_placings_are_the_swiss_ranks_ties_shared():
    placings = final_placings(swiss("a", "b", "c", "d", ranks=[1, 2, 2, 4]), [])
    assert [(p.player, p.placing, p.top_cut_result) for p in placings] == [
        ("a", 1, None),
        ("b", 2, None),
        ("c", 2, None),
        ("d", 4, None),
    ]


def test_ties_outside_the_cut_share_a_placing_after_it():
    cut = play(["a", "b"], 2, [{0: "a"}])
    placings = final_placings(swiss("a", "b", "c", "d", "e", ranks=[1, 2, 3, 3, 5]), cut)
    assert [p.placing for p in placings] == [1, 2, 3, 3, 5]


def test_disqualified_cut_player_is_left_out_and_the_others_move_up():
    # s2 (a semifinal loser) was disqualified: not in the standings handed over.
    cut = play(TEN[:5], 4, [{0: "s1", 1: "s3"}, {0: "s3"}])
    placings = final_placings(swiss("s1", "s3", "s4", "s5"), cut)
    assert table(placings) == [
        ("s3", 1, "champion", True),
        ("s1", 2, "finalist", True),
        ("s4", 3, "semifinal", True),
        ("s5", 4, None, True),
    ]


@pytest.mark.parametrize(
    ("size", "reached", "won", "name"),
    [
        (8, 3, True, "champion"),
        (8, 3, False, "finalist"),
        (8, 2, False, "semifinal"),
        (8, 1, False, "quarterfinal"),
        (16, 1, False, "round_of_16"),
        (64, 2, False, "round_of_32"),
    ],
)
def test_result_names(size, reached, won, name):
    assert result_name(size, reached, won_final=won) == name


def test_a_cut_that_is_not_a_bracket_is_refused():
    three = [CutMatch(1, "a", "b"), CutMatch(1, "c", "d"), CutMatch(1, "e", "f")]
    with pytest.raises(BracketError) as caught:
        final_placings(swiss("a", "b", "c", "d", "e", "f"), three)
    assert caught.value.code == "cut_size"
    with pytest.raises(BracketError) as caught:
        final_placings(swiss("a", "b"), [CutMatch(1, "a", "b", "c")])
    assert caught.value.code == "winner_not_in_match"
    with pytest.raises(BracketError) as caught:
        final_placings(swiss("a", "b"), [CutMatch(1, "a", "b", "a"), CutMatch(2, "a", None)])
    assert caught.value.code == "round_number"
    twice = [CutMatch(1, "a", "b"), CutMatch(1, "a", "c")]
    with pytest.raises(BracketError) as caught:
        final_placings(swiss("a", "b", "c"), twice)
    assert caught.value.code in ("played_twice", "cut_size")
