"""Issue 24, "every way players write a list": separator and layout lines, group headings
with counts, "no sideboard" written out, counts after the name with × and 枚, a sideboard
heading with its first card on the same line, invisible lead characters, and the message
for a line that still cannot be read. Plain Python (the engine's pools, no database); the
same lists through the page, the API, check_deck and the registration form are in
tests/decks/test_entry_points_24.py.

Rulebook sections these forms serve: 1−2−3 (a deck of 50 cards or more, at most 4 of a
name counting the sideboard: every card must be counted where the player put it), 1−2−4
and 2−1−3 (a sideboard may have 0 cards: "none" is a sideboard of 0, not a card), 4−2−8 (the
card types CHARACTER, NAVIGATOR, SPELL, EVENT, ITEM: what group headings name).
"""

from __future__ import annotations

import pytest

from decks.engine.model import MAIN, SIDE
from decks.engine.parser import HeadingCount, SectionHeading, heading_counts, parse_decklist

from .engine.pools import MADOKA, MIZUKI, check, filler_lines, filler_name

# NFKC makes "森原 さとみ" and "森原さとみ" differ only by the space; the pool knows both.
SATOMI = "森原さとみ"


def read(text: str) -> list[tuple[int, int, str, str]]:
    parsed = parse_decklist(text)
    assert parsed.problems == ()
    return [(d.line, d.count, d.name, d.section) for d in parsed.lines]


# --- separator and layout lines (1−2−3: they add no card) --------------------------------


@pytest.mark.parametrize(
    "rule",
    ["−−−−", "----", "====", "・・・", "━━━━━", "＝＝＝", "ーーーー", "＊＊＊", "- - -", "──"],
)
def test_parser_24_1_2_3_separator_lines_are_skipped(rule):
    parsed = parse_decklist(f"4 {SATOMI}\n{rule}\n2 {MIZUKI}\n")
    assert parsed.problems == ()
    assert parsed.headings == ()
    assert [(d.line, d.count, d.name) for d in parsed.lines] == [(1, 4, SATOMI), (3, 2, MIZUKI)]


def test_parser_24_1_2_3_a_list_framed_by_rules_counts_50():
    text = "−−−−−−−−−−\n" + "\n".join(filler_lines(50)) + "\n−−−−−−−−−−\n・・・\n"
    report = check(text)
    assert report.legal
    assert (report.main_count, report.sideboard_count) == (50, 0)
    assert report.violations == ()


def test_parser_24_empty_brackets_are_still_an_error_not_a_rule():
    # "〔〕" is a card line whose name is missing, not a layout line.
    parsed = parse_decklist("〔〕\n")
    assert [(p.line, p.reason_en) for p in parsed.problems] == [(1, "no card name on this line")]


# --- group headings (4−2−8 card types): headings, never cards ---------------------------


@pytest.mark.parametrize(
    ("heading", "stated"),
    [
        ("【キャラクター 46枚】", 46),
        ("キャラクター：46枚", 46),
        ("■イベント（8）", 8),
        ("＜ナビゲーター 計2枚＞", 2),
        ("Events (4)", 4),
        ("◆アイテム", None),
        ("キャラクター", None),
        ("// Characters: 46", 46),
    ],
)
def test_parser_24_4_2_8_group_headings_are_headings_in_the_current_section(heading, stated):
    parsed = parse_decklist(f"{heading}\n4 {SATOMI}\nサイドボード\n{heading}\n2 {MIZUKI}\n")
    assert parsed.problems == ()
    assert [(d.line, d.count, d.name, d.section) for d in parsed.lines] == [
        (2, 4, SATOMI, MAIN),
        (5, 2, MIZUKI, SIDE),
    ]
    assert parsed.headings == (
        SectionHeading(1, heading, MAIN, stated, group=True),
        SectionHeading(3, "サイドボード", SIDE),
        SectionHeading(4, heading, SIDE, stated, group=True),
    )


@pytest.mark.parametrize("name", ["イベントホライズン 2", "キャラクター図鑑", "Event Horizon"])
def test_parser_24_card_names_that_start_with_a_type_stay_cards(name):
    parsed = parse_decklist(f"{name}\n")
    assert parsed.headings == ()
    assert [(d.count, d.name) for d in parsed.lines] == [(1, name)]


