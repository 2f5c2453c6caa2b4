"""Best-of-three adjudication (rulebook 4−1−1, 4−1−2; wiki 002 for time-outs)."""

import pytest

from tournaments.engine.errors import InvalidGameReport, InvalidMatchRecord
from tournaments.engine.games import (
    BYE_RECORD,
    GameEnd,
    GameOutcome,
    GameReport,
    MatchOutcome,
    MatchRecord,
    TimeoutPolicy,
    adjudicate_game,
    adjudicate_match,
    match_result,
)

P1, P2, DRAW, UNDECIDED = (
    GameOutcome.PLAYER1,
    GameOutcome.PLAYER2,
    GameOutcome.DRAW,
    GameOutcome.UNDECIDED,
)


def rejected(report: GameReport, code: str, **kwargs) -> InvalidGameReport:
    with pytest.raises(InvalidGameReport) as caught:
        adjudicate_game(report, **kwargs)
    assert caught.value.code == code
    return caught.value


# -- end of game: every way a game ends (4−1−2) ------------------------------------------


def test_adjudicate_game_hp_zero_player2_loses():
    assert adjudicate_game(GameReport(GameEnd.HP_ZERO, hp=(12, 0))) is P1


def test_adjudicate_game_hp_zero_player1_loses():
    assert adjudicate_game(GameReport(GameEnd.HP_ZERO, hp=(0, 30), deck=(20, 18))) is P2


def test_adjudicate_game_deck_empty_owner_loses_at_that_moment():
    # Wiki 002: the owner loses when the deck becomes empty, not when failing to draw.
    assert adjudicate_game(GameReport(GameEnd.DECK_EMPTY, deck=(0, 7), hp=(25, 3))) is P2
    assert adjudicate_game(GameReport(GameEnd.DECK_EMPTY, deck=(5, 0))) is P1


def test_adjudicate_game_deck_empty_loser_may_also_have_zero_hp():
    # Both conditions on the same player: that player loses either way.
    assert adjudicate_game(GameReport(GameEnd.DECK_EMPTY, deck=(0, 7), hp=(0, 3))) is P2


@pytest.mark.parametrize(
    ("hp", "deck"),
    [((0, 0), (10, 10)), ((20, 9), (0, 0)), ((0, 9), (10, 0)), ((0, 0), (0, 0))],
)
def test_adjudicate_game_both_conditions_at_once_is_a_draw(hp, deck):
    assert adjudicate_game(GameReport(GameEnd.SIMULTANEOUS, hp=hp, deck=deck)) is DRAW


def test_adjudicate_game_time_out_is_a_draw_under_swiss_policy():
    report = GameReport(GameEnd.TIME, hp=(30, 1), deck=(12, 20))
    assert adjudicate_game(report) is DRAW
    assert adjudicate_game(report, timeout_policy=TimeoutPolicy.DRAW) is DRAW


def test_adjudicate_game_time_out_draw_needs_no_hp():
    assert adjudicate_game(GameReport(GameEnd.TIME)) is DRAW


@pytest.mark.parametrize(("hp", "expected"), [((17, 4), P1), ((4, 17), P2), ((1, 30), P2)])
def test_adjudicate_game_time_out_more_hp_wins(hp, expected):
    report = GameReport(GameEnd.TIME, hp=hp)
    assert adjudicate_game(report, timeout_policy=TimeoutPolicy.MORE_HP_WINS) is expected


def test_adjudicate_game_time_out_equal_hp_is_undecided_never_a_winner():
    report = GameReport(GameEnd.TIME, hp=(9, 9), deck=(3, 11))
    outcome = adjudicate_game(report, timeout_policy=TimeoutPolicy.MORE_HP_WINS)
    assert outcome is UNDECIDED
    assert outcome not in (P1, P2, DRAW)


def test_adjudicate_game_time_out_more_hp_wins_needs_both_hp():
    rejected(
        GameReport(GameEnd.TIME, hp=(9, None)),
        "hp_missing",
        timeout_policy=TimeoutPolicy.MORE_HP_WINS,
    )


def test_adjudicate_game_concession():
    assert adjudicate_game(GameReport(GameEnd.CONCESSION, conceded=(True, False))) is P2
    assert adjudicate_game(GameReport(GameEnd.CONCESSION, conceded=(False, True))) is P1


