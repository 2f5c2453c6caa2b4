"""Deck checks at the table: the physical deck against the registered list after legal
sideboard swaps (CrossOver rule 1−2−4; the sideboard count of 2−1−3), and sideboard swaps
by card identity (4−2−6)."""

from __future__ import annotations

import datetime as dt

import pytest

from decks.engine.check import resolve
from decks.engine.deckcheck import (
    DECK_SIZE_CHANGED,
    EXTRA,
    MISSING,
    SIDEBOARD_SIZE_CHANGED,
    WRONG_PRINTING,
    compare_physical,
    counts_from_entries,
)
from decks.engine.parser import parse_decklist
from decks.engine.swap import check_swap

from .pools import (
    BAN_DAY,
    DAY_BEFORE_BAN,
    FEELIA,
    MADOKA,
    MIZUKI,
    MORIHARA,
    SWATI,
    TAKIGUCHI,
    crossover_pool,
    crossover_rules,
)

MAIN = {MORIHARA: 4, MIZUKI: 3, "汎用イベント01": 43}
SIDE = {MADOKA: 2, SWATI: 5}


def compare(counted_main, counted_side, main=MAIN, side=SIDE, **options):
    rules = crossover_rules()
    return compare_physical(main, side, counted_main, counted_side, rules=rules, **options)


# --- check_swap uses card identity (1−2−4 with 4−2−6) ------------------------------------


def test_swap_1_2_4_matches_names_by_identity_not_spelling():
    # Registered as "森原 さとみ"; the judge writes it without the space, full width digits
    # and spaces elsewhere change nothing either.
    result = check_swap(crossover_rules(), MAIN, SIDE, {"森原さとみ": 2}, {"ｽﾜﾃｨ": 2})
    assert result.ok
    assert dict(result.main) == {MORIHARA: 2, MIZUKI: 3, "汎用イベント01": 43, SWATI: 2}
    assert dict(result.side) == {MADOKA: 2, SWATI: 3, MORIHARA: 2}


def test_swap_1_2_4_identity_counts_every_spelling_of_a_card_together():
    # Two spellings of one card in the registered deck are one card with 4 copies:
    # 4 may go out, 5 may not.
    main = {"森原 さとみ": 2, "森原さとみ": 2, "汎用イベント01": 46}
    ok = check_swap(crossover_rules(), main, SIDE, {"森原　さとみ": 4}, {SWATI: 4})
    assert ok.ok
    assert "森原 さとみ" not in ok.main
    refused = check_swap(crossover_rules(), main, SIDE, {"森原さとみ": 5}, {SWATI: 5})
    assert [v.code for v in refused.violations] == ["SWAP_NOT_IN_DECK"]
    assert refused.violations[0].rule == "1−2−4"
    assert refused.violations[0].details == {"name": "森原 さとみ", "count": 5, "available": 4}


def test_swap_1_2_4_bracketed_name_is_the_same_card():
    result = check_swap(crossover_rules(), MAIN, SIDE, {"〔水姫〕": 1}, {"『深見まどか』": 1})
    assert result.ok
    assert result.main[MIZUKI] == 2
    assert result.main[MADOKA] == 1


# --- compare_physical: the deck as registered, or after legal swaps (1−2−4) --------------


def test_deck_check_1_2_4_exactly_the_registered_list_is_ok():
    result = compare(MAIN, SIDE)
    assert result.ok
    assert result.discrepancies == ()
    assert (result.registered_main_count, result.registered_side_count) == (50, 7)
    assert (result.counted_main_count, result.counted_side_count) == (50, 7)
    assert result.swapped_in == ()
    assert result.swapped_out == ()


def test_deck_check_1_2_4_legal_swap_is_ok_and_lists_the_swaps():
    # 2 水姫 out, 1 深見まどか and 1 スワティ in from the registered sideboard.
    counted_main = {MORIHARA: 4, MIZUKI: 1, "汎用イベント01": 43, MADOKA: 1, SWATI: 1}
    counted_side = {MADOKA: 1, SWATI: 4, MIZUKI: 2}
    result = compare(counted_main, counted_side)
    assert result.ok
    assert [(m.name, m.count) for m in result.swapped_in] == [(SWATI, 1), (MADOKA, 1)]
    assert [(m.name, m.count) for m in result.swapped_out] == [(MIZUKI, 2)]