def test_parser_24_group_heading_counts_are_compared_with_their_own_cards():
    text = (
        "メインデッキ 10枚\n"  # 4 + 6: right
        "【キャラクター 5枚】\n"  # 4 listed: wrong
        f"4 {SATOMI}\n"
        "【イベント 6枚】\n"  # right
        f"4 {filler_name(1)}\n"
        f"2 {filler_name(2)}\n"
        "サイドボード（2枚）\n"  # right
        "キャラクター：1枚\n"  # 2 listed: wrong
        f"2 {MIZUKI}\n"
    )
    parsed = parse_decklist(text)
    assert heading_counts(parsed) == [
        HeadingCount(SectionHeading(2, "【キャラクター 5枚】", MAIN, 5, group=True), 4),
        HeadingCount(SectionHeading(8, "キャラクター：1枚", SIDE, 1, group=True), 2),
    ]


def test_check_24_4_2_8_shop_list_with_group_headings_is_50_cards_with_no_notice():
    text = (
        "【メインデッキ 50枚】\n"
        "−−−−−−−−−−\n"
        "【キャラクター 4枚】\n"
        f"{SATOMI}×4枚\n"
        "====\n"
        "■イベント（46）\n" + "\n".join(filler_lines(46)) + "\n"
        "・・・\n"
        "【サイドボード】なし\n"
    )
    report = check(text)
    assert report.legal
    assert (report.main_count, report.sideboard_count) == (50, 0)
    assert report.violations == ()
    assert [n.code for n in report.notices] == []


def test_check_24_wrong_group_count_is_a_notice_naming_the_heading():
    text = "【キャラクター 5枚】\n" + f"4 {SATOMI}\n" + "\n".join(filler_lines(46)) + "\n"
    report = check(text)
    assert report.legal
    assert [(n.code, n.lines) for n in report.notices] == [("HEADING_COUNT_MISMATCH", (1,))]
    # Without a heading in between, the 46 events are listed under the character heading.
    assert report.notices[0].message_en == (
        "The heading “【キャラクター 5枚】” on line 1 gives a count of 5, but the cards "
        "listed under it add up to 50."
    )


# --- "no sideboard" written out (1−2−4, 2−1−3: a sideboard of 0 cards) -------------------


@pytest.mark.parametrize(
    "written",
    [
        "サイドボード：なし",
        "サイドボード（無し）",
        "【サイドボード】なし",
        "■サイドボード ナシ",
        "Sideboard: none",
        "SIDEBOARD - NONE",
        "SB: 0",
        "サイドボード：0枚",
    ],
)
def test_parser_24_1_2_4_no_sideboard_is_a_heading_stating_0(written):
    parsed = parse_decklist(f"4 {SATOMI}\n{written}\n")
    assert parsed.problems == ()
    assert [(d.count, d.name, d.section) for d in parsed.lines] == [(4, SATOMI, MAIN)]
    assert parsed.headings == (SectionHeading(2, written, SIDE, 0),)


@pytest.mark.parametrize("nothing", ["（無し）", "なし", "none", "- None -", "［ナシ］"])
def test_parser_24_1_2_4_nothing_on_its_own_line_is_no_card(nothing):
    parsed = parse_decklist(f"4 {SATOMI}\nサイドボード\n{nothing}\n")
    assert parsed.problems == ()
    assert [(d.count, d.name, d.section) for d in parsed.lines] == [(4, SATOMI, MAIN)]


@pytest.mark.parametrize(
    "written", ["サイドボード：なし", "Sideboard: none", "サイドボード\n（無し）"]
)
def test_check_24_1_2_4_no_sideboard_written_out_is_legal_with_0(written):
    report = check("\n".join(filler_lines(50)) + f"\n{written}\n")
    assert report.legal
    assert (report.main_count, report.sideboard_count) == (50, 0)
    assert report.violations == ()
    assert report.notices == ()


def test_check_24_sideboard_stated_none_but_cards_listed_is_a_notice():
    # 2−1−3: the sideboard's count is declared; "none" with cards under it is worth a look.
    report = check("\n".join(filler_lines(50)) + f"\nサイドボード：なし\n2 {filler_name(20)}\n")
    assert (report.main_count, report.sideboard_count) == (50, 2)
    assert [(n.code, n.lines) for n in report.notices] == [("HEADING_COUNT_MISMATCH", (14,))]


# --- counts after the name with × or 枚 (1−2−3: the count the player wrote) --------------


