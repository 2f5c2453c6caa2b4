"""Issue 13, the parser: sideboard headings as players paste them, counts stated in a
heading, a bare number at the end of a line, and lines too long to be card lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decks.engine.check import check_decklist
from decks.engine.messages import QUANTITY_FORMS
from decks.engine.model import MAIN, SIDE
from decks.engine.parser import (
    MAX_LINE_CHARS,
    HeadingCount,
    SectionHeading,
    heading_counts,
    parse_decklist,
)

from .pools import (
    BAN_DAY,
    MIZUKI,
    MORIHARA,
    SWATI,
    check,
    crossover_pool,
    crossover_rules,
    deck,
    filler_lines,
)

POOL = crossover_pool()


def is_card(name: str) -> bool:
    return POOL.lookup(name) is not None


SIDE_HEADINGS = [
    # (heading as pasted, count it states)
    ("【サイドボード（15枚）】", 15),
    ("【サイドボード(15枚)】", 15),
    ("【サイドボード】", None),
    ("■サイドボード", None),
    ("◆サイドボード", None),
    ("●サイドボード", None),
    ("▼サイドボード", None),
    ("☆サイドボード", None),
    ("★サイドボード★", None),
    ("・サイドボード", None),
    ("･サイドボード", None),  # half-width katakana middle dot
    ("＜サイドボード＞", None),
    ("<サイドボード>", None),
    ("＜サイドボード（15）＞", 15),
    ("■サイドボード 15枚", 15),
    ("◆サイドボード：15枚", 15),
    ("サイドボード 計15枚", 15),
    ("サイドボード（１５枚）", 15),
    ("Sideboard (15)", 15),
    ("Sideboard（15）", 15),
    ("Sideboard (15 cards)", 15),
    ("SIDEBOARD: 15", 15),
    ("Side Board", None),
    ("SB (15):", 15),
    ("SB（15）：", 15),
    ("ＳＢ (15):", 15),
    ("SB:", None),
    ("---- Sideboard ----", None),
    ("拡張メモリ（15枚）", 15),
]


@pytest.mark.parametrize(("heading", "stated"), SIDE_HEADINGS)
def test_parser_13_sideboard_heading_forms_start_the_sideboard(heading, stated):
    parsed = parse_decklist(f"4 森原さとみ\n{heading}\n2 水姫\n1 深見まどか\n")
    assert parsed.problems == ()
    assert [(d.line, d.name, d.section) for d in parsed.lines] == [
        (1, "森原さとみ", MAIN),
        (3, "水姫", SIDE),
        (4, "深見まどか", SIDE),
    ]
    assert parsed.headings == (SectionHeading(2, heading, SIDE, stated),)


@pytest.mark.parametrize(
    ("heading", "stated"),
    [
        ("メインデッキ（50枚）", 50),
        ("【メインデッキ（50枚）】", 50),
        ("■メインデッキ", None),
        ("＜メイン＞", None),
        ("◆デッキ 50枚", 50),
        ("Main Deck: 50", 50),
        ("Main (50)", 50),
        ("Deck (50 cards)", 50),
    ],
)
def test_parser_13_main_heading_forms_go_back_to_the_deck(heading, stated):
    parsed = parse_decklist(f"■サイドボード\n2 水姫\n{heading}\n4 森原さとみ\n")
    assert [(d.line, d.name, d.section) for d in parsed.lines] == [
        (2, "水姫", SIDE),
        (4, "森原さとみ", MAIN),
    ]
    assert parsed.headings[1] == SectionHeading(3, heading, MAIN, stated)


@pytest.mark.parametrize(
    "text",
    ["デッキ破壊", "サイドボード破壊 2", "Sideboard Tech", "SB: 2 水姫", "◆サイドボード 15 水姫"],
)
def test_parser_13_heading_word_followed_by_more_than_a_count_is_not_a_heading(text):
    parsed = parse_decklist(text)
    assert parsed.headings == ()
    assert len(parsed.lines) + len(parsed.problems) == 1


def test_parser_13_sb_prefix_still_puts_one_line_in_the_sideboard():
    parsed = parse_decklist("4 森原さとみ\nSB: 2 水姫\n")
    assert [(d.count, d.name, d.section) for d in parsed.lines] == [
        (4, "森原さとみ", MAIN),
        (2, "水姫", SIDE),
    ]


# --- counts stated in headings ---------------------------------------------------------


def test_parser_13_heading_counts_compare_stated_and_listed():
    text = "メインデッキ（6枚）\n4 森原さとみ\n2 水姫\n【サイドボード（15枚）】\n"
    text += "4 スワティ\n3 水姫\n"
    parsed = parse_decklist(text)
    assert heading_counts(parsed) == [
        HeadingCount(SectionHeading(4, "【サイドボード（15枚）】", SIDE, 15), 7)
    ]


def test_parser_13_heading_count_that_matches_gives_nothing():
    parsed = parse_decklist("Sideboard (7)\n4 スワティ\n3 水姫\n")
    assert heading_counts(parsed) == []


def test_parser_13_sb_prefixed_line_does_not_count_under_the_main_heading():
    parsed = parse_decklist("Main (4)\n4 森原さとみ\nSB: 2 水姫\n")
    assert heading_counts(parsed) == []


def test_check_13_heading_count_mismatch_is_a_notice_in_both_languages():
    # 1−2−4 is about the sideboard's size; a heading's own number is only the player's note,
    # so a wrong one is a notice, never a violation.
    heading = "【サイドボード（15枚）】"
    text = deck(*filler_lines(50), side=filler_lines(14, start=20), heading=heading)
    report = check(text)
    assert report.legal
    assert report.sideboard_count == 14
    assert [(n.code, n.lines) for n in report.notices] == [("HEADING_COUNT_MISMATCH", (14,))]
    notice = report.notices[0]
    assert notice.message_en == (
        "The heading “【サイドボード（15枚）】” on line 14 gives a count of 15, but the cards "
        "listed under it add up to 14."
    )
    assert notice.message_ja == (
        "14行目の見出し「【サイドボード（15枚）】」は15枚となっていますが、その下のカードは14枚です。"
    )
    data = report.as_dict()
    assert data["notices"][0]["code"] == "HEADING_COUNT_MISMATCH"


def test_check_13_main_heading_count_mismatch_names_the_heading_line():
    text = "\n".join(["メインデッキ（50枚）", *filler_lines(48)]) + "\n"
    report = check(text)
    assert [n.code for n in report.notices] == ["HEADING_COUNT_MISMATCH"]
    assert report.notices[0].lines == (1,)
    assert "gives a count of 50, but the cards listed under it add up to 48" in (
        report.notices[0].message_en
    )


def test_check_13_heading_count_mismatch_reads_well_for_one_card():
    # A heading of 2 over a single card: no "1 cards" / "1 are listed".
    report = check("\n".join([*filler_lines(50), "Sideboard (2)", "1 スワティ"]) + "\n")
    [notice] = report.notices
    assert notice.code == "HEADING_COUNT_MISMATCH"
    assert notice.message_en == (
        "The heading “Sideboard (2)” on line 14 gives a count of 2, but the cards listed "
        "under it add up to 1."
    )
    assert " 1 cards" not in notice.message_en
    assert "1 are" not in notice.message_en


def test_check_13_heading_count_uses_the_count_read_from_a_bare_number():
    report = check("Sideboard (4)\nスワティ 4\n")
    assert report.sideboard_count == 4
    assert report.notices == ()


# --- a bare number at the end of a line ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count", "name"),
    [
        ("スワティ 31", 31, "スワティ"),
        ("森原さとみ 4", 4, "森原さとみ"),
        ("森原 さとみ　4", 4, "森原 さとみ"),
        ("〔森原さとみ〕 4", 4, "〔森原さとみ〕"),
        ("森原さとみ ４", 4, "森原さとみ"),
    ],
)
def test_parser_13_bare_trailing_count_is_a_count_when_the_name_is_a_card(text, count, name):
    parsed = parse_decklist(text, is_card=is_card)
    assert [(d.count, d.name, d.qualifier, d.bare_count) for d in parsed.lines] == [
        (count, name, None, None)
    ]


def test_parser_13_bare_trailing_count_keeps_the_printing():
    parsed = parse_decklist("水姫 (base) 3", is_card=is_card)
    assert [(d.count, d.name, d.qualifier) for d in parsed.lines] == [(3, "水姫", "base")]


def test_parser_13_bare_trailing_number_stays_in_a_name_that_is_a_card():
    # The filler cards are named 汎用イベント01…: a card whose name ends in a number.
    pool_names = {"汎用イベント 1", "汎用イベント"}
    parsed = parse_decklist("汎用イベント 1", is_card=pool_names.__contains__)
    assert [(d.count, d.name) for d in parsed.lines] == [(1, "汎用イベント 1")]


def test_parser_13_without_a_pool_the_other_reading_is_kept():
    parsed = parse_decklist("スワティ 31")
    assert [(d.count, d.name, d.bare_count) for d in parsed.lines] == [
        (1, "スワティ 31", (31, "スワティ", None))
    ]


@pytest.mark.parametrize("text", ["スワティ ×31", "31 スワティ", "スワティ 31枚", "スワティ x 31"])
def test_parser_13_marked_counts_have_no_other_reading(text):
    parsed = parse_decklist(text)
    assert [(d.count, d.name, d.bare_count) for d in parsed.lines] == [(31, "スワティ", None)]


def test_check_13_bare_trailing_count_counts_towards_the_copy_limit():
    # 1−2−3: at most 4 copies of a name (スワティ is an unlimited navigator, so use 森原さとみ).
    report = check(deck(*filler_lines(46), "森原さとみ 5"))
    assert report.codes == ["TOO_MANY_COPIES"]
    assert report.violations[0].cards == (MORIHARA,)
    assert report.violations[0].details == {"count": 5, "limit": 4}
    assert report.main_count == 51


def test_check_13_resolve_reads_a_bare_count_when_the_parser_had_no_pool():
    # decks.services and the metagame call resolve() on a parse made without the pool.
    from decks.engine.check import resolve

    entries, problems = resolve(parse_decklist("スワティ 31\n水姫 2"), crossover_rules(), POOL)
    assert problems == []
    assert [(e.card.name, e.count) for e in entries] == [(SWATI, 31), (MIZUKI, 2)]


def test_check_13_unknown_card_ending_in_a_number_says_how_counts_are_written():
    report = check_decklist("ズワティ 3\n", crossover_rules(), BAN_DAY, POOL)
    unknown = [v for v in report.violations if v.code == "UNKNOWN_CARD"]
    assert len(unknown) == 1
    assert unknown[0].cards == ("ズワティ 3",)
    assert unknown[0].message_en.endswith(QUANTITY_FORMS[0])
    assert unknown[0].message_ja.endswith(QUANTITY_FORMS[1])
    assert "“Name ×4”" in unknown[0].message_en
    assert "「カード名 4枚」" in unknown[0].message_ja


@pytest.mark.parametrize(
    "line", ["森原さとみ 0", "森原さとみ 1000", "スワティ46", "スワティ４６", "ズワティ 3 (β)"]
)
def test_check_13_unknown_card_ending_in_an_unread_number_says_how_counts_are_written(line):
    # 0 and 1000 are out of the 1–999 range and 46 is glued to the name, so the number is
    # not read as the count; the name is then unknown, and the message says how to write
    # a number of copies besides "Did you mean".
    report = check_decklist(line + "\n", crossover_rules(), BAN_DAY, POOL)
    [unknown] = [v for v in report.violations if v.code == "UNKNOWN_CARD"]
    assert unknown.message_en.endswith(QUANTITY_FORMS[0])
    assert unknown.message_ja.endswith(QUANTITY_FORMS[1])


def test_check_13_unknown_card_glued_number_still_suggests_the_card():
    report = check_decklist("スワティ46\n", crossover_rules(), BAN_DAY, POOL)
    [unknown] = [v for v in report.violations if v.code == "UNKNOWN_CARD"]
    assert unknown.message_en == (
        "Unknown card “スワティ46” on line 1. Did you mean " + SWATI + "?" + QUANTITY_FORMS[0]
    )


def test_check_13_unknown_card_without_a_number_has_no_count_advice():
    report = check_decklist("zzzzqqq\n", crossover_rules(), BAN_DAY, POOL)
    unknown = [v.message_en for v in report.violations if v.code == "UNKNOWN_CARD"]
    assert unknown == ["Unknown card “zzzzqqq” on line 1."]


# --- names in brackets still work ------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["4 〔森原さとみ〕", "【森原さとみ】 ×4", "『森原さとみ』 4枚", "4 ［森原さとみ］"]
)
def test_check_13_bracketed_names_are_cards_not_headings(text):
    parsed = parse_decklist(text, is_card=is_card)
    assert parsed.headings == ()
    assert [d.count for d in parsed.lines] == [4]
    assert POOL.lookup(parsed.lines[0].name).name == MORIHARA


def test_parser_13_bracketed_card_name_under_a_bracketed_heading():
    parsed = parse_decklist("【サイドボード（4枚）】\n【森原さとみ】 4", is_card=is_card)
    assert [(d.section, d.count) for d in parsed.lines] == [(SIDE, 4)]
    assert heading_counts(parsed) == []


# --- hostile input (issue 15): long lines are refused, and reading stays linear ----------


@pytest.mark.parametrize(
    "line",
    [
        "a" + " " * 19_998 + "b",
        "4" + " " * 19_998 + "b",
        "a" + " " * 19_998 + "x",
        "4 a" + " " * 19_997 + "4",
        "SB:" + " " * 19_996 + "x",
        "(" * 20_000,
    ],
)
def test_parser_13_a_20000_character_line_is_one_clear_problem(line):
    parsed = parse_decklist(f"4 森原さとみ\n{line}\n2 水姫")
    assert [d.line for d in parsed.lines] == [1, 3]
    assert [(p.line, p.reason_en, p.reason_ja) for p in parsed.problems] == [
        (
            2,
            f"the line is longer than {MAX_LINE_CHARS} characters",
            f"{MAX_LINE_CHARS}文字を超える行です",
        )
    ]
    assert len(parsed.problems[0].text) <= 81


def test_parser_13_trailing_spaces_do_not_make_a_line_long():
    parsed = parse_decklist("森原さとみ" + " " * 19_995 + "\n" + " " * 20_000)
    assert [(d.line, d.count, d.name) for d in parsed.lines] == [(1, 1, "森原さとみ")]
    assert parsed.problems == ()


def test_parser_13_card_line_reader_is_linear_on_long_lines():
    # The line reader itself (below the length cap) is a single scan: a 200,000-character
    # line of spaces is read, not backtracked over (the old regexes took minutes on this).
    from decks.engine.parser import _parse_card_line

    spaces = " " * 200_000
    assert _parse_card_line("a" + spaces + "b")[1:3] == ("a" + spaces + "b", None)
    assert _parse_card_line("a" + spaces + "x4")[:2] == (4, "a")
    assert _parse_card_line("4" + spaces + "b")[:2] == (4, "b")
    assert _parse_card_line("a" + spaces + "(β)")[1:3] == ("a", "β")


# --- generated headings and hostile lines ----------------------------------------------

LEFT = ["", "■", "◆", "●", "▼", "☆", "★", "・", "【", "＜", "<", "[", "［", "〔", "-- ", "== "]
RIGHT = ["", "】", "＞", ">", "]", "］", "〕", " --", ":", "：", "★"]
SIDE_WORDS = ["サイドボード", "Sideboard", "SIDEBOARD", "Side Board", "SB", "ＳＢ", "拡張メモリ"]
MAIN_WORDS = ["メインデッキ", "メイン", "デッキ", "Main", "Main Deck", "DECK"]
COUNTS = ["", "（15枚）", "(15)", " 15枚", "：15", " (15 cards)", "（１５）", " 計15枚"]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(LEFT),
    st.sampled_from([(w, SIDE) for w in SIDE_WORDS] + [(w, MAIN) for w in MAIN_WORDS]),
    st.sampled_from(COUNTS),
    st.sampled_from(RIGHT),
)
def test_parser_13_generated_heading_forms_are_headings(left, word_section, count, right):
    word, section = word_section
    heading = f"{left}{word}{count}{right}"
    parsed = parse_decklist(f"{heading}\n2 水姫\n")
    assert parsed.headings == (SectionHeading(1, heading, section, 15 if count else None),)
    assert [(d.section, d.count, d.name) for d in parsed.lines] == [(section, 2, "水姫")]


hostile_lines = st.tuples(
    st.sampled_from(["", "4", "4 ", "a", "SB:", "森原さとみ", "(", "【"]),
    st.integers(min_value=0, max_value=5_000),
    st.sampled_from([" ", "\t", "\u3000", "(", "x", "4", "枚", "a "]),
    st.sampled_from(["", "b", "x", "4", "x4", "4枚", ")", "(β)", "】"]),
).map(lambda parts: parts[0] + parts[2] * parts[1] + parts[3])


@settings(max_examples=200, deadline=None)
@given(hostile_lines)
def test_parser_13_fuzz_hostile_lines_are_read_or_refused(line):
    parsed = parse_decklist(line, is_card=is_card)
    assert len(parsed.lines) + len(parsed.problems) + len(parsed.headings) <= 1
    for problem in parsed.problems:
        assert problem.line == 1
        assert len(problem.text) <= MAX_LINE_CHARS + 1
    for line_read in parsed.lines:
        assert 1 <= line_read.count <= 999
        assert line_read.name.strip()


@pytest.mark.parametrize(
    "heading", ["// Sideboard", "# Sideboard", "// サイドボード（2枚）", "## サイドボード", "//SB"]
)
def test_parser_13_a_heading_written_as_a_comment_is_a_heading(heading):
    parsed = parse_decklist(f"4 森原 さとみ\n46 スワティ\n{heading}\n2 斉藤 倫子\n")
    assert [(line.name, line.section) for line in parsed.lines] == [
        ("森原 さとみ", "main"),
        ("スワティ", "main"),
        ("斉藤 倫子", "side"),
    ]


@pytest.mark.parametrize("comment", ["# main combo: 森原 + スワティ", "// deck by 健太", "#", "//"])
def test_parser_13_other_comments_are_still_comments(comment):
    parsed = parse_decklist(f"4 森原 さとみ\n{comment}\n2 斉藤 倫子\n")
    assert [(line.name, line.section) for line in parsed.lines] == [
        ("森原 さとみ", "main"),
        ("斉藤 倫子", "main"),
    ]
    assert parsed.problems == ()
