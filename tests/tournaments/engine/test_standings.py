"""Standings and tiebreakers, with MTR App. C's and the Pokémon handbook's own numbers."""

import itertools
import random
from fractions import Fraction

import pytest

from tournaments.engine.errors import StandingsError
from tournaments.engine.games import MatchRecord
from tournaments.engine.standings import (
    MISSED_ROUND_LOSS,
    MTR_FLOOR,
    ReportedMatch,
    TiebreakProfile,
    compute_standings,
)

WIN, LOSS, DRAW = MatchRecord(2, 0), MatchRecord(0, 2), MatchRecord(1, 1, 1)
RECORD_FOR = {"W": WIN, "L": LOSS, "D": DRAW}


class EventBuilder:
    """Builds matches for a named player; every other result is against a fresh filler."""

    def __init__(self) -> None:
        self.players: list[str] = []
        self.matches: list[ReportedMatch] = []
        self.busy: set[tuple[int, str]] = set()
        self.fillers = itertools.count(1)

    def add_player(self, name: str) -> None:
        if name not in self.players:
            self.players.append(name)

    def play(self, rnd: int, a: str, b: str | None, record: MatchRecord | None = None) -> None:
        for name in (a, b):
            if name is not None:
                self.add_player(name)
                assert (rnd, name) not in self.busy
                self.busy.add((rnd, name))
        self.matches.append(ReportedMatch(rnd, a, b, record))

    def against_fillers(self, name: str, results: str, rounds=None) -> None:
        """``results`` like "WWLD": one match per letter, in the player's free rounds."""
        free = (r for r in (rounds or itertools.count(1)) if (r, name) not in self.busy)
        for letter, rnd in zip(results, free, strict=False):
            self.play(rnd, name, f"filler{next(self.fillers)}", RECORD_FOR[letter])

    def standings(self, profile="mtr", dropped=()):
        return compute_standings(self.players, self.matches, dropped=dropped, profile=profile)


def by_name(explanation):
    return {line.opponent: line for line in explanation.opponents}


# -- MTR App. C -------------------------------------------------------------------------------


def test_mtr_match_win_5_2_1_is_0_667():
    event = EventBuilder()
    event.against_fillers("P", "WWWWWLLD")
    working = event.standings().explain("P")
    assert (working.wins, working.losses, working.draws, working.match_points) == (5, 2, 1, 16)
    assert working.own_match_win.raw == Fraction(16, 24)
    assert round(working.own_match_win.value, 3) == 0.667
    assert working.own_match_win.adjustment == ""


def test_mtr_match_win_1_3_then_withdrawn_counts_as_0_33_for_opponents():
    event = EventBuilder()
    event.play(1, "X", "OPP", WIN)  # X's one win, over OPP
    event.against_fillers("X", "LLL", rounds=[2, 3, 4])
    event.against_fillers("OPP", "WWW", rounds=[2, 3, 4])
    standings = event.standings(dropped={"X"})
    x = standings.explain("X").own_match_win
    assert x.raw == Fraction(3, 12) == Fraction(1, 4)
    assert x.used == MTR_FLOOR == Fraction(33, 100)
    assert x.adjustment == "floor 0.33"
    line = by_name(standings.explain("OPP"))["X"]
    assert line.dropped is True
    assert line.match_win.used == Fraction(33, 100)
    assert dict(standings.explain("OPP").tiebreakers)["opponents_match_win_pct"] == Fraction(
        33, 100
    )


def test_mtr_match_win_with_a_bye_then_withdrawn_is_0_60():
    event = EventBuilder()
    event.play(1, "B", None)  # round-1 bye: a won round
    event.against_fillers("B", "WWLL", rounds=[2, 3, 4, 5])
    working = event.standings(dropped={"B"}).explain("B")
    assert working.bye_rounds == (1,)
    assert working.own_match_win.raw == Fraction(9, 15)
    assert working.own_match_win.value == pytest.approx(0.60)


