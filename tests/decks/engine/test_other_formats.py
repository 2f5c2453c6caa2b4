"""The other built-in formats: Monster Collection and AsuraSystem (issue 3)."""

from __future__ import annotations

import datetime as dt

import pytest

from cardpool.names import name_key
from decks.engine.model import CardPool

from .pools import card, check, deck, filler_lines, format_rules, labels

AS_OF = dt.date(2002, 6, 1)

# --- Monster Collection ---------------------------------------------------------------------

MC_SETS = {
    "mc-base": ("基本セット", ("基本",)),
    "mc-kodai": ("古代帝国の遺産", ()),
    "mc-heart": ("ハート", ("♥",)),
}
MC_FILLER = "モンコレ地形"
GOBLIN = "ゴブリン"
SLIME = "スライム"
OOZE = "ウーズ"


def mc_pool() -> CardPool:
    cards = [
        card(GOBLIN, "MONSTER", "炎", "mc-base", "mc-heart", sets=MC_SETS),
        card(SLIME, "MONSTER", "水", "mc-base", sets=MC_SETS),
        card(OOZE, "MONSTER", "水", "mc-kodai", sets=MC_SETS),
    ]
    cards += [
        card(f"{MC_FILLER}{i:02d}", "TERRAIN", "", "mc-base", sets=MC_SETS) for i in range(1, 30)
    ]
    return CardPool(cards, labels(MC_SETS))


def mc_check(text, **overrides):
    return check(text, format_rules("monster-collection", **overrides), AS_OF, mc_pool())


def mc_filler(total):
    return filler_lines(total, prefix=MC_FILLER, per_name=3)


def test_monster_collection_rules_follow_the_shipped_data():
    rules = format_rules("monster-collection")
    assert (rules.min_deck_size, rules.max_deck_size, rules.copy_limit) == (50, 50, 3)
    assert rules.exempt_unlimited is False
    assert rules.sideboard_max == 0
    assert rules.legal_sets is None
    assert rules.bans == ()
    assert rules.leader_type is None


def test_monster_collection_exactly_50_cards():
    report = mc_check(deck("3 ゴブリン", *mc_filler(47)))
    assert report.legal, report.violations
    assert report.main_count == 50


def test_monster_collection_49_cards_is_too_small():
    report = mc_check(deck("3 ゴブリン", *mc_filler(46)))
    assert report.codes == ["DECK_TOO_SMALL"]
    assert report.violations[0].details == {"count": 49, "minimum": 50}
    assert report.violations[0].rule == ""


def test_monster_collection_51_cards_is_too_large():
    report = mc_check(deck("3 ゴブリン", *mc_filler(48)))
    assert report.codes == ["DECK_TOO_LARGE"]
    violation = report.violations[0]
    assert violation.details == {"count": 51, "maximum": 50}
    assert violation.message_en == "The deck has 51 cards; at most 50 are allowed."
    assert violation.message_ja == "デッキが51枚です。50枚までです。"


def test_monster_collection_three_per_name():
    report = mc_check(deck("4 ゴブリン", *mc_filler(46)))
    assert report.codes == ["TOO_MANY_COPIES"]
    violation = report.violations[0]
    assert violation.rule == "1-2-1"
    assert violation.cards == (GOBLIN,)
    assert violation.lines == (1,)
    assert violation.details == {"count": 4, "limit": 3}
    assert violation.message_en == (
        "4 copies of ゴブリン in deck and sideboard together; at most 3."
    )


@pytest.mark.parametrize("heart", ["(ハート)", "[mc-heart]", "（♥）"])
def test_monster_collection_heart_printing_counts_with_the_normal_one(heart):
    report = mc_check(deck("2 ゴブリン [基本]", f"2 ゴブリン {heart}", *mc_filler(46)))
    assert report.codes == ["TOO_MANY_COPIES"]
    violation = report.violations[0]
    assert violation.cards == (GOBLIN,)
    assert violation.lines == (1, 2)
    assert violation.details == {"count": 4, "limit": 3}
    legal = mc_check(deck("2 ゴブリン [基本]", f"1 ゴブリン {heart}", *mc_filler(47)))
    assert legal.legal, legal.violations


def test_monster_collection_copy_group_of_two_names_counts_together():
    group = frozenset({name_key(SLIME), name_key(OOZE)})
    text = deck("2 スライム", "2 ウーズ", *mc_filler(46))
    assert mc_check(text).legal
    report = mc_check(text, copy_groups=(group,))
    assert report.codes == ["TOO_MANY_COPIES"]
    violation = report.violations[0]
    assert violation.cards == (SLIME, OOZE)
    assert violation.lines == (1, 2)
    assert violation.details == {"count": 4, "limit": 3}
    assert violation.message_en == (
        "4 copies of スライム・ウーズ in deck and sideboard together; at most 3."
    )
    assert mc_check(deck("2 スライム", "1 ウーズ", *mc_filler(47)), copy_groups=(group,)).legal