@pytest.mark.parametrize(
    "line",
    [
        f"{SATOMI}×4枚",
        f"{SATOMI} ×4枚",
        f"{SATOMI}　×４枚",
        f"{SATOMI} x4枚",
        f"{SATOMI} X4 枚",
        f"{SATOMI} x4",
        f"{SATOMI} ×４",
        f"{SATOMI}×4",
        f"{SATOMI} 4枚",
    ],
)
def test_parser_24_1_2_3_count_after_the_name(line):
    assert read(f"{line}\n") == [(1, 4, SATOMI, MAIN)]


def test_parser_24_latin_x_glued_to_a_latin_name_is_part_of_the_name():
    # "Max4枚" is four of "Max" (as "Max4" was before): the x belongs to the name.
    assert read("Max4枚\n") == [(1, 4, "Max", MAIN)]


def test_check_24_1_2_3_five_copies_written_with_sign_and_mai_is_too_many():
    report = check(f"{SATOMI}×4枚\n{SATOMI} ×1枚\n" + "\n".join(filler_lines(46)) + "\n")
    assert [v.code for v in report.violations] == ["TOO_MANY_COPIES"]
    assert report.main_count == 51


# --- a heading with its first card on the same line ------------------------------------


@pytest.mark.parametrize(
    "heading_line",
    [
        f"サイドボード：2 {MIZUKI}",
        f"サイドボード: 2 {MIZUKI}",
        f"【サイドボード】2 {MIZUKI}",
        f"■サイドボード：{MIZUKI}×2",
        f"Sideboard: 2 {MIZUKI}",
        f"拡張メモリ：2枚 {MIZUKI}",
    ],
)
def test_parser_24_1_2_4_sideboard_heading_with_its_first_card(heading_line):
    parsed = parse_decklist(f"4 {SATOMI}\n{heading_line}\n1 {MADOKA}\n")
    assert parsed.problems == ()
    assert [(d.line, d.count, d.name, d.section) for d in parsed.lines] == [
        (1, 4, SATOMI, MAIN),
        (2, 2, MIZUKI, SIDE),
        (3, 1, MADOKA, SIDE),
    ]
    assert parsed.headings == (SectionHeading(2, heading_line, SIDE),)


def test_parser_24_main_heading_with_its_first_card_goes_back_to_the_deck():
    parsed = parse_decklist(f"サイドボード\n2 {MIZUKI}\nメインデッキ：4 {SATOMI}\n1 {MADOKA}\n")
    assert [(d.line, d.count, d.name, d.section) for d in parsed.lines] == [
        (2, 2, MIZUKI, SIDE),
        (3, 4, SATOMI, MAIN),
        (4, 1, MADOKA, MAIN),
    ]


def test_parser_24_sb_prefix_still_puts_only_its_own_line_in_the_sideboard():
    assert read(f"4 {SATOMI}\nSB: 2 {MIZUKI}\n1 {MADOKA}\n") == [
        (1, 4, SATOMI, MAIN),
        (2, 2, MIZUKI, SIDE),
        (3, 1, MADOKA, MAIN),
    ]


def test_check_24_1_2_3_sideboard_heading_card_counts_with_the_deck_copies():
    # 1−2−3: the 4-copy limit counts the sideboard; the card on the heading line is in it.
    text = "\n".join(filler_lines(46)) + f"\n4 {SATOMI}\nサイドボード：1 {SATOMI}\n"
    report = check(text)
    assert (report.main_count, report.sideboard_count) == (50, 1)
    assert [v.code for v in report.violations] == ["TOO_MANY_COPIES"]


# --- invisible lead characters -------------------------------------------------------


@pytest.mark.parametrize(
    "invisible", ["\ufeff", "\u200b", "\u200e", "\u2060", "\ufeff\u200b", "\u00ad"]
)
def test_parser_24_invisible_characters_are_not_part_of_the_line(invisible):
    assert read(f"{invisible}4 {SATOMI}\n{invisible}サイドボード\n2 水{invisible}姫\n") == [
        (1, 4, SATOMI, MAIN),
        (3, 2, MIZUKI, SIDE),
    ]


def test_check_24_1_2_3_list_starting_with_a_byte_order_mark_is_50_cards():
    # The case: the API read "\ufeff3 …" as one unknown card and 47 others.
    text = "\ufeff" + "\n".join(filler_lines(50, per_name=3)) + "\n"
    report = check(text)
    assert report.legal
    assert (report.main_count, report.sideboard_count) == (50, 0)
    assert report.violations == ()


# --- a line that still cannot be read ------------------------------------------------