def test_mtr_game_win_21_of_30_is_0_70():
    event = EventBuilder()
    for rnd, record in enumerate(["2-0", "2-1", "1-2", "2-0"], 1):
        event.play(rnd, "G", f"opp{rnd}", MatchRecord.parse(record))
    standings = event.standings()
    own = standings.explain("G").own_game_win
    assert own.raw == Fraction(21, 30)
    assert own.value == pytest.approx(0.70)
    assert dict(standings.explain("G").tiebreakers)["game_win_pct"] == Fraction(7, 10)


def test_mtr_game_win_9_of_33_is_floored_to_0_33():
    event = EventBuilder()
    for rnd, record in enumerate(["1-2", "1-2", "0-2", "1-2"], 1):
        event.play(rnd, "G", f"opp{rnd}", MatchRecord.parse(record))
    own = event.standings().explain("G").own_game_win
    assert own.raw == Fraction(9, 33)
    assert own.used == Fraction(33, 100)
    assert own.adjustment == "floor 0.33"


def test_mtr_bye_counts_as_2_0_in_own_game_win():
    event = EventBuilder()
    event.play(1, "B", None)
    event.play(2, "B", "opp", MatchRecord(0, 2))
    assert event.standings().explain("B").own_game_win.raw == Fraction(6, 12)


# App. C's opponents: 4-4-0, 7-1-0, 1-3-1 (then dropped), 3-3-1, 6-2-0, 5-2-1, 4-3-1, 6-1-1.
APP_C_OPPONENTS = [
    ("O1", "WWWWLLLL", "W"),
    ("O2", "WWWWWWWL", "L"),
    ("O3", "WLLLD", "W"),
    ("O4", "WWWLLLD", "W"),
    ("O5", "WWWWWWLL", "L"),
    ("O6", "WWWWWLLD", "W"),
    ("O7", "WWWWLLLD", "W"),
    ("O8", "WWWWWWLD", "W"),
]


def app_c_event(with_bye: bool) -> EventBuilder:
    """P plays the App. C opponents (the first skipped and a round-1 bye if ``with_bye``).

    ``record`` is each opponent's final record including the match against P; ``p_result``
    is P's result in that match.
    """
    event = EventBuilder()
    opponents = APP_C_OPPONENTS[1:] if with_bye else APP_C_OPPONENTS
    first = 2 if with_bye else 1
    if with_bye:
        event.play(1, "P", None)
    for rnd, (name, record, p_result) in enumerate(opponents, first):
        event.play(rnd, "P", name, RECORD_FOR[p_result])
        # The opponent's own letter for that match is the opposite of P's.
        theirs = {"W": "L", "L": "W"}[p_result]
        rest = list(record)
        rest.remove(theirs)
        event.against_fillers(name, "".join(rest), rounds=range(1, 9))
    return event


def test_mtr_opponents_match_win_app_c_example_is_0_6164():
    standings = app_c_event(with_bye=False).standings(dropped={"O3"})
    working = standings.explain("P")
    assert (working.wins, working.losses, working.draws) == (6, 2, 0)
    omw = dict(working.tiebreakers)["opponents_match_win_pct"]
    expected = (
        sum(
            [
                Fraction(12, 24),
                Fraction(21, 24),
                Fraction(33, 100),
                Fraction(10, 21),
                Fraction(18, 24),
                Fraction(16, 24),
                Fraction(13, 24),
                Fraction(19, 24),
            ]
        )
        / 8
    )
    assert omw == expected
    assert round(float(omw), 4) == 0.6164
    lines = by_name(working)
    assert lines["O3"].match_win.raw == Fraction(4, 15)
    assert lines["O3"].match_win.adjustment == "floor 0.33"
    assert (lines["O3"].wins, lines["O3"].losses, lines["O3"].draws) == (1, 3, 1)
    assert lines["O4"].match_win.used == Fraction(10, 21)
    assert standings.row("P").tiebreakers[0] == pytest.approx(0.6164, abs=5e-5)


