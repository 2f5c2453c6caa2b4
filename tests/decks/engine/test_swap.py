"""Sideboard exchange between games (CrossOver rule 1−2−4)."""

from __future__ import annotations

import pytest

from decks.engine.messages import MESSAGES
from decks.engine.swap import check_swap

from .pools import crossover_rules

MAIN_DECK = {"森原 さとみ": 4, "水姫": 3, "汎用イベント01": 43}
SIDEBOARD = {"深見まどか": 2, "スワティ": 5}


def swap(out, into, main=MAIN_DECK, side=SIDEBOARD):
    return check_swap(crossover_rules(), main, side, out, into)


def test_swap_valid_returns_the_new_deck_and_sideboard():
    result = swap({"水姫": 2}, {"深見まどか": 1, "スワティ": 1})
    assert result.ok
    assert result.violations == ()
    assert dict(result.main) == {"森原 さとみ": 4, "水姫": 1, "汎用イベント01": 43, "深見まどか": 1,
                                 "スワティ": 1}  # fmt: skip
    assert dict(result.side) == {"深見まどか": 1, "スワティ": 4, "水姫": 2}
    assert sum(result.main.values()) == sum(MAIN_DECK.values())
    assert sum(result.side.values()) == sum(SIDEBOARD.values())


def test_swap_moving_every_copy_drops_the_name():
    result = swap({"森原 さとみ": 4}, {"スワティ": 4})
    assert result.ok
    assert "森原 さとみ" not in result.main
    assert result.main["スワティ"] == 4
    assert dict(result.side) == {"深見まどか": 2, "スワティ": 1, "森原 さとみ": 4}


def test_swap_nothing_is_fine():
    result = swap({}, {})
    assert result.ok
    assert dict(result.main) == MAIN_DECK
    assert dict(result.side) == SIDEBOARD


def test_swap_does_not_change_the_registered_lists():
    main, side = dict(MAIN_DECK), dict(SIDEBOARD)
    swap({"水姫": 2}, {"深見まどか": 2}, main, side)
    assert (main, side) == (MAIN_DECK, SIDEBOARD)


def test_swap_size_mismatch():
    result = swap({"水姫": 2}, {"スワティ": 1})
    assert not result.ok
    assert [v.code for v in result.violations] == ["SWAP_SIZE_MISMATCH"]
    violation = result.violations[0]
    assert violation.rule == "1−2−4"
    assert violation.details == {"out_count": 2, "in_count": 1}
    assert violation.message_en == (
        "2 cards go out but 1 comes in; the deck size must stay the same."
    )
    assert violation.message_ja == (
        "2枚抜いて1枚入れています。交換の前後でデッキ枚数は同じでなければなりません。"
    )
    # Nothing moves when the swap is refused.
    assert dict(result.main) == MAIN_DECK
    assert dict(result.side) == SIDEBOARD


def test_swap_card_not_in_sideboard():
    result = swap({"水姫": 3}, {"深見まどか": 2, "狡猾フィーリア": 1})
    assert [v.code for v in result.violations] == ["SWAP_NOT_IN_SIDEBOARD"]
    violation = result.violations[0]
    assert violation.rule == "1−2−4"
    assert violation.cards == ("狡猾フィーリア",)
    assert violation.details == {"name": "狡猾フィーリア", "count": 1, "available": 0}
    assert violation.message_en == (
        "Bringing in 1 × 狡猾フィーリア, but the registered sideboard has 0."
    )
    assert violation.message_ja == (
        "〔狡猾フィーリア〕を1枚入れようとしていますが、登録したサイドボードには0枚です。"
    )
    assert dict(result.main) == MAIN_DECK


def test_swap_more_copies_than_the_sideboard_holds():
    result = swap({"水姫": 3}, {"深見まどか": 3})
    assert [v.code for v in result.violations] == ["SWAP_NOT_IN_SIDEBOARD"]
    assert result.violations[0].details == {"name": "深見まどか", "count": 3, "available": 2}


def test_swap_card_not_in_deck():
    result = swap({"森原 さとみ": 5}, {"スワティ": 5})
    assert [v.code for v in result.violations] == ["SWAP_NOT_IN_DECK"]
    violation = result.violations[0]
    assert violation.rule == "1−2−4"
    assert violation.cards == ("森原 さとみ",)
    assert violation.details == {"name": "森原 さとみ", "count": 5, "available": 4}
    assert violation.message_en == "Taking out 5 × 森原 さとみ, but the registered deck has 4."
    assert violation.message_ja == (
        "〔森原 さとみ〕を5枚抜こうとしていますが、登録したデッキには4枚です。"
    )


def test_swap_sideboard_card_cannot_go_out_of_the_deck():
    result = swap({"深見まどか": 1}, {"深見まどか": 1})
    assert [v.code for v in result.violations] == ["SWAP_NOT_IN_DECK"]
    assert result.violations[0].details == {"name": "深見まどか", "count": 1, "available": 0}


def test_swap_reports_every_problem_at_once():
    result = swap({"狡猾フィーリア": 1, "水姫": 4}, {"スワティ": 6, "森原 さとみ": 1})
    assert [(v.code, v.cards) for v in result.violations] == [
        ("SWAP_NOT_IN_DECK", ("水姫",)),
        ("SWAP_NOT_IN_DECK", ("狡猾フィーリア",)),
        ("SWAP_NOT_IN_SIDEBOARD", ("スワティ",)),
        ("SWAP_NOT_IN_SIDEBOARD", ("森原 さとみ",)),
        ("SWAP_SIZE_MISMATCH", ()),
    ]
    assert result.violations[-1].details == {"out_count": 5, "in_count": 7}
    assert all(v.code in MESSAGES and v.rule == "1−2−4" for v in result.violations)
    assert not result.ok
    assert dict(result.main) == MAIN_DECK
    assert dict(result.side) == SIDEBOARD


@pytest.mark.parametrize(
    ("out", "into", "code"),
    [
        ({"森原 さとみ": -4}, {"水姫": -4}, "SWAP_NOT_IN_DECK"),
        ({"森原 さとみ": 1, "水姫": -1}, {}, "SWAP_NOT_IN_DECK"),
        ({}, {"スワティ": 1, "深見まどか": -1}, "SWAP_NOT_IN_SIDEBOARD"),
    ],
)
def test_swap_negative_counts_are_refused(out, into, code):
    # A negative count would make cards appear from outside the registered lists.
    result = swap(out, into)
    assert not result.ok
    assert code in [v.code for v in result.violations]
    assert dict(result.main) == MAIN_DECK
    assert dict(result.side) == SIDEBOARD