def test_deck_check_1_2_4_names_are_matched_by_identity():
    counted_main = {"森原さとみ": 4, "水姫": 3, "汎用イベント０１": 43}
    counted_side = {"深見 まどか": 2, "ｽﾜﾃｨ": 5}
    assert compare(counted_main, counted_side).ok


def test_deck_check_1_2_4_swap_that_changes_the_deck_size():
    # One sideboard card added to the deck without taking one out: deck 51, sideboard 6.
    counted_main = {**MAIN, SWATI: 1}
    counted_side = {MADOKA: 2, SWATI: 4}
    result = compare(counted_main, counted_side)
    assert not result.ok
    assert result.codes == [DECK_SIZE_CHANGED, SIDEBOARD_SIZE_CHANGED]
    size = result.discrepancies[0]
    assert size.rule == "1−2−4"
    assert size.details == {"counted": 51, "registered": 50}
    assert size.message_en == (
        "The deck has 51 cards, but the registered deck has 50: sideboard swaps must keep "
        "the deck size."
    )
    assert size.message_ja == (
        "デッキが51枚ですが、登録したデッキは50枚です。"
        "サイドボードとの交換でデッキ枚数を変えることはできません。"
    )
    side = result.discrepancies[1]
    assert side.details == {"counted": 6, "registered": 7}
    assert side.message_en == "The sideboard has 6 cards, but the registered sideboard has 7."
    assert side.message_ja == "サイドボードが6枚ですが、登録したサイドボードは7枚です。"


def test_deck_check_1_2_4_card_swapped_in_that_the_sideboard_does_not_hold():
    # A 4th 水姫 in the deck for an 汎用イベント01: the registered sideboard has no 水姫.
    counted_main = {MORIHARA: 4, MIZUKI: 4, "汎用イベント01": 42}
    counted_side = dict(SIDE)
    result = compare(counted_main, counted_side)
    assert result.codes == [EXTRA, MISSING]
    extra, missing = result.discrepancies
    assert (missing.name, missing.count, missing.printing) == ("汎用イベント01", 1, None)
    assert (extra.name, extra.count) == (MIZUKI, 1)
    assert extra.details == {
        "registered_main": 3,
        "registered_side": 0,
        "found_main": 4,
        "found_side": 0,
    }
    assert extra.message_en == (
        "Extra: 1 × 水姫 was found but is not registered (registered: deck 3, sideboard 0; "
        "found: deck 4, sideboard 0)."
    )
    assert extra.message_ja == (
        "余分: 〔水姫〕1枚が見つかりましたが、登録されていません"
        "（登録: デッキ3枚・サイドボード0枚、確認: デッキ4枚・サイドボード0枚）。"
    )
    assert missing.message_en == (
        "Missing: 1 × 汎用イベント01 is registered but was not found (registered: deck 43, "
        "sideboard 0; found: deck 42, sideboard 0)."
    )
    assert missing.rule == "1−2−4"


def test_deck_check_1_2_4_missing_card_and_unregistered_card():
    counted_main = {MORIHARA: 4, MIZUKI: 2, FEELIA: 1, "汎用イベント01": 43}
    result = compare(counted_main, dict(SIDE))
    # Same deck size: only the cards differ.
    assert result.codes == [MISSING, EXTRA]
    assert [(d.code, d.name, d.count) for d in result.discrepancies] == [
        (MISSING, MIZUKI, 1),
        (EXTRA, FEELIA, 1),
    ]


def test_deck_check_1_2_4_every_problem_at_once_in_a_stable_order():
    counted_main = {MORIHARA: 3, "汎用イベント01": 43, FEELIA: 2}
    counted_side = {SWATI: 5}
    result = compare(counted_main, counted_side)
    assert [(d.code, d.name, d.count) for d in result.discrepancies] == [
        (DECK_SIZE_CHANGED, "", 0),
        (SIDEBOARD_SIZE_CHANGED, "", 0),
        (MISSING, MORIHARA, 1),
        (MISSING, MIZUKI, 3),
        (MISSING, MADOKA, 2),
        (EXTRA, FEELIA, 2),
    ]
    assert all(d.rule == "1−2−4" for d in result.discrepancies)
    assert result.messages("ja")[3].startswith("不足: 〔水姫〕3枚")
    assert result.messages("en")[5].startswith("Extra: 2 × 狡猾フィーリア")