def test_adjudicate_game_penalty_game_loss():
    assert adjudicate_game(GameReport(GameEnd.PENALTY, penalized=(False, True))) is P1
    assert adjudicate_game(GameReport(GameEnd.PENALTY, penalized=(True, False))) is P2


def test_adjudicate_game_penalty_stands_whatever_the_board_shows():
    report = GameReport(GameEnd.PENALTY, hp=(0, 20), penalized=(False, True))
    assert adjudicate_game(report) is P1


def test_adjudicate_game_accepts_ending_as_text():
    assert adjudicate_game(GameReport("hp_zero", hp=(3, 0))) is P1


# -- impossible or incomplete reports ----------------------------------------------------


def test_adjudicate_game_rejects_missing_end_reason_even_with_negative_hp():
    rejected(GameReport(None, hp=(-3, 10)), "end_missing")


def test_adjudicate_game_rejects_unknown_end_reason():
    rejected(GameReport("knockout", hp=(3, 0)), "end_unknown")


def test_adjudicate_game_rejects_negative_hp():
    error = rejected(GameReport(GameEnd.HP_ZERO, hp=(-2, 14)), "hp_negative")
    assert "report 0" in error.message


def test_adjudicate_game_rejects_hp_above_maximum():
    rejected(GameReport(GameEnd.HP_ZERO, hp=(0, 31)), "hp_above_maximum")


def test_adjudicate_game_rejects_non_numeric_hp_and_negative_deck():
    rejected(GameReport(GameEnd.HP_ZERO, hp=("0", 5)), "hp_not_a_number")
    rejected(GameReport(GameEnd.DECK_EMPTY, deck=(-1, 4)), "deck_negative")
    rejected(GameReport(GameEnd.DECK_EMPTY, deck=(0.0, 4)), "deck_not_a_number")


def test_adjudicate_game_rejects_both_players_conceding():
    rejected(GameReport(GameEnd.CONCESSION, conceded=(True, True)), "both_conceded")


def test_adjudicate_game_rejects_both_players_penalized():
    rejected(GameReport(GameEnd.PENALTY, penalized=(True, True)), "both_penalized")


def test_adjudicate_game_rejects_concession_without_conceder():
    rejected(GameReport(GameEnd.CONCESSION), "concession_missing")


def test_adjudicate_game_rejects_penalty_without_player():
    rejected(GameReport(GameEnd.PENALTY), "penalty_missing")


def test_adjudicate_game_rejects_concession_flag_with_other_ending():
    rejected(GameReport(GameEnd.HP_ZERO, hp=(0, 5), conceded=(True, False)), "concession_mismatch")


def test_adjudicate_game_rejects_penalty_flag_with_other_ending():
    rejected(GameReport(GameEnd.TIME, penalized=(False, True)), "penalty_mismatch")


def test_adjudicate_game_rejects_concession_after_the_game_ended():
    rejected(
        GameReport(GameEnd.CONCESSION, hp=(0, 12), conceded=(False, True)), "game_already_over"
    )


def test_adjudicate_game_rejects_hp_zero_ending_without_hp():
    rejected(GameReport(GameEnd.HP_ZERO), "hp_missing")


def test_adjudicate_game_rejects_hp_zero_ending_when_nobody_is_at_zero():
    rejected(GameReport(GameEnd.HP_ZERO, hp=(4, 9)), "no_hp_zero")


def test_adjudicate_game_rejects_winner_with_hp_zero():
    # Both at 0 HP: there is no winner with HP 0; it is a simultaneous ending.
    error = rejected(GameReport(GameEnd.HP_ZERO, hp=(0, 0)), "both_hp_zero")
    assert "simultaneous" in error.message
    rejected(GameReport(GameEnd.DECK_EMPTY, deck=(0, 5), hp=(10, 0)), "winner_hp_zero")


def test_adjudicate_game_rejects_winner_with_empty_deck():
    rejected(GameReport(GameEnd.HP_ZERO, hp=(0, 5), deck=(8, 0)), "winner_deck_empty")


