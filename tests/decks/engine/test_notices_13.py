"""Notices a judge needs, the navigator-only exemption and dated set legality (issue #13),
checked by the engine without Django."""

import dataclasses
import datetime as dt

from decks.engine.model import CardPool, FormatRules
from tests.decks.engine.pools import (
    BAN_DAY,
    DAY_BEFORE_BAN,
    HIKARU,
    MADOKA,
    MIZUKI,
    TAKIGUCHI,
    card,
    check,
    crossover_cards,
    crossover_pool,
    crossover_rules,
    deck,
    filler_lines,
    labels,
)

THIRD_LEGAL_FROM = dt.date(2002, 4, 2)

# --- βedition printings: legal by name, but a judge checks the cards (1−2−1, 1−2−2) ----

# What rule 1−2−2 gives a judge to look at (issue #24).
BETA_LOOK_EN = (
    " A βedition card has “βedition” in white letters under the title logo on its back (1−2−2)."
)
BETA_LOOK_JA = (
    "β版のカードは、うら面のタイトルロゴの下に白い文字で「βedition」と表記されています（1−2−2）。"
)


def test_1_2_1_name_whose_beta_printing_is_banned_is_legal_with_a_notice():
    report = check(deck("4 水姫", *filler_lines(46)), as_of=BAN_DAY)
    assert report.legal
    assert report.violations == ()
    assert [notice.code for notice in report.notices] == ["BETA_PRINTING_CHECK"]
    notice = report.notices[0]
    assert notice.cards == (MIZUKI,)
    assert notice.lines == (1,)
    assert notice.message_en == (
        "Check that these cards are not βedition printings, which are banned: 水姫 (line 1)."
        + BETA_LOOK_EN
    )
    assert notice.message_ja == (
        "次のカードがβ版でないことを確認してください（β版は禁止カードです）: 〔水姫〕（1行目）。"
        + BETA_LOOK_JA
    )


def test_1_2_1_beta_notice_names_every_card_and_line_once():
    text = deck("2 水姫", "4 深見まどか", *filler_lines(44), side=["2 水姫"])
    report = check(text, as_of=BAN_DAY)
    assert report.legal
    assert [notice.code for notice in report.notices] == ["BETA_PRINTING_CHECK"]
    notice = report.notices[0]
    assert notice.cards == (MIZUKI, MADOKA)
    assert notice.lines == (1, 2, 15)
    assert notice.message_en == (
        "Check that these cards are not βedition printings, which are banned: "
        "水姫 (lines 1, 15); 深見まどか (line 2)." + BETA_LOOK_EN
    )
    assert notice.message_ja == (
        "次のカードがβ版でないことを確認してください（β版は禁止カードです）: "
        "〔水姫〕（1, 15行目）、〔深見まどか〕（2行目）。" + BETA_LOOK_JA
    )


def test_1_2_1_no_beta_notice_before_the_ban():
    report = check(deck("4 水姫", *filler_lines(46)), as_of=DAY_BEFORE_BAN)
    assert report.legal
    assert report.notices == ()


def test_1_2_1_no_beta_notice_when_the_printing_is_named():
    report = check(deck("4 水姫 [base]", *filler_lines(46)), as_of=BAN_DAY)
    assert report.legal
    assert report.notices == ()


def test_1_2_1_named_beta_printing_is_banned_not_a_notice():
    report = check(deck("4 水姫 (β)", *filler_lines(46)), as_of=BAN_DAY)
    assert report.codes == ["BANNED"]
    assert report.notices == ()


def test_1_2_1_card_without_a_banned_printing_gets_no_beta_notice():
    report = check(deck("4 森原さとみ", *filler_lines(46)), as_of=BAN_DAY)
    assert report.legal
    assert report.notices == ()


def test_beta_notice_appears_in_the_report_data_in_both_languages():
    report = check(deck("4 水姫", *filler_lines(46)), as_of=BAN_DAY)
    data = report.as_dict(language="ja")
    assert data["legal"] is True
    assert data["notices"] == [
        {
            "code": "BETA_PRINTING_CHECK",
            "message_en": report.notices[0].message_en,
            "message_ja": report.notices[0].message_ja,
            "message": report.notices[0].message_ja,
            "cards": [MIZUKI],
            "lines": [1],
        }
    ]


# --- navigator-only exemption (1−2−3: only common navigators in any number) -------------

# A character flagged "any number" by mistake (an import error): rule 1−2−3 exempts only
# common navigators.
WRONGLY_UNLIMITED = "誤フラグのキャラクター"


def _pool_with_wrong_flag() -> CardPool:
    wrong = card(WRONGLY_UNLIMITED, "CHARACTER", "火", "base", unlimited=True)
    return CardPool([*crossover_cards(), wrong], labels())


def test_1_2_3_crossover_honours_the_any_number_mark_only_for_navigators():
    assert crossover_rules().exempt_card_type == "NAVIGATOR"
    report = check(
        deck(f"6 {WRONGLY_UNLIMITED}", *filler_lines(44)),
        as_of=BAN_DAY,
        pool=_pool_with_wrong_flag(),
    )
    assert report.codes == ["TOO_MANY_COPIES"]
    violation = report.violations[0]
    assert violation.rule == "1−2−3"
    assert violation.cards == (WRONGLY_UNLIMITED,)
    assert violation.details == {"count": 6, "limit": 4}