def test_deck_check_wrong_printing():
    # 水姫 registered as the base set printing; the judge finds one βedition copy.
    main = {(MORIHARA, "base"): 4, (MIZUKI, "base"): 3, "汎用イベント01": 43}
    counted = {(MORIHARA, "base"): 4, (MIZUKI, "base"): 2, (MIZUKI, "beta"): 1,
               "汎用イベント01": 43}  # fmt: skip
    labels = {"base": "基本セット", "beta": "βedition"}
    result = compare(counted, SIDE, main=main, printing_labels=labels)
    assert result.codes == [WRONG_PRINTING]
    wrong = result.discrepancies[0]
    assert (wrong.name, wrong.count, wrong.printing, wrong.found_printing) == (
        MIZUKI,
        1,
        "base",
        "beta",
    )
    assert wrong.message_en == (
        "Wrong printing: 1 × 水姫 is the βedition printing; the 基本セット printing is registered."
    )
    assert wrong.message_ja == "版違い: 〔水姫〕1枚がβedition版です。登録は基本セット版です。"


def test_deck_check_printing_unknown_on_either_side_matches_any():
    # Registered without a printing: any printing found is fine; counted without one
    # matches the registered printing.
    main = {(MORIHARA, "base"): 4, MIZUKI: 3, "汎用イベント01": 43}
    counted = {MORIHARA: 4, (MIZUKI, "beta"): 3, ("汎用イベント01", "first"): 43}
    assert compare(counted, SIDE, main=main).ok


def test_deck_check_wrong_printing_and_missing_copies_of_the_same_card():
    main = {(MIZUKI, "base"): 3, "汎用イベント01": 47}
    counted = {(MIZUKI, "beta"): 1, "汎用イベント01": 47}
    result = compare(counted, {}, main=main, side={})
    assert [(d.code, d.count, d.printing, d.found_printing) for d in result.discrepancies] == [
        (DECK_SIZE_CHANGED, 0, None, None),
        (WRONG_PRINTING, 1, "base", "beta"),
        (MISSING, 2, "base", None),
    ]
    assert result.discrepancies[2].message_en.startswith("Missing: 2 × 水姫 (base) is")
    assert result.discrepancies[2].message_ja.startswith("不足: 〔水姫〕（base版）2枚")


def test_deck_check_no_sideboard_registered_2_1_3():
    # A sideboard of 0 cards is allowed (1−2−4); finding one is a changed sideboard count.
    result = compare(MAIN, {SWATI: 1}, side={})
    assert result.codes == [SIDEBOARD_SIZE_CHANGED, EXTRA]


def test_deck_check_zero_counts_are_ignored_and_negative_refused():
    assert compare({**MAIN, FEELIA: 0}, SIDE).ok
    with pytest.raises(ValueError, match="negative count"):
        compare({**MAIN, FEELIA: -1}, SIDE)


def test_deck_check_as_dict_carries_both_languages_and_the_chosen_one():
    result = compare({**MAIN, SWATI: 1}, {MADOKA: 2, SWATI: 4})
    data = result.as_dict(language="ja")
    assert data["ok"] is False
    assert data["registered_main_count"] == 50
    assert data["counted_main_count"] == 51
    assert data["swapped_in"] == [{"name": SWATI, "count": 1}]
    assert data["swapped_out"] == []
    first = data["discrepancies"][0]
    assert first["code"] == DECK_SIZE_CHANGED
    assert first["message"] == first["message_ja"]
    assert first["rule"] == "1−2−4"
    assert "message" not in result.as_dict()["discrepancies"][0]


def test_deck_check_from_resolved_decklists():
    pool, rules = crossover_pool(), crossover_rules()
    registered = "\n".join(
        ["4 森原さとみ [基本]", "3 水姫", "43 汎用イベント01", "サイドボード", "2 深見まどか",
         "5 スワティ"]
    )  # fmt: skip
    counted = "\n".join(
        ["4 〔森原 さとみ〕", "2 水姫", "1 スワティ", "43 汎用イベント01", "SB: 2 深見まどか",
         "SB: 4 スワティ", "SB: 1 水姫"]
    )  # fmt: skip
    reg_entries, problems = resolve(parse_decklist(registered), rules, pool)
    assert problems == []
    seen_entries, problems = resolve(parse_decklist(counted), rules, pool)
    assert problems == []
    reg_main, reg_side = counts_from_entries(reg_entries)
    assert reg_main[(MORIHARA, "base")] == 4
    assert reg_side == {(MADOKA, None): 2, (SWATI, None): 5}
    result = compare_physical(reg_main, reg_side, *counts_from_entries(seen_entries), rules=rules)
    assert result.ok
    assert [(m.name, m.count) for m in result.swapped_in] == [(SWATI, 1)]
    assert [(m.name, m.count) for m in result.swapped_out] == [(MIZUKI, 1)]


