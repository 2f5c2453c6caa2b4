"""The other four documents in ../shared/seeds/ (skipped when absent), and each style's
rules on small texts of our own."""

import datetime as dt

import pytest

from rules import parsing
from rules.parsing import detect_style, parse_document
from tests.rules.conftest import seed_text


def outline(document):
    return [(section.number, section.title, section.level) for section in document.sections]


def flags(document):
    return {
        section.number or section.title: [flag.code for flag in section.flags]
        for section in document.sections
        if section.flags
    }


def test_monster_collection_supplement_parts_and_numbers():
    document = parse_document(seed_text("001"))
    assert document.style == "parts"
    assert document.title == "ルールの補足"
    assert document.date == dt.date(2009, 1, 11)
    assert len(document.sections) == 33
    numbers = [section.number for section in document.sections]
    assert numbers[:6] == ["第1部", "7-4", "第2部", "1.", "1-1", "1-1-1"]
    assert numbers[-1] == "1-3-2"
    by_number = {section.number: section for section in document.sections}
    # 7-4 is an excerpt under part 1; 1-1-2-1 sits under 1-1-2.
    assert document.sections[by_number["7-4"].parent].number == "第1部"
    assert document.sections[by_number["1-1-2-1"].parent].number == "1-1-2"
    assert by_number["1-1-2-1"].level == 5
    assert by_number["1-1-1"].title == "「適用」という表記"
    assert by_number["7-4"].body.endswith("「使用の手順」を終了します。")
    assert flags(document) == {}


def test_crossover_wiki_summary_headings():
    document = parse_document(seed_text("002"))
    assert document.style == "wiki"
    assert document.date == dt.date(2022, 12, 9)
    assert len(document.sections) == 16
    top = [section.title for section in document.sections if section.level == 1]
    assert top == [
        "ゲームタイプ",
        "基本構成",
        "カード構成",
        "ゲームの流れ",
        "戦闘処理",
        "割込み処理",
        "カード・能力の宣言や応酬例",
        "ルール細則",
        "禁止カード",
    ]
    under_flow = [
        section.title
        for section in document.sections
        if section.parent is not None and document.sections[section.parent].title == "ゲームの流れ"
    ]
    assert under_flow == ["開始準備", "全体の基本進行", "ゲーム終了時"]
    assert all("最終更新" not in section.body for section in document.sections)
    assert flags(document) == {"ルール紹介動画": [parsing.EMPTY_SECTION]}


def test_cross_universe_bullet_headings():
    document = parse_document(seed_text("003"))
    assert document.style == "bullets"
    assert document.title == "タイミングの概念や処理の詳細"
    assert len(document.sections) == 34
    assert [s.title for s in document.sections if s.level == 2] == [
        "各種処理の詳細",
        "タイミングの詳細",
        "処理におけるその他の事項",
    ]
    assert sum(section.level == 3 for section in document.sections) == 23
    # The banners at the end have no text in this file: flagged, not dropped.
    assert [title for title, codes in flags(document).items()] == [
        "クロス・ユニバースとは",
        "基本ルール",
        "カードの種類",
        "ゲームの流れ",
        "基本となる行動",
        "その他の用語集",
        "処理の詳細(テーブルとブロック)",
    ]


def test_asura_system_manual_chapter_two():
    document = parse_document(seed_text("004"))
    assert document.style == "chapters"
    assert len(document.sections) == 22
    assert outline(document)[:8] == [
        ("第2章", "ルールガイダンス", 1),
        ("2−1", "デッキ", 2),
        ("2−2", "AsuraSystemTCGで使用するカード", 2),
        ("2−3", "勝利条件", 2),
        ("2−4", "ゲームの開始準備とターン", 2),
        ("2−5", "フェイズ", 2),
        ("(1)", "フェイズとは", 3),
        ("(2)", "ターンの開始", 3),
    ]
    phases = [s for s in document.sections if s.level == 3]
    assert [s.key for s in phases] == [f"2-5-{n}" for n in range(1, 9)]
    # The numbered list inside (1) stays in its body.
    assert "(6)ターンの終了" in phases[0].body
    # Navigation bars ("← 第1章に戻る …|") are not text of the last section.
    assert all("|" not in section.body for section in document.sections)
    empty = [number for number, codes in flags(document).items() if codes == ["empty_section"]]
    assert empty == ["2−1", "2−2", "2−3", "2−4", *[f"2−{n}" for n in range(6, 14)]]


@pytest.mark.parametrize(
    ("text", "style"),
    [
        ("■■ R ■■ 1 一 ◆本文 1−1 二 ◆本文 2 三 ◆本文", "oneline"),
        ("補足\n\n第1部 基本\n\n1-1 見出し\n本文\n", "parts"),
        ("第3章 ルール\n3−1 デッキ\n本文\n", "chapters"),
        ("◆◆◆題◆◆◆\n\n●見出し\n\n・項目\n本文\n", "bullets"),
        (" 見出し \n\n本文です。\n", "wiki"),
    ],
)
def test_style_detection(text, style):
    assert detect_style(text) == style


def test_gaps_and_misplaced_numbers_in_line_documents_are_flagged():
    text = "補足\n\n第1部 本\n\n1-1 あ\n本文\n\n1-3 う\n本文\n\n1-3-1 え\n本文\n\n1-2-2 お\n本文\n"
    document = parse_document(text)
    assert flags(document) == {"1-3": [parsing.NUMBER_GAP], "1-2-2": [parsing.MISPLACED_NUMBER]}
    assert document.sections[2].flags[0].params == {"missing": "1-2"}
    assert document.sections[4].flags[0].params == {"number": "1-2-2", "parent": "1-3"}


def test_relative_headings_and_lists_in_a_manual():
    text = "第1章 基本\n1−1 流れ\n(1)概要\n説明。\n(1)いち\n(2)に\n(2)詳細\n説明。\n"
    document = parse_document(text)
    assert outline(document) == [
        ("第1章", "基本", 1),
        ("1−1", "流れ", 2),
        ("(1)", "概要", 3),
        ("(2)", "詳細", 3),
    ]
    assert document.sections[2].body == "説明。\n(1)いち\n(2)に"
