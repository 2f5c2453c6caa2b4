"""The CrossOver Basic Rules v2.02 (one long line) parsed section by section.

Reads ../shared/seeds/000_*.txt (skipped when absent). Section numbers and titles are
facts checked here; the bodies are only sampled by their first and last words.
"""

import datetime as dt

import pytest

from rules import parsing
from rules.parsing import ParseError, detect_style, parse_document
from tests.rules.conftest import seed_text

# Every section in document order: (number as printed, title, parent's number).
# The second 3−2−2 stands under 3−3 (it is 3−3−2's place) and there is no 3−5: both are
# kept as printed.
CROSSOVER_SECTIONS = [
    ("1", "試合前の準備", None),
    ("1−1", "プレイヤー", "1"),
    ("1−2", "カード", "1"),
    ("1−2−1", "ゲームに使用することができるカード", "1−2"),
    ("1−2−2", "カードの分別方法", "1−2"),
    ("1−2−3", "デッキの準備", "1−2"),
    ("1−2−4", "サイドボードの準備", "1−2"),
    ("1−3", "対戦場所の準備", "1"),
    ("1−4", "HPカウンターの準備", "1"),
    ("1−5", "カウンターの準備", "1"),
    ("2", "試合準備開始前の手順", None),
    ("2−1", "試合前の手順", "2"),
    ("2−1−1", "お互いのデッキをシャッフルする", "2−1"),
    ("2−1−2", "HPの宣言", "2−1"),
    ("2−1−3", "サイドボードの宣言", "2−1"),
    ("2−1−4", "山札から、最初の手札となるカードを引く", "2−1"),
    ("2−1−5", "先攻後攻の決定", "2−1"),
    ("2−1−6", "マリガン宣言", "2−1"),
    ("2−1−7", "最終確認", "2−1"),
    ("3", "試合進行", None),
    ("3−1", "ターン開始", "3"),
    ("3−2", "アンタップフェイズ", "3"),
    ("3−2−1", "アンタップフェイズ開始", "3−2"),
    ("3−2−2", "カードのアンタップ", "3−2"),
    ("3−2−3", "アンタップフェイズ終了", "3−2"),
    ("3−3", "ドローフェイズ", "3"),
    ("3−3−1", "ドローフェイズ開始", "3−3"),
    ("3−2−2", "カードを1枚引く", "3−3"),
    ("3−3−3", "ドローフェイズ終了", "3−3"),
    ("3−4", "メインフェイズ", "3"),
    ("3−4−1", "ナビゲーターカードのプレイ", "3−4"),
    ("3−4−2", "キャラクターカードのプレイ", "3−4"),
    ("3−4−3", "イベント、スペル、及びアイテムカードのプレイ", "3−4"),
    ("3−4−4", "フィールドにあるカードの効果・特殊能力の使用", "3−4"),
    ("3−4−5", "戦闘", "3−4"),
    ("3−4−5−1", "戦闘開始宣言", "3−4−5"),
    ("3−4−5−2", "キャラクターでアタックを宣言する", "3−4−5"),
    ("3−4−5−3", "ディフェンスするキャラクターの宣言", "3−4−5"),
    ("3−4−5−4", "ダメージの応酬", "3−4−5"),
    ("3−4−5−5", "戦闘終了", "3−4−5"),
    ("3−4−5−6", "戦闘時における行動可能タイミング", "3−4−5"),
    ("3−4−5−7", "特殊能力「飛行」と「潜水」", "3−4−5"),
    ("3−6", "エンドフェイズ", "3"),
    ("3−6−1", "エンドフェイズ開始", "3−6"),
    ("3−6−2", "維持費の支払い", "3−6"),
    ("3−6−3", "エンドフェイズ終了", "3−6"),
    ("3−6−4", "エンドフェイズにおける行動可能タイミング", "3−6"),
    ("3−7", "ターン終了時", "3"),
    ("3−7−1", "キャラクターのダメージを0にする", "3−7"),
    ("3−7−2", "「ターン終了時まで」の効果・特殊能力の終了", "3−7"),
    ("3−7−3", "手札整理", "3−7"),
    ("3−7−4", "エネルギーの消失", "3−7"),
    ("3−7−5", "次のターンへ", "3−7"),
    ("4", "その他", None),
    ("4−1", "勝利条件", "4"),
    ("4−1−1", "試合とゲーム", "4−1"),
    ("4−1−2", "ゲームの勝利条件", "4−1"),
    ("4−2", "ゲームに関する補足", "4"),
    ("4−2−1", "手札", "4−2"),
    ("4−2−2", "山札", "4−2"),
    ("4−2−3", "ダストボックス", "4−2"),
    ("4−2−4", "クラッシュしたカードの扱い", "4−2"),
    ("4−2−5", "ブレイクしたカードの扱い", "4−2"),
    ("4−2−6", "同名カード", "4−2"),
    ("4−2−7", "カードの呼び方", "4−2"),
    ("4−2−8", "カードに関する用語について", "4−2"),
    ("4−2−9", "カードテキストと基本ルールの優先順位", "4−2"),
    ("4−2−10", "カードテキストにある「カード名」の扱い", "4−2"),
    ("4−2−11", "セットするカードの置き方", "4−2"),
    ("4−2−12", "コントロール権とオーナー", "4−2"),
    ("4−2−13", "対象", "4−2"),
    ("4−2−14", "「うち消し」ついて", "4−2"),
    ("4−3", "行動および解決", "4"),
    ("4−3−1", "行動と優先権", "4−3"),
    ("4−3−2", "カードのプレイ", "4−3"),
    ("4−3−2−1", "コストの用意", "4−3−2"),
    ("4−3−2−2", "プレイの宣言", "4−3−2"),
    ("4−3−2−3", "コストの支払い", "4−3−2"),
    ("4−3−2−4", "「カードをプレイしたとき」の処理", "4−3−2"),
    ("4−3−2−5", "カードをプレイした直後", "4−3−2"),
    ("4−3−2−6", "カードの解決", "4−3−2"),
    ("4−3−3", "フィールドにあるカードの効果・特殊能力の使用", "4−3"),
    ("4−3−3−1", "コストの用意", "4−3−3"),
    ("4−3−3−2", "効果・特殊能力の使用宣言", "4−3−3"),
    ("4−3−3−3", "コストの支払い", "4−3−3"),
    ("4−3−3−4", "「効果・特殊能力を使用したとき」の処理", "4−3−3"),
    ("4−3−3−5", "効果・特殊能力を使用した直後", "4−3−3"),
    ("4−3−3−6", "効果・特殊能力の解決", "4−3−3"),
    ("4−3−4", "割り込み", "4−3"),
    ("4−3−5", "特定条件下のみプレイできるカード、効果・特殊能力", "4−3"),
    ("4−3−6", "特定条件下で誘発するカードの効果・特殊能力", "4−3"),
    ("4−3−7", "空打ち(からうち)", "4−3"),
    ("4−3−8", "ひとつのカードに対して効果等が複数ある場合の処理", "4−3"),
    ("4−3−8−1", "無効になる情報の決定の特殊な例", "4−3−8"),
    ("4−3−9", "ダメージと能力値への修正", "4−3"),
    ("4−3−10", "ダメージ軽減の処理", "4−3"),
    ("4−3−10−1", "ダメージを与える", "4−3−10"),
    ("4−3−10−2", "ダメージ軽減", "4−3−10"),
    ("4−3−10−3", "ダメージの決定", "4−3−10"),
    ("4−3−10−4", "ダメージを与えた直後", "4−3−10"),
    ("4−3−11", "フィールドにあるカードのクラッシュ時の処理", "4−3"),
    ("4−3−11−1", "クラッシュする", "4−3−11"),
    ("4−3−11−2", "クラッシュの打ち消し", "4−3−11"),
    ("4−3−11−3", "クラッシュの決定", "4−3−11"),
    ("4−3−11−4", "クラッシュした直後", "4−3−11"),
    ("5", "変更履歴", None),
]