# --- review fixes (#13) ------------------------------------------------------------------


def test_deck_check_1_2_1_counted_beta_printing_banned_on_the_event_day():
    # Registered "3 水姫" without a printing; the judge finds βedition copies, which are
    # banned from 2002-04-01 (rule 1−2−1): not OK, whatever the registered line accepts.
    counted_main = {MORIHARA: 4, (MIZUKI, "beta"): 3, "汎用イベント01": 43}
    result = compare(counted_main, SIDE, as_of=BAN_DAY, printing_labels={"beta": "βedition"})
    assert not result.ok
    assert result.codes == ["COUNTED_BANNED"]
    [item] = result.discrepancies
    assert item.rule == "1−2−1"
    assert (item.name, item.count, item.found_printing) == (MIZUKI, 3, "beta")
    assert item.message_en == (
        "3 水姫 counted as βedition printings, which are banned on 2002-04-01 (rule 1−2−1)."
    )
    assert item.message_ja == (
        "〔水姫〕3枚がβedition版でした。2002-04-01時点で禁止されている版です（ルール1−2−1）。"
    )
    assert item.as_dict()["details"]["as_of"] == "2002-04-01"


def test_deck_check_1_2_1_one_banned_copy_is_singular_and_in_the_sideboard_too():
    counted_side = {MADOKA: 1, (MADOKA, "beta"): 1, SWATI: 5}
    result = compare(MAIN, counted_side, as_of=BAN_DAY, printing_labels={"beta": "βedition"})
    assert result.codes == ["COUNTED_BANNED"]
    assert result.discrepancies[0].message_en == (
        "1 深見まどか counted as βedition printing, which is banned on 2002-04-01 (rule 1−2−1)."
    )


def test_deck_check_1_2_1_beta_printing_before_the_ban_is_ok():
    counted_main = {MORIHARA: 4, (MIZUKI, "beta"): 3, "汎用イベント01": 43}
    assert compare(counted_main, SIDE, as_of=DAY_BEFORE_BAN).ok
    # Without the event's day nothing is judged about printings (as before).
    assert compare(counted_main, SIDE).ok


def test_deck_check_1_2_1_counted_printing_from_a_set_not_legal_yet():
    # THIRD EXPANSION is legal from 2002-04-02 in the crossover format.
    main = {MORIHARA: 4, TAKIGUCHI: 2, "汎用イベント01": 44}
    counted_main = {MORIHARA: 4, (TAKIGUCHI, "third"): 2, "汎用イベント01": 44}
    result = compare(counted_main, SIDE, main=main, as_of=BAN_DAY)
    assert result.codes == ["COUNTED_NOT_LEGAL"]
    assert result.discrepancies[0].message_en == (
        "2 滝口 洋介 counted as third printings, which are not legal on 2002-04-01 (rule 1−2−1)."
    )
    assert compare(counted_main, SIDE, main=main, as_of=dt.date(2002, 4, 2)).ok


def test_deck_check_1_2_4_extra_card_is_not_a_swap():
    # A card on neither registered list found in the deck is an extra card,
    # never "swapped into the deck"; only cards from the registered sideboard are swaps.
    main = {MORIHARA: 4, "汎用イベント01": 46}
    side = {SWATI: 5}
    counted_main = {MORIHARA: 4, "汎用イベント01": 42, MIZUKI: 4}
    counted_side = {SWATI: 5}
    result = compare(counted_main, counted_side, main=main, side=side)
    assert sorted(result.codes) == [EXTRA, MISSING]
    assert result.swapped_in == ()
    assert result.swapped_out == ()
    # Half from the sideboard, half from nowhere: 1 swapped in, 1 extra.
    counted_main = {MORIHARA: 4, "汎用イベント01": 44, SWATI: 2}
    result = compare(counted_main, {SWATI: 4}, main=main, side=side)
    assert [(m.name, m.count) for m in result.swapped_in] == [(SWATI, 1)]
    assert [(m.name, m.count) for m in result.swapped_out] == []


def test_deck_check_1_2_4_sizes_of_one_card_are_singular():
    result = compare(MAIN, {MADOKA: 1}, side={MADOKA: 2})
    assert result.discrepancies[0].message_en == (
        "The sideboard has 1 card, but the registered sideboard has 2."
    )