def test_adjudicate_game_rejects_deck_empty_ending_with_two_empty_decks():
    rejected(GameReport(GameEnd.DECK_EMPTY, deck=(0, 0)), "both_decks_empty")


def test_adjudicate_game_rejects_deck_empty_ending_with_cards_left():
    rejected(GameReport(GameEnd.DECK_EMPTY, deck=(1, 4)), "no_deck_empty")
    rejected(GameReport(GameEnd.DECK_EMPTY, deck=(None, 4)), "deck_missing")


def test_adjudicate_game_rejects_simultaneous_when_one_player_is_fine():
    rejected(GameReport(GameEnd.SIMULTANEOUS, hp=(0, 5), deck=(10, 10)), "not_simultaneous")
    rejected(GameReport(GameEnd.SIMULTANEOUS), "not_simultaneous")


def test_adjudicate_game_rejects_time_out_after_the_game_ended():
    rejected(GameReport(GameEnd.TIME, hp=(0, 5)), "game_already_over")
    rejected(GameReport(GameEnd.TIME, hp=(7, 5), deck=(10, 0)), "game_already_over")


# -- match records (4−1−1) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "outcome", "match_points", "game_points"),
    [
        ("2-0", MatchOutcome.PLAYER1, (3, 0), (6, 0)),
        ("2-1", MatchOutcome.PLAYER1, (3, 0), (6, 3)),
        ("1-2", MatchOutcome.PLAYER2, (0, 3), (3, 6)),
        ("1-1-1", MatchOutcome.DRAW, (1, 1), (4, 4)),
        ("1-0-1", MatchOutcome.PLAYER1, (3, 0), (4, 1)),
        ("2-0-1", MatchOutcome.PLAYER1, (3, 0), (7, 1)),
        ("1-0-2", MatchOutcome.PLAYER1, (3, 0), (5, 2)),
        ("0-0-3", MatchOutcome.DRAW, (1, 1), (3, 3)),
    ],
)
def test_match_record_valid_records(text, outcome, match_points, game_points):
    record = MatchRecord.parse(text)
    assert record.outcome is outcome
    assert match_result(record) is outcome
    assert record.match_points() == match_points
    assert record.game_points() == game_points  # MTR App. C: 2-0-1 → 7 game points


@pytest.mark.parametrize(
    "games",
    [
        (P1, P1),  # 2-0
        (P2, P1, P1),  # 2-1
        (P1, P2, DRAW),  # 1-1-1
        (P1, DRAW),  # 1-0-1, time ran out in game 2
        (DRAW, P1, P1),  # 2-0-1
        (P1, DRAW, P1),  # 2-0-1
        (DRAW, P1, DRAW),  # 1-0-2
        (DRAW, DRAW, DRAW),  # 0-0-3, intentional draw
    ],
)
def test_match_record_from_games_valid_sequences(games):
    record = MatchRecord.from_games(games)
    assert record.games_played == len(games)


@pytest.mark.parametrize(
    ("games", "code"),
    [
        ((P1, P1, P2), "game_after_decided"),  # a game after a player reached 2 wins
        ((P1, P1, DRAW), "game_after_decided"),
        ((P2, P2, P1), "game_after_decided"),
        ((P1, P1, P1), "game_after_decided"),  # 3-0
        ((DRAW, DRAW, DRAW, P1), "too_many_games"),  # a fourth game
        ((P1, P2, DRAW, P1), "too_many_games"),
        ((P1, UNDECIDED), "undecided_game"),
        ((), "no_games"),
    ],
)
def test_match_record_from_games_invalid_sequences(games, code):
    with pytest.raises(InvalidMatchRecord) as caught:
        MatchRecord.from_games(games)
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("counts", "code"),
    [
        ((3, 0, 0), "game_after_decided"),
        ((0, 3, 0), "game_after_decided"),
        ((2, 2, 0), "too_many_games"),
        ((2, 1, 1), "too_many_games"),
        ((0, 0, 4), "too_many_games"),
        ((1, 1, 2), "too_many_games"),
        ((0, 0, 0), "no_games"),
        ((-1, 2, 0), "not_a_count"),
        ((True, 0, 0), "not_a_count"),
    ],
)
def test_match_record_invalid_counts(counts, code):
    with pytest.raises(InvalidMatchRecord) as caught:
        MatchRecord(*counts)
    assert caught.value.code == code