@pytest.fixture(scope="module")
def document():
    return parse_document(seed_text("000"))


def test_crossover_rulebook_is_detected_as_one_line_style():
    assert detect_style(seed_text("000")) == "oneline"


def test_crossover_rulebook_metadata(document):
    assert document.style == "oneline"
    assert document.version == "2.02"
    assert document.date == dt.date(2002, 3, 28)
    assert "基本ルール" in document.title
    assert "Version" not in document.title


def test_crossover_rulebook_has_every_section_in_order_with_title_and_parent(document):
    found = [
        (
            section.number,
            section.title,
            document.sections[section.parent].number if section.parent is not None else None,
        )
        for section in document.sections
    ]
    assert found == CROSSOVER_SECTIONS
    assert len(document.sections) == 106


def test_crossover_section_keys_use_ascii_dashes(document):
    assert [section.key for section in document.sections][:4] == ["1", "1-1", "1-2", "1-2-1"]
    assert document.sections[92].key == "4-3-8"


def test_crossover_levels_follow_the_number(document):
    for section in document.sections:
        assert section.level == section.number.count("−") + 1, section.number


@pytest.mark.parametrize(
    ("number", "occurrence", "first", "last"),
    [
        ("1−1", 0, "◆『CrossOver The F&C TCG』は、2人のプレイヤーが", "と表現しています。"),
        ("1−2−3", 0, "◆『CrossOver The F&C TCG』を遊ぶためには", "を入れることができます。"),
        ("2−1−2", 0, "◆各プレイヤーは自分が使用するHPカウンター", "伝えなければなりません。"),
        ("3−2−2", 0, "◆「自分のターンを進めているプレイヤー」は", "あらゆる行動が出来ません。"),
        (
            "3−2−2",
            1,
            "◆自分のターンを進めているプレイヤーは、ドローフェイズ開始時に",
            "得ることはできます。",
        ),
        (
            "3−6−2",
            0,
            "◆カードの中には、フィールドに出続けるために「維持費」",
            "得ることはできます。",
        ),
        ("4−2−13", 0, "◆カードテキスト中に、「対象の〜」とある", "対象を取りません。"),
        ("4−3−4", 0, "◆割り込みとは、", "ダメージを受けなくなります。"),
        (
            "4−3−8",
            0,
            "◆ひとつのカードに複数の効果等が適用される場合",
            "男性キャラクターとなります。",
        ),
        ("4−3−8−1", 0, "◆「〜の影響を受けない」", "保持することになります。"),
        ("4−3−9", 0, "◆キャラクターはDP以上のダメージを受けた場合", "クラッシュしてしまいます。"),
        ("4−3−11−4", 0, "◆ここで、「クラッシュした直後」", "プレイ・使用できません。"),
    ],
)
def test_crossover_section_bodies_start_and_end_right(document, number, occurrence, first, last):
    sections = [section for section in document.sections if section.number == number]
    body = sections[occurrence].body
    assert body.startswith(first)
    assert body.endswith(last)


