"""The search rules without a database: queries, matching and highlighting."""

import pytest

from rules.search import excerpt, highlight, match_spans, matches, parse_query


def test_parse_query_folds_terms_and_recognises_numbers():
    query = parse_query("  ＡＰ  対象 ")
    assert query.terms == ("ap", "対象")
    assert query.phrase == "ap対象"
    assert query.number is None
    assert parse_query("４－３－８").number == "4-3-8"
    assert parse_query("4−3−8").terms == ("4-3-8",)


def test_parse_query_drops_repeated_and_contained_terms():
    assert parse_query("対象 対象の 対象").terms == ("対象の",)


def test_empty_query_matches_nothing():
    query = parse_query("   ")
    assert not query
    assert not matches("anything", query)


@pytest.mark.parametrize(
    ("query", "text", "expected"),
    [
        ("対象", "対象を取る", True),
        ("割込", "割込み処理", True),
        ("割込", "割り込み", False),  # different spelling, different text
        ("維持費", "「維持費」を支払う", True),
        ("all turn", "ALL TURN でプレイ", True),
        ("ＡＬＬ", "All Turn", True),
        ("山名春恵", "『山名 春恵』の特殊能力", True),
        ("4-3-8", "4−3−8参照", True),
        ("キャラクター AP", "キャラクターのAP", True),
        ("キャラクター DP", "キャラクターのAP", False),
    ],
)
def test_matches(query, text, expected):
    assert matches(text, parse_query(query)) is expected


def test_highlight_escapes_then_marks():
    terms = parse_query("<b> ap").terms
    assert highlight("<b>AP</b> & ＡＰ", terms) == (
        "<mark>&lt;b&gt;AP</mark>&lt;/b&gt; &amp; <mark>ＡＰ</mark>"
    )


def test_highlight_marks_matches_across_spaces_and_widths():
    assert highlight("『山名 春恵』", parse_query("山名春恵").terms) == "『<mark>山名 春恵</mark>』"
    assert highlight("ｶﾞｲﾄﾞを見る", parse_query("ガイド").terms) == "<mark>ｶﾞｲﾄﾞ</mark>を見る"


def test_match_spans_merge_overlaps():
    assert match_spans("対象の対象", ("対象", "象の")) == [(0, 5)]


def test_excerpt_cuts_around_the_first_match():
    text = "あ" * 300 + "維持費" + "い" * 300
    snippet = excerpt(text, parse_query("維持費").terms, width=40)
    assert snippet.startswith("…")
    assert snippet.endswith("…")
    assert "<mark>維持費</mark>" in snippet
    assert len(snippet.replace("<mark>", "").replace("</mark>", "")) == 42


def test_excerpt_of_short_text_is_whole_with_lines_joined():
    assert excerpt("一行目\n二行目", ("二行",)) == "一行目 <mark>二行</mark>目"