def test_monster_collection_has_no_sideboard():
    report = mc_check(deck("3 ゴブリン", *mc_filler(47), side=["1 スライム", "1 ウーズ"]))
    assert report.sideboard_count == 2
    assert report.codes == ["SIDEBOARD_NOT_ALLOWED"]
    violation = report.violations[0]
    assert violation.lines == (19, 20)
    assert violation.details == {"count": 2, "minimum": 1, "maximum": 0}
    assert violation.message_en == ("This format has no sideboard, but 2 cards are listed in one.")
    assert violation.message_ja == "このフォーマットではサイドボードを使えませんが、2枚あります。"


def test_monster_collection_sideboard_copies_count_towards_the_limit():
    report = mc_check(deck("3 ゴブリン", *mc_filler(47), side=["1 ゴブリン"]))
    assert report.codes == ["TOO_MANY_COPIES", "SIDEBOARD_NOT_ALLOWED"]


# --- AsuraSystem ----------------------------------------------------------------------------

AS_SETS = {"as-base": ("基本セット", ())}
AS_FILLER = "格闘カード"
ASURA = "阿修羅"
RAKSHA = "羅刹"


def asura_pool() -> CardPool:
    cards = [
        card(ASURA, "CHARACTER", "火", "as-base", sets=AS_SETS, deck_size_min=45, deck_size_max=50),
        card(
            RAKSHA, "CHARACTER", "風", "as-base", sets=AS_SETS, deck_size_min=40, deck_size_max=44
        ),
    ]
    cards += [
        card(f"{AS_FILLER}{i:02d}", "FIGHTING", "", "as-base", sets=AS_SETS) for i in range(1, 20)
    ]
    return CardPool(cards, labels(AS_SETS))


def asura_check(text, **overrides):
    return check(text, format_rules("asura-system", **overrides), AS_OF, asura_pool())


def as_filler(total):
    return filler_lines(total, prefix=AS_FILLER)


def test_asura_rules_follow_the_shipped_data():
    rules = format_rules("asura-system")
    assert (rules.min_deck_size, rules.max_deck_size, rules.copy_limit) == (None, None, 4)
    assert (rules.leader_type, rules.leader_count) == ("CHARACTER", 1)
    assert rules.sideboard_max == 0


@pytest.mark.parametrize("size", [45, 47, 50])
def test_asura_deck_size_inside_the_character_range(size):
    report = asura_check(deck("1 阿修羅", *as_filler(size)))
    assert report.legal, report.violations
    # The character sits beside the deck: not counted, not in the counts by type.
    assert report.main_count == size
    assert report.by_type == {"FIGHTING": size}


def test_asura_deck_below_the_character_range():
    report = asura_check(deck("1 阿修羅", *as_filler(44)))
    assert report.main_count == 44
    assert report.codes == ["DECK_TOO_SMALL"]
    violation = report.violations[0]
    assert violation.rule == "2−1"
    assert violation.details == {"count": 44, "minimum": 45}


def test_asura_deck_above_the_character_range():
    report = asura_check(deck("1 阿修羅", *as_filler(51)))
    assert report.codes == ["DECK_TOO_LARGE"]
    assert report.violations[0].rule == "2−1"
    assert report.violations[0].details == {"count": 51, "maximum": 50}


def test_asura_range_comes_from_the_chosen_character():
    assert asura_check(deck("1 羅刹", *as_filler(44))).legal
    report = asura_check(deck(*as_filler(45), "1 羅刹"))
    assert report.codes == ["DECK_TOO_LARGE"]
    assert report.violations[0].details == {"count": 45, "maximum": 44}


def test_asura_no_character_is_a_leader_count_violation():
    report = asura_check(deck(*as_filler(45)))
    assert report.codes == ["LEADER_COUNT"]
    violation = report.violations[0]
    assert violation.rule == "2−1"
    assert violation.cards == ()
    assert violation.details == {"expected": 1, "count": 0}
    assert violation.message_en == ("The deck needs exactly 1 CHARACTER card beside it; 0 listed.")
    assert violation.message_ja == "CHARACTERカードはちょうど1枚必要ですが、0枚あります。"


@pytest.mark.parametrize("leaders", [["1 阿修羅", "1 羅刹"], ["2 阿修羅"]])
def test_asura_two_characters_is_a_leader_count_violation(leaders):
    report = asura_check(deck(*leaders, *as_filler(45)))
    assert report.main_count == 45
    assert report.codes == ["LEADER_COUNT"]
    violation = report.violations[0]
    assert violation.details == {"expected": 1, "count": 2}
    assert violation.lines == tuple(range(1, len(leaders) + 1))
    assert set(violation.cards) == {name.split(" ")[1] for name in leaders}


def test_asura_four_per_name():
    report = asura_check(deck("1 阿修羅", "5 格闘カード01", *as_filler(45)[1:]))
    assert report.codes == ["TOO_MANY_COPIES"]
    violation = report.violations[0]
    assert violation.rule == "2−1"
    assert violation.details == {"count": 5, "limit": 4}
    assert violation.cards == ("格闘カード01",)


def test_asura_has_no_sideboard():
    report = asura_check(deck("1 阿修羅", *as_filler(45), side=["1 格闘カード19"]))
    assert report.codes == ["SIDEBOARD_NOT_ALLOWED"]