def test_mtr_opponents_match_win_ignores_the_bye_0_6330():
    standings = app_c_event(with_bye=True).standings(dropped={"O3"})
    working = standings.explain("P")
    assert working.bye_rounds == (1,)
    assert len(working.opponents) == 7  # the bye is not an opponent
    omw = dict(working.tiebreakers)["opponents_match_win_pct"]
    assert round(float(omw), 4) == 0.6330


def test_mtr_dropped_players_still_count_as_opponents():
    event = EventBuilder()
    event.play(1, "A", "D", WIN)
    event.play(2, "A", "E", WIN)
    event.against_fillers("E", "W", rounds=[1])
    standings = event.standings(dropped={"D"})
    working = standings.explain("A")
    assert [line.opponent for line in working.opponents] == ["D", "E"]
    assert by_name(working)["D"].dropped


def test_mtr_order_match_points_then_omw_then_gw_then_ogw():
    event = EventBuilder()
    # A and B: both 1-1 (3 points). A beat STRONG (who then won twice), B beat WEAK.
    event.play(1, "A", "STRONG", MatchRecord(2, 1))
    event.play(1, "B", "WEAK", MatchRecord(2, 0))
    event.play(2, "A", "X1", LOSS)
    event.play(2, "B", "X2", LOSS)
    event.against_fillers("STRONG", "WW", rounds=[2, 3])
    event.against_fillers("WEAK", "LL", rounds=[2, 3])
    event.against_fillers("X1", "L", rounds=[1])
    event.against_fillers("X2", "L", rounds=[1])
    standings = event.standings()
    order = standings.order()
    assert order.index("A") < order.index("B")  # higher OMW% beats higher GW%
    a, b = standings.row("A"), standings.row("B")
    assert a.match_points == b.match_points == 3
    assert a.tiebreakers[0] > b.tiebreakers[0]
    assert a.tiebreakers[1] < b.tiebreakers[1]


def test_mtr_game_win_breaks_equal_omw():
    event = EventBuilder()
    event.play(1, "A", "C", MatchRecord(2, 0))
    event.play(1, "B", "D", MatchRecord(2, 1))
    standings = event.standings()
    a, b = standings.row("A"), standings.row("B")
    assert a.tiebreakers[0] == b.tiebreakers[0]
    assert standings.order()[:2] == ["A", "B"]
    assert (a.rank, b.rank) == (1, 2)


def tiny_event() -> EventBuilder:
    event = EventBuilder()
    event.play(1, "A", "B", WIN)
    event.play(1, "C", "D", WIN)
    event.play(2, "A", "C", WIN)
    event.play(2, "B", "D", WIN)
    return event


def test_mtr_tiny_event_by_hand():
    standings = tiny_event().standings()
    assert standings.order() == ["A", "B", "C", "D"]
    assert [row.rank for row in standings.rows] == [1, 2, 2, 4]  # B and C tie exactly
    b = dict(standings.explain("B").tiebreakers)
    assert b["opponents_match_win_pct"] == (1 + Fraction(33, 100)) / 2
    assert b["game_win_pct"] == Fraction(1, 2)
    assert b["opponents_game_win_pct"] == (1 + Fraction(33, 100)) / 2


# -- Pokémon ------------------------------------------------------------------------------------


def test_pokemon_tiny_event_by_hand():
    standings = tiny_event().standings(profile="pokemon")
    assert standings.profile is TiebreakProfile.POKEMON
    assert standings.tiebreak_names == ("opponents_win_pct", "opponents_opponents_win_pct")
    assert [row.rank for row in standings.rows] == [1, 2, 2, 4]
    figures = {name: dict(standings.explain(name).tiebreakers) for name in "ABCD"}
    assert figures["A"]["opponents_win_pct"] == Fraction(1, 2)
    assert figures["B"]["opponents_win_pct"] == Fraction(5, 8)  # A 100 %, D 0 → 25 %
    assert figures["D"]["opponents_win_pct"] == Fraction(1, 2)
    assert figures["A"]["opponents_opponents_win_pct"] == Fraction(5, 8)
    assert figures["B"]["opponents_opponents_win_pct"] == Fraction(1, 2)
    assert figures["D"]["opponents_opponents_win_pct"] == Fraction(5, 8)
    assert by_name(standings.explain("B"))["D"].match_win.adjustment == "floor 25%"


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ("WWWLD", Fraction(7, 10)),  # RK9: 3-1-1 → (1+1+1+0.5+0)/5 = 70 %
        ("WWWWWWWW", Fraction(1)),  # 8-0 → 100 %
        ("WWWWWWLL", Fraction(3, 4)),  # 6-2 → 75 %
        ("WWWLLLLL", Fraction(3, 8)),  # 3-5 → 37.5 %
        ("WWWLL", Fraction(3, 5)),  # 3/5 → 60 %
    ],
)
def test_pokemon_win_percentage_handbook_examples(results, expected):
    event = EventBuilder()
    event.against_fillers("P", results)
    assert event.standings(profile="pokemon").explain("P").own_match_win.used == expected