FORMS_EN = (
    " Write a card as “4 Name”, “4x Name”, “Name ×4” or “Name 4枚”, and a heading as "
    "“サイドボード” or “Sideboard (15)”."
)
FORMS_JA = (
    "カードは「4 カード名」「4x カード名」「カード名 ×4」「カード名 4枚」、見出しは"
    "「サイドボード」「Sideboard (15)」のように書いてください。"
)


def test_check_24_unreadable_line_is_named_quoted_and_shows_the_forms_once():
    text = "\n".join(filler_lines(50)) + "\n4 ！？\n\n〔〕\n"
    report = check(text)
    errors = [v for v in report.violations if v.code == "PARSE_ERROR"]
    assert [(v.lines, v.details) for v in errors] == [
        ((14,), {"text": "4 ！？"}),
        ((16,), {"text": "〔〕"}),
    ]
    assert errors[0].message_en == (
        "Line 14 (“4 ！？”) cannot be read: no card name on this line." + FORMS_EN
    )
    assert errors[0].message_ja == (
        "14行目（「4 ！？」）を読めません: この行にカード名がありません。" + FORMS_JA
    )
    # The forms once per report: the second message names its line and says why, no more.
    assert errors[1].message_en == "Line 16 (“〔〕”) cannot be read: no card name on this line."
    assert errors[1].message_ja == "16行目（「〔〕」）を読めません: この行にカード名がありません。"


# --- neighbours: more ways players write a list -----------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        f"・{SATOMI}×4",
        f"- 4 {SATOMI}",
        f"● {SATOMI} 4枚",
        f"★4 {SATOMI}",
        f"{SATOMI}*4",
        f"{SATOMI}＊4",
        f"{SATOMI}：4枚",
        f"{SATOMI}: 4",
        f"4枚：{SATOMI}",
        f"{SATOMI}（4枚）",
        f"{SATOMI} (x4)",
        f"{SATOMI}(4)",
    ],
)
def test_parser_24_1_2_3_list_marks_colons_and_bracketed_counts(line):
    assert read(f"{line}\n") == [(1, 4, SATOMI, MAIN)]


@pytest.mark.parametrize(
    ("line", "qualifier"), [("狡猾フィーリア ×4 (β)", "β"), ("狡猾フィーリア 4枚 [base]", "base")]
)
def test_parser_24_count_before_the_printing(line, qualifier):
    parsed = parse_decklist(f"{line}\n")
    assert [(d.count, d.name, d.qualifier) for d in parsed.lines] == [
        (4, "狡猾フィーリア", qualifier)
    ]


@pytest.mark.parametrize(
    "line", ["レプリカント（改）", "剣を捨てて……", "計算機 2", "Total Eclipse", "Player's Choice"]
)
def test_parser_24_names_that_look_like_the_new_forms_stay_names(line):
    # A bracket of words stays a printing (or part of the name); a word that starts like a
    # total or a key is a name unless a count or a colon follows it.
    parsed = parse_decklist(f"{line}\n")
    assert parsed.headings == ()
    assert len(parsed.lines) == 1
    assert parsed.lines[0].count == 1


@pytest.mark.parametrize(
    "line",
    [
        "合計 50枚",
        "計50枚",
        "Total: 50",
        "total 50 cards",
        "デッキ枚数：50",
        "デッキ名：炎のデッキ",
        "【デッキ名】炎のデッキ",
        "プレイヤー名：山田 太郎",
        "Deck name: Fire",
        "Player: Yamada",
    ],
)
def test_parser_24_1_2_3_total_and_about_lines_are_no_cards(line):
    assert read(f"{line}\n4 {SATOMI}\n") == [(2, 4, SATOMI, MAIN)]


def test_check_24_1_2_3_a_total_line_does_not_add_50_unknown_cards():
    text = (
        "デッキ名：炎のデッキ\n" + "\n".join(f"・{x}" for x in filler_lines(50)) + "\n合計 50枚\n"
    )
    report = check(text)
    assert report.legal
    assert (report.main_count, report.sideboard_count) == (50, 0)
    assert report.violations == ()


def test_check_24_1_2_3_a_card_with_a_count_after_a_key_is_never_skipped():
    # "名前：狡猾フィーリア ×1" is not a line about the list: skipping it would hide a fifth
    # copy from the 1−2−3 count, so it is read (and reported unknown) instead.
    text = "\n".join(filler_lines(46)) + f"\n4 {SATOMI}\n名前：{SATOMI} ×1\n"
    report = check(text)
    assert not report.legal
    assert [(v.code, v.lines) for v in report.violations] == [("UNKNOWN_CARD", (14,))]