@pytest.mark.parametrize("text", ["2", "2-0-0-0", "two-zero", "", "2--1", "²-0", "２-0"])
def test_match_record_parse_rejects_unreadable_text(text):
    with pytest.raises(InvalidMatchRecord) as caught:
        MatchRecord.parse(text)
    assert caught.value.code == "unreadable"


def test_match_record_reversed_and_bye():
    assert MatchRecord(2, 1).reversed() == MatchRecord(1, 2)
    assert str(MatchRecord(1, 0, 2)) == "1-0-2"
    assert MatchRecord(2, 0, 0) == BYE_RECORD
    assert BYE_RECORD.game_points() == (6, 0)


def test_match_result_winner_required_rejects_a_draw():
    with pytest.raises(InvalidMatchRecord) as caught:
        match_result(MatchRecord(1, 1, 1), winner_required=True)
    assert caught.value.code == "winner_required"
    assert match_result(MatchRecord(2, 1), winner_required=True) is MatchOutcome.PLAYER1


# -- whole matches from reports ------------------------------------------------------------


def test_adjudicate_match_from_reports():
    record = adjudicate_match(
        [
            GameReport(GameEnd.HP_ZERO, hp=(0, 11)),
            GameReport(GameEnd.DECK_EMPTY, deck=(4, 0)),
            GameReport(GameEnd.CONCESSION, conceded=(False, True)),
        ]
    )
    assert record == MatchRecord(2, 1, 0)


def test_adjudicate_match_time_out_draw_in_swiss():
    record = adjudicate_match(
        [GameReport(GameEnd.HP_ZERO, hp=(5, 0)), GameReport(GameEnd.TIME, hp=(2, 28))]
    )
    assert record == MatchRecord(1, 0, 1)
    assert record.outcome is MatchOutcome.PLAYER1


def test_adjudicate_match_top_cut_time_out_more_hp_wins():
    record = adjudicate_match(
        [
            GameReport(GameEnd.HP_ZERO, hp=(0, 3)),
            GameReport(GameEnd.TIME, hp=(20, 6)),
            GameReport(GameEnd.TIME, hp=(2, 9)),
        ],
        timeout_policy=TimeoutPolicy.MORE_HP_WINS,
        winner_required=True,
    )
    assert record == MatchRecord(1, 2, 0)
    assert record.outcome is MatchOutcome.PLAYER2


def test_adjudicate_match_top_cut_one_all_after_time_is_rejected():
    with pytest.raises(InvalidMatchRecord) as caught:
        adjudicate_match(
            [GameReport(GameEnd.HP_ZERO, hp=(0, 3)), GameReport(GameEnd.TIME, hp=(20, 6))],
            timeout_policy=TimeoutPolicy.MORE_HP_WINS,
            winner_required=True,
        )
    assert caught.value.code == "winner_required"


def test_adjudicate_match_equal_hp_at_time_needs_a_judge():
    with pytest.raises(InvalidMatchRecord) as caught:
        adjudicate_match(
            [GameReport(GameEnd.TIME, hp=(14, 14))], timeout_policy=TimeoutPolicy.MORE_HP_WINS
        )
    assert caught.value.code == "undecided_game"


def test_adjudicate_match_winner_required_rejects_drawn_match():
    with pytest.raises(InvalidMatchRecord) as caught:
        adjudicate_match([GameReport(GameEnd.SIMULTANEOUS, hp=(0, 0))], winner_required=True)
    assert caught.value.code == "winner_required"


def test_adjudicate_match_names_the_bad_game():
    with pytest.raises(InvalidGameReport) as caught:
        adjudicate_match(
            [GameReport(GameEnd.HP_ZERO, hp=(0, 1)), GameReport(GameEnd.HP_ZERO, hp=(-1, 2))]
        )
    assert caught.value.code == "hp_negative"
    assert caught.value.message.startswith("game 2:")


def test_adjudicate_match_rejects_a_game_after_the_match_was_decided():
    with pytest.raises(InvalidMatchRecord) as caught:
        adjudicate_match([GameReport(GameEnd.HP_ZERO, hp=(1, 0))] * 3)
    assert caught.value.code == "game_after_decided"