def test_pokemon_win_percentage_floor_25():
    event = EventBuilder()
    event.against_fillers("P", "WLLLL")
    own = event.standings(profile="pokemon").explain("P").own_match_win
    assert own.raw == Fraction(1, 5)
    assert own.used == Fraction(1, 4)
    assert own.adjustment == "floor 25%"


def test_pokemon_dropped_player_capped_at_75():
    event = EventBuilder()
    event.against_fillers("P", "WWWWW")
    own = event.standings(profile="pokemon", dropped={"P"}).explain("P").own_match_win
    assert own.raw == 1
    assert own.used == Fraction(3, 4)
    assert own.adjustment == "cap 75% (dropped)"


def test_pokemon_bye_is_neither_a_win_nor_a_round():
    event = EventBuilder()
    event.play(1, "P", None)
    event.against_fillers("P", "WWWLLL", rounds=range(2, 8))
    working = event.standings(profile="pokemon").explain("P")
    assert (working.wins, working.losses) == (4, 3)  # the record shows the bye as a win
    assert working.own_match_win.raw == Fraction(3, 6)  # 4-3 with a bye → 3-3 in 6


def test_pokemon_opponent_with_a_bye_counts_one_one():
    event = EventBuilder()
    event.play(1, "O", None)
    event.play(2, "O", "P", WIN)
    event.against_fillers("O", "L", rounds=[3])
    event.against_fillers("P", "W", rounds=[1])
    line = by_name(event.standings(profile="pokemon").explain("P"))["O"]
    assert (line.wins, line.losses, line.byes) == (2, 1, 1)
    assert line.match_win.used == Fraction(1, 2)


# -- properties, errors ---------------------------------------------------------------------


def random_event(rng, players=40, rounds=6):
    ids = [f"p{i}" for i in range(players)]
    matches = []
    records = [WIN, LOSS, DRAW, MatchRecord(2, 1), MatchRecord(1, 2), MatchRecord(0, 0, 3)]
    for rnd in range(1, rounds + 1):
        order = ids[:]
        rng.shuffle(order)
        if len(order) % 2:
            matches.append(ReportedMatch(rnd, order.pop(), None))
        for a, b in zip(order[::2], order[1::2], strict=True):
            matches.append(ReportedMatch(rnd, a, b, rng.choice(records)))
    return ids, matches


@pytest.mark.parametrize("profile", ["mtr", "pokemon"])
@pytest.mark.parametrize("seed", range(5))
def test_standings_rows_are_sorted_by_exact_figures(profile, seed):
    rng = random.Random(seed)
    ids, matches = random_event(rng, players=41)
    dropped = set(rng.sample(ids, 4))
    standings = compute_standings(ids, matches, dropped=dropped, profile=profile)
    keys = []
    for row in standings.rows:
        working = standings.explain(row.player)
        figures = tuple(value for _name, value in working.tiebreakers)
        assert row.tiebreakers == pytest.approx([float(f) for f in figures])
        assert row.rank == working.rank
        keys.append((row.match_points, figures))
    for place, (before, after) in enumerate(itertools.pairwise(keys)):
        assert before >= after
        rows = standings.rows
        assert (rows[place].rank == rows[place + 1].rank) == (before == after)


