"""A character kept beside the deck sets the deck size by its printed range (AsuraSystem,
format citation 2−1); a character whose range is not recorded must not let a deck of any
size pass: the report says the range is unknown (issue #13, "Other games")."""

from __future__ import annotations

import datetime as dt

import pytest

from decks.engine.messages import MESSAGES
from decks.engine.model import CardPool

from .pools import card, check, deck, filler_lines, format_rules, labels

AS_OF = dt.date(2002, 6, 1)
AS_SETS = {"as-base": ("基本セット", ())}
FILLER = "格闘カード"
ASURA = "阿修羅"  # range 45–50
NAMELESS = "名無しの聖獣"  # no range recorded
HALF = "片翼の聖獣"  # only the lower bound recorded


def pool() -> CardPool:
    cards = [
        card(ASURA, "CHARACTER", "火", "as-base", sets=AS_SETS, deck_size_min=45, deck_size_max=50),
        card(NAMELESS, "CHARACTER", "水", "as-base", sets=AS_SETS),
        card(HALF, "CHARACTER", "地", "as-base", sets=AS_SETS, deck_size_min=40),
    ]
    cards += [
        card(f"{FILLER}{i:02d}", "FIGHTING", "", "as-base", sets=AS_SETS) for i in range(1, 30)
    ]
    return CardPool(cards, labels(AS_SETS))


def asura_check(text, **overrides):
    return check(text, format_rules("asura-system", **overrides), AS_OF, pool())


def fillers(total):
    return filler_lines(total, prefix=FILLER)


def test_leader_range_unknown_has_messages_in_both_languages():
    assert "LEADER_RANGE_UNKNOWN" in MESSAGES


@pytest.mark.parametrize("size", [1, 45, 100])
def test_character_without_a_range_allows_no_size_2_1(size):
    report = asura_check(deck(f"1 {NAMELESS}", *fillers(size)))
    assert report.legal is False
    assert report.codes == ["LEADER_RANGE_UNKNOWN"]
    violation = report.violations[0]
    assert violation.rule == "2−1"
    assert violation.cards == (NAMELESS,)
    assert violation.lines == (1,)
    assert violation.details == {"card": NAMELESS, "count": size, "minimum": None, "maximum": None}


def test_character_without_a_range_message_text():
    violation = asura_check(deck(f"1 {NAMELESS}", *fillers(45))).violations[0]
    assert violation.message_en == (
        f"The deck-size range printed on {NAMELESS} is not known (recorded: ? to ?), so the "
        "deck size cannot be checked; record the card's range first."
    )
    assert violation.message_ja == (
        f"〔{NAMELESS}〕に印刷されたデッキ枚数の範囲が分からないため（登録: ?〜?）、"
        "デッキ枚数を確認できません。先にカードの範囲を登録してください。"
    )


def test_character_with_half_a_range_is_unknown_and_still_checks_the_known_bound():
    report = asura_check(deck(f"1 {HALF}", *fillers(39)))
    # Sorted by line (the size problems have none), then by code.
    assert report.codes == ["DECK_TOO_SMALL", "LEADER_RANGE_UNKNOWN"]
    unknown = report.violations[1]
    assert unknown.details == {"card": HALF, "count": 39, "minimum": 40, "maximum": None}
    assert "(recorded: 40 to ?)" in unknown.message_en
    assert "（登録: 40〜?）" in unknown.message_ja


def test_format_bound_completes_a_half_range():
    # A bound the format gives stands in for the one the card lacks: the size is checked.
    report = asura_check(deck(f"1 {HALF}", *fillers(45)), max_deck_size=60)
    assert report.legal, report.violations


def test_format_bounds_stand_in_for_a_missing_range():
    report = asura_check(deck(f"1 {NAMELESS}", *fillers(61)), min_deck_size=40, max_deck_size=60)
    assert report.codes == ["DECK_TOO_LARGE"]


def test_character_with_a_range_is_unchanged_2_1():
    assert asura_check(deck(f"1 {ASURA}", *fillers(45))).legal
    assert asura_check(deck(f"1 {ASURA}", *fillers(44))).codes == ["DECK_TOO_SMALL"]


def test_no_character_reports_the_count_not_the_range():
    report = asura_check(deck(*fillers(45)))
    assert report.codes == ["LEADER_COUNT"]
