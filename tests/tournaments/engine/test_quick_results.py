"""A match reported as a record from the reporter's own side, and the one-tap choices.

Rulebook (CrossOver The F&C TCG basic rules 2.02), 4−1−1 試合とゲーム:

    ◆このゲームは通常「3セットマッチ/2本先取」で行います。
    ◆第1、第2ゲームともに、同プレイヤーが勝利した場合(3ゲームマッチで2ゲームを先取した
      場合、つまりゲーム数において勝ち越しした場合)、そこで試合が終了になります。
    ◆相手と自分の試合成績を比べて、勝ったゲーム数が多い方が試合の勝者になります。全く同じ
      成績であれば、その試合は引き分けになります。

So a match is at most three games, ends when a player has two game wins, the player with
more game wins wins it, and equal game wins draw it.
"""

import contextlib

import pytest

from tournaments.engine.errors import InvalidMatchRecord
from tournaments.engine.games import (
    GameOutcome,
    MatchOutcome,
    MatchRecord,
    check_fixed_games,
    possible_records,
    record_for_seat,
)

P1, P2, DRAW = GameOutcome.PLAYER1, GameOutcome.PLAYER2, GameOutcome.DRAW


def texts(records) -> list[str]:
    return [str(record) for record in records]


# --- record_for_seat ----------------------------------------------------------------------


def test_record_for_seat_player_1_keeps_the_record():
    assert record_for_seat("2-1", 1) == MatchRecord(2, 1, 0)


def test_record_for_seat_player_2_turns_it_to_player_1s_side():
    # Player 2 won 2-1: from player 1's side that is 1-2.
    assert record_for_seat("2-1", 2) == MatchRecord(1, 2, 0)
    assert record_for_seat(MatchRecord(1, 0, 2), 2) == MatchRecord(0, 1, 2)


def test_record_for_seat_is_its_own_inverse():
    for record in possible_records():
        for seat in (1, 2):
            assert record_for_seat(record_for_seat(record, seat), seat) == record


def test_record_for_seat_draw_reads_the_same_from_both_sides():
    assert record_for_seat("1-1-1", 2) == MatchRecord(1, 1, 1)


@pytest.mark.parametrize(("text", "code"), [("3-0", "game_after_decided"), ("x", "unreadable")])
def test_record_for_seat_refuses_what_4_1_1_refuses(text, code):
    with pytest.raises(InvalidMatchRecord) as caught:
        record_for_seat(text, 2)
    assert caught.value.code == code


def test_record_for_seat_refuses_a_third_seat():
    with pytest.raises(ValueError, match="seat must be 1 or 2"):
        record_for_seat("2-0", 3)


# --- possible_records ---------------------------------------------------------------------


def test_possible_records_in_swiss_every_valid_record_wins_first():
    assert texts(possible_records()) == [
        # wins: "勝ったゲーム数が多い方が試合の勝者"
        "2-0-0",
        "2-1-0",
        "1-0-0",
        "2-0-1",
        "1-0-1",
        "1-0-2",
        # draws: "全く同じ成績であれば、その試合は引き分け"
        "1-1-1",
        "0-0-3",
        "1-1-0",
        "0-0-2",
        "0-0-1",
        # losses, the wins mirrored, ending with the clearest loss
        "0-1-2",
        "0-1-1",
        "0-2-1",
        "0-1-0",
        "1-2-0",
        "0-2-0",
    ]


def test_possible_records_never_a_fourth_game_or_a_game_after_two_wins():
    # "3セットマッチ/2本先取": at most three games, never more than two game wins.
    for record in possible_records():
        assert 1 <= record.games_played <= 3
        assert max(record.wins, record.losses) <= 2


def test_possible_records_losses_mirror_the_wins():
    records = possible_records()
    wins = [r for r in records if r.outcome is MatchOutcome.PLAYER1]
    losses = [r for r in records if r.outcome is MatchOutcome.PLAYER2]
    assert [r.reversed() for r in reversed(wins)] == losses


def test_possible_records_top_cut_only_records_with_a_winner():
    records = possible_records(winner_required=True)
    assert texts(records) == [
        "2-0-0",
        "2-1-0",
        "1-0-0",
        "2-0-1",
        "1-0-1",
        "1-0-2",
        "0-1-2",
        "0-1-1",
        "0-2-1",
        "0-1-0",
        "1-2-0",
        "0-2-0",
    ]
    assert all(r.outcome is not MatchOutcome.DRAW for r in records)


def test_possible_records_are_exactly_what_match_record_accepts():
    accepted = set()
    for wins in range(5):
        for losses in range(5):
            for draws in range(5):
                with contextlib.suppress(InvalidMatchRecord):
                    accepted.add(MatchRecord(wins, losses, draws))
    assert set(possible_records()) == accepted


# --- check_fixed_games: penalty game losses stay in the record ----------------------------


def test_check_fixed_games_accepts_a_record_that_includes_them():
    check_fixed_games(MatchRecord(2, 1, 0), [P1])
    check_fixed_games(MatchRecord(1, 2, 0), [P1])
    check_fixed_games(MatchRecord(0, 2, 0), [])


@pytest.mark.parametrize(
    ("record", "fixed"),
    [(MatchRecord(0, 2, 0), [P1]), (MatchRecord(2, 0, 0), [P2]), (MatchRecord(1, 1, 0), [P1, P1])],
)
def test_check_fixed_games_refuses_a_record_without_them(record, fixed):
    with pytest.raises(InvalidMatchRecord) as caught:
        check_fixed_games(record, fixed)
    assert caught.value.code == "record_below_fixed_games"


def test_check_fixed_games_counts_drawn_fixed_games():
    with pytest.raises(InvalidMatchRecord):
        check_fixed_games(MatchRecord(1, 0, 0), [DRAW])
    check_fixed_games(MatchRecord(1, 0, 1), [DRAW])