def test_standings_tied_players_keep_the_given_order():
    standings = compute_standings(["z", "a", "m"], [])
    assert standings.order() == ["z", "a", "m"]
    assert [row.rank for row in standings.rows] == [1, 1, 1]


def test_standings_player_without_opponents_has_zero_opponent_figures():
    event = EventBuilder()
    event.play(1, "B", None)
    working = event.standings().explain("B")
    assert dict(working.tiebreakers)["opponents_match_win_pct"] == 0
    assert working.opponents == ()


@pytest.mark.parametrize(
    ("matches", "code"),
    [
        ([ReportedMatch(1, "A", "Z", WIN)], "unknown_player"),
        ([ReportedMatch(1, "Z", "A", WIN)], "unknown_player"),
        ([ReportedMatch(1, "A", "B", WIN), ReportedMatch(1, "A", "C", WIN)], "played_twice"),
        ([ReportedMatch(1, "A", "B", WIN), ReportedMatch(1, "C", "B", WIN)], "played_twice"),
        ([ReportedMatch(1, "A", "A", WIN)], "played_twice"),
        ([ReportedMatch(1, "A", "B")], "missing_record"),
        ([ReportedMatch(1, "A", None, MatchRecord(2, 1))], "bye_record"),
    ],
)
def test_compute_standings_rejects_inconsistent_matches(matches, code):
    with pytest.raises(StandingsError) as caught:
        compute_standings(["A", "B", "C"], matches)
    assert caught.value.code == code


def test_compute_standings_rejects_unknown_profile_and_duplicates():
    with pytest.raises(StandingsError) as caught:
        compute_standings(["A"], [], profile="swiss-chess")
    assert caught.value.code == "unknown_profile"
    with pytest.raises(StandingsError) as caught:
        compute_standings(["A", "A"], [])
    assert caught.value.code == "duplicate_player"


def test_explain_unknown_player():
    with pytest.raises(StandingsError) as caught:
        compute_standings(["A"], []).explain("B")
    assert caught.value.code == "unknown_player"


# -- late entries: losses for missed rounds ----------------------------------------------------


def test_missed_round_loss_counts_in_own_record_and_figures_only():
    event = EventBuilder()
    event.play(1, "late", None, MISSED_ROUND_LOSS)
    event.play(2, "late", "anna", WIN)
    event.play(3, "late", "ben", WIN)
    event.play(1, "anna", "ben", WIN)
    standings = event.standings()
    late = standings.explain("late")
    assert (late.wins, late.losses, late.draws, late.match_points) == (2, 1, 0, 6)
    assert late.missed_rounds == (1,)
    assert late.rounds_played == 3
    assert late.own_match_win.raw == Fraction(6, 9)
    assert late.own_game_win.raw == Fraction(12, 18)  # 2-0, 2-0 and the 0-2 loss
    assert [line.opponent for line in late.opponents] == ["anna", "ben"]
    # Anna's opponents are ben (round 1) and late (round 2): the missed round adds nobody.
    assert sorted(line.opponent for line in standings.explain("anna").opponents) == [
        "ben",
        "late",
    ]


def test_missed_round_loss_lowers_the_pokemon_win_percentage():
    event = EventBuilder()
    event.play(1, "late", None, MISSED_ROUND_LOSS)
    event.play(2, "late", "anna", WIN)
    event.play(1, "anna", "ben", WIN)
    event.play(2, "ben", None)  # a bye does not count as a round played for Pokémon
    standings = event.standings(profile="pokemon")
    # anna's only other opponent is late: late won 1 of 2 counted rounds = 50 %.
    anna = standings.explain("anna")
    late_line = by_name(anna)["late"]
    assert late_line.match_win.raw == Fraction(1, 2)


def test_a_match_without_opponent_is_a_bye_or_a_missed_round_loss_only():
    event = EventBuilder()
    event.play(1, "late", None, MatchRecord(1, 1, 1))
    with pytest.raises(StandingsError) as error:
        event.standings()
    assert error.value.code == "bye_record"