def test_crossover_sections_with_only_subsections_have_no_body(document):
    empty = [section.number for section in document.sections if not section.body]
    assert empty == ["1", "1−2", "2", "2−1", "4", "4−1", "4−2", "4−3"]


def test_crossover_body_lines_break_before_items_and_around_rulers(document):
    body = next(section.body for section in document.sections if section.number == "2−1−2")
    lines = body.split("\n")
    assert lines[0].startswith("◆")
    assert lines[1] == "例)"
    assert set(lines[2]) == {"−"}
    assert lines[-1].startswith("◆試合中に対戦相手に")
    assert sum(line.startswith("◆") for line in lines) == 3


def test_crossover_changelog_is_the_last_section_not_a_heading_list(document):
    changelog = document.sections[-1]
    assert (changelog.number, changelog.title) == ("5", "変更履歴")
    assert "4-3-8-1" in changelog.body  # written with ASCII dashes: text, not headings
    assert changelog.body.split("\n")[1].startswith("Version2.02")


def test_crossover_odd_spots_are_flagged_not_renumbered(document):
    flagged = {
        (index, section.number): [(flag.code, flag.params) for flag in section.flags]
        for index, section in enumerate(document.sections)
        if section.flags
    }
    assert flagged == {
        (27, "3−2−2"): [
            (parsing.DUPLICATE_NUMBER, {"number": "3−2−2"}),
            (parsing.MISPLACED_NUMBER, {"number": "3−2−2", "parent": "3−3"}),
        ],
        (42, "3−6"): [(parsing.NUMBER_GAP, {"missing": "3−5"})],
    }


def test_numbers_inside_body_text_are_not_headings():
    text = (
        "■■ Rules Version 1.0 (2001/1/1) ■■ 1 はじめに 1−1 用語 ◆HP 5 点を失う。 2 おわり ◆終わり。"
    )
    document = parse_document(text, "oneline")
    assert [(s.number, s.title) for s in document.sections] == [
        ("1", "はじめに"),
        ("1−1", "用語"),
        ("2", "おわり"),
    ]
    assert document.sections[1].body == "◆HP 5 点を失う。"


def test_unknown_style_is_an_error():
    with pytest.raises(ParseError, match="unknown document style 'scroll'"):
        parse_document("1 a", "scroll")


def test_text_without_headings_is_an_error():
    with pytest.raises(ParseError, match="no section headings"):
        parse_document("just prose, no headings at all", "oneline")