def test_1_2_3_wrongly_flagged_card_counts_across_deck_and_sideboard():
    text = deck(f"4 {WRONGLY_UNLIMITED}", *filler_lines(46), side=[f"1 {WRONGLY_UNLIMITED}"])
    report = check(text, as_of=BAN_DAY, pool=_pool_with_wrong_flag())
    assert report.codes == ["TOO_MANY_COPIES"]
    assert report.violations[0].details == {"count": 5, "limit": 4}


def test_1_2_3_common_navigator_still_in_any_number():
    report = check(deck("42 スワティ", *filler_lines(8)), as_of=BAN_DAY)
    assert report.legal


def test_1_2_3_format_without_a_type_honours_the_mark_on_any_card():
    rules = crossover_rules(exempt_card_type=None)
    report = check(
        deck(f"6 {WRONGLY_UNLIMITED}", *filler_lines(44)),
        rules,
        as_of=BAN_DAY,
        pool=_pool_with_wrong_flag(),
    )
    assert report.legal


def test_exempt_needs_the_format_switch_the_mark_and_the_type():
    navigator = card("ナビ", "NAVIGATOR", "空", "base", unlimited=True)
    unmarked = card("ナビ2", "NAVIGATOR", "空", "base")
    character = card("キャラ", "CHARACTER", "火", "base", unlimited=True)
    rules = crossover_rules()
    assert rules.exempt(navigator) is True
    assert rules.exempt(unmarked) is False
    assert rules.exempt(character) is False
    assert dataclasses.replace(rules, exempt_unlimited=False).exempt(navigator) is False
    assert dataclasses.replace(rules, exempt_card_type=None).exempt(character) is True


# --- dated set legality (1−2−1: the legal pool as of a date) ----------------------------


def test_1_2_1_builtin_crossover_lists_third_expansion_from_after_the_v2_02_list():
    rules = crossover_rules()
    assert "third" in rules.legal_sets
    assert rules.legal_from == {"third": THIRD_LEGAL_FROM}
    assert "third" not in rules.legal_sets_on(BAN_DAY)
    assert "third" in rules.legal_sets_on(THIRD_LEGAL_FROM)
    assert rules.legal_sets_on(BAN_DAY) == frozenset(
        {"second", "first", "setup", "base", "beta", "promo"}
    )


def test_1_2_1_third_expansion_card_refused_on_2002_04_01_accepted_after():
    text = deck("4 桜庭ひかる", *filler_lines(46))
    before = check(text, as_of=BAN_DAY)
    assert before.codes == ["SET_NOT_LEGAL"]
    assert before.violations[0].cards == (HIKARU,)
    assert before.violations[0].rule == "1−2−1"
    assert check(text, as_of=THIRD_LEGAL_FROM).legal


def test_1_2_1_named_third_printing_refused_before_accepted_after():
    text = deck("4 滝口洋介 [third]", *filler_lines(46))
    before = check(text, as_of=BAN_DAY)
    assert before.codes == ["PRINTING_NOT_LEGAL"]
    assert before.violations[0].cards == (TAKIGUCHI,)
    assert before.violations[0].details == {"set": "third", "legal_from": "2002-04-02"}
    assert check(text, as_of=THIRD_LEGAL_FROM).legal


def test_1_2_1_card_in_an_old_and_a_new_set_is_legal_before_through_the_old():
    report = check(deck("4 滝口洋介", *filler_lines(46)), as_of=BAN_DAY)
    assert report.legal


def test_legal_sets_on_without_dates_is_the_list_itself():
    rules = crossover_rules(legal_from={})
    assert rules.legal_sets_on(dt.date(1999, 1, 1)) is rules.legal_sets


def test_legal_sets_on_every_set_stays_every_set():
    rules = crossover_rules(legal_sets=None)
    assert rules.legal_sets_on(BAN_DAY) is None


def test_legal_sets_on_is_cached_per_day_and_fresh_after_replace():
    rules = crossover_rules()
    assert rules.legal_sets_on(BAN_DAY) is rules.legal_sets_on(BAN_DAY)
    later = dataclasses.replace(rules, legal_from={"third": dt.date(2001, 1, 1)})
    assert "third" in later.legal_sets_on(BAN_DAY)
    assert "third" not in rules.legal_sets_on(BAN_DAY)


def test_legal_from_a_date_the_set_is_legal_on_that_day_not_the_day_before():
    rules = FormatRules(
        slug="dated",
        name="Dated",
        game="crossover",
        legal_sets=frozenset({"first", "third"}),
        legal_from={"third": dt.date(2001, 9, 1)},
    )
    assert rules.legal_sets_on(dt.date(2001, 8, 31)) == frozenset({"first"})
    assert rules.legal_sets_on(dt.date(2001, 9, 1)) == frozenset({"first", "third"})
    pool = crossover_pool()
    text = deck("4 桜庭ひかる", *filler_lines(46))
    assert check(text, rules, dt.date(2001, 8, 31), pool).codes == ["SET_NOT_LEGAL"]
    assert check(text, rules, dt.date(2001, 9, 1), pool).legal
