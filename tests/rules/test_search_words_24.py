"""Search that finds what judges type (issue #24): hiragana/katakana folding, the word list
(rules/search_words.json: judges' words → the rulebook's words) and "did you mean".

The rulebook is the CrossOver Basic Rules v2.02 from ../shared/seeds/ (the tests that need
it skip when it is absent). The sections each word must find, as the rulebook numbers them:
1−2−1 (the β版 cards that may not be used), 1−2−2 (telling β版 cards apart), 1−2−3 (deck
building, which counts the sideboard and limits a name to 4 copies), 1−2−4 (sideboard),
2−1−3 (declaring the sideboard), 2−1−6 (mulligan), 4−1 (victory conditions), 4−1−1 (match
and games, a draw), 4−1−2 (a game's end: HP 0, an empty 山札 loses, 時間切れ under a 時間制限
is a draw) and 4−2−3 (the dust box).
"""

from __future__ import annotations

import importlib
import io
import json
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from rules.models import Section
from rules.search import (
    WORDS_FILE,
    highlight,
    index_terms,
    matches,
    matches_name,
    parse_query,
    suggest,
)
from rules.selectors import search_rules
from rules.text import fold, search_key
from tests.factories import CardFactory
from tests.rules.conftest import seed_path, seed_text

# What each word judges type finds in the rulebook: every section, best first.
JUDGES_WORDS = {
    "制限時間": ["4−1−2"],
    "ベータ版": ["1−2−1", "1−2−2"],
    "山札切れ": ["4−1−2"],
    "投了": ["4−1", "4−1−2"],
    "さいどぼーど": ["1−2−4", "2−1−3", "1−2−3"],
    "sideboard": ["1−2−4", "2−1−3", "1−2−3"],
}

# Neighbours of the listed words: other spellings and languages judges use.
NEIGHBOURS = {
    "タイムアウト": ["4−1−2"],
    "time limit": ["4−1−2"],
    "引分け": ["4−1−1", "4−1−2"],
    "サレンダー": ["4−1", "4−1−2"],
    "concede": ["4−1", "4−1−2"],
    "デッキアウト": ["4−1−2"],
    "deck out": ["4−1−2"],
    "beta": ["1−2−1", "1−2−2"],
    "ベータ版 禁止": ["1−2−1"],
    "まりがん": ["2−1−6"],
    "mulligan": ["2−1−6"],
    "ＳＩＤＥＢＯＡＲＤ": ["1−2−4", "2−1−3", "1−2−3"],
    "side board": ["1−2−4", "2−1−3", "1−2−3"],
    "4枚制限": ["1−2−3"],
}


def section_numbers(query: str, **options) -> list[str]:
    results = search_rules(query, page_size=1000, **options)
    return [hit.number for hit in results.hits if hit.kind == "section"]


# --- plain Python ------------------------------------------------------------------------


def test_search_key_folds_katakana_hiragana_width_and_case():
    assert search_key("サイドボード") == "さいどぼーど"
    assert search_key("ｻｲﾄﾞﾎﾞｰﾄﾞ") == "さいどぼーど"
    assert search_key("さいどぼーど") == "さいどぼーど"
    assert search_key("ＳｉｄｅＢｏａｒｄ") == "sideboard"
    assert search_key("4ー3ー8") == "4-3-8"  # the long vowel mark between digits stays a dash
    # fold() keeps kana apart: names written in other kana are other cards (4−2−6).
    assert fold("ナルセマナミ") != fold("なるせまなみ")


def test_hiragana_query_matches_katakana_text_and_the_reverse():
    assert matches("◆サイドボードは、", parse_query("さいどぼーど"))
    assert matches("◆山札の枚数は", parse_query("ヤマフダ")) is False  # kanji are not read
    assert matches("◆マリガンの宣言", parse_query("まりがん"))
    assert matches("カードのプレイ", parse_query("かーどのぷれい"))


def test_highlight_marks_the_other_kana():
    assert highlight("サイドボードの準備", parse_query("さいどぼーど").marks) == (
        "<mark>サイドボード</mark>の準備"
    )
    assert highlight("ｻｲﾄﾞﾎﾞｰﾄﾞ", ("さいど",)) == "<mark>ｻｲﾄﾞ</mark>ﾎﾞｰﾄﾞ"


@pytest.mark.parametrize(
    ("typed", "rulebook"),
    [
        ("制限時間", ["時間制限", "時間切れ"]),
        ("ベータ版", ["β版", "βedition"]),
        ("山札切れ", ["山札にカードが1枚もなくなった"]),
        ("投了", ["勝利条件", "敗北"]),
        ("sideboard", ["サイドボード"]),
        ("SideBoard", ["サイドボード"]),
        ("side board", ["サイドボード"]),
        ("time limit", ["時間制限", "時間切れ"]),
    ],
)
def test_word_list_gives_the_rulebooks_words(typed, rulebook):
    query = parse_query(typed)
    assert len(query.groups) == 1
    assert query.groups[0] == tuple(
        dict.fromkeys([search_key(typed), *(search_key(word) for word in rulebook)])
    )
    assert [(s.typed, list(s.rulebook)) for s in query.synonyms] == [(typed, rulebook)]


def test_a_japanese_word_containing_a_listed_word_is_respelled():
    query = parse_query("ベータ版のカード")
    assert query.groups == (("べーた版のかーど", "β版のかーど", "βeditionのかーど"),)
    assert parse_query("山札切れ負け").groups == (
        ("山札切れ負け", "山札にかーどが1枚もなくなった負け"),
    )
    # Listed kana-only words are not looked for inside others (マナ in マナミ, サイド in a
    # mistyped サイドボート).
    assert parse_query("ナルセマナミ").groups == (("なるせまなみ",),)
    assert parse_query("サイドボート").synonyms == ()
    assert parse_query("サイドボード").synonyms == ()


def test_every_listed_word_group_must_match_one_alternative_each():
    query = parse_query("制限時間 引き分け")
    assert matches("時間切れの場合、引き分けになります", query)
    assert not matches("時間切れの場合", query)


def test_word_list_is_data_with_unique_typed_words():
    data = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    typed = [search_key(word) for entry in data["words"] for word in entry["typed"]]
    assert len(typed) == len(set(typed))
    assert all(entry["rulebook"] for entry in data["words"])


def test_every_rulebook_word_of_the_list_is_in_the_rulebook():
    """Facts only: each word the list sends a judge to is printed in the CrossOver rules."""
    rulebook = search_key(seed_text("000"))
    data = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    missing = [
        word
        for entry in data["words"]
        for word in entry["rulebook"]
        if search_key(word) not in rulebook
    ]
    assert missing == []


def test_card_names_are_found_in_either_kana():
    query = parse_query("ふぃーりあ")
    assert matches_name("狡猾フィーリア", query)
    assert matches_name("深見まどか", parse_query("マドカ"))
    assert not matches_name("深見まどか", parse_query("フィーリア"))


def test_suggest_takes_the_nearest_index_terms():
    terms = index_terms(["サイドボードの準備", "ゲームの勝利条件"])
    assert {"サイドボードの準備", "サイドボード", "準備", "勝利条件"} <= set(terms)
    assert suggest("サイドボート", terms)[0] == "サイドボード"
    assert suggest("時間制現", terms)[0] == "時間制限"  # from the word list
    assert suggest("mulligen", terms)[0] == "mulligan"
    assert suggest("ｻｲﾄﾞﾎﾞｰﾄﾞ", terms)[0] != "サイドボード"  # the same word is no suggestion
    assert suggest("zzzz", terms) == []


# --- against the imported rulebook --------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(("query", "numbers"), JUDGES_WORDS.items())
def test_judges_words_find_the_rulebook_sections(crossover_rules, query, numbers):
    assert section_numbers(query, game="crossover") == numbers


@pytest.mark.django_db
@pytest.mark.parametrize(("query", "numbers"), NEIGHBOURS.items())
def test_neighbouring_words_find_the_rulebook_sections(crossover_rules, query, numbers):
    assert section_numbers(query, game="crossover") == numbers


@pytest.mark.django_db
def test_graveyard_words_find_every_dust_box_section(crossover_rules):
    dust_box = section_numbers("ダストボックス", game="crossover")
    assert dust_box[0] == "4−2−3"
    assert len(dust_box) == 8
    for query in ("墓地", "graveyard", "だすとぼっくす", "ダストぼっくす"):
        assert section_numbers(query, game="crossover") == dust_box


@pytest.mark.django_db
def test_section_titles_rank_first_for_a_listed_word(crossover_rules):
    hits = search_rules("投了", page_size=10).hits
    assert [(hit.number, hit.title_html) for hit in hits] == [
        ("4−1", "<mark>勝利条件</mark>"),
        ("4−1−2", "ゲームの<mark>勝利条件</mark>"),
    ]
    hit = search_rules("制限時間", page_size=1).hits[0]
    assert "<mark>時間切れ</mark>" in hit.excerpt_html
    assert "<mark>時間制限</mark>" in hit.excerpt_html


@pytest.mark.django_db
def test_hiragana_and_katakana_queries_find_the_same(crossover_rules):
    for hiragana, katakana in [
        ("さいどぼーど", "サイドボード"),
        ("まりがん", "マリガン"),
        ("だすとぼっくす", "ダストボックス"),
        ("ｻｲﾄﾞﾎﾞｰﾄﾞ", "サイドボード"),
    ]:
        assert section_numbers(hiragana) == section_numbers(katakana) != []


@pytest.mark.django_db
def test_a_search_that_finds_nothing_suggests_index_terms(crossover_rules):
    results = search_rules("サイドボート", game="crossover")
    assert (results.total, results.hits) == (0, [])
    assert results.suggestions[0] == "サイドボード"
    assert search_rules("時間制現").suggestions[0] == "時間制限"
    # Several words: each one that finds nothing is replaced.
    assert search_rules("サイドボート 宣言").suggestions == ["サイドボード 宣言"]
    # A search that finds something suggests nothing.
    assert search_rules("サイドボード").suggestions == []
    # Nothing close: no suggestion.
    assert search_rules("zzzzqqq").suggestions == []
    # A pasted paragraph is no typo: no suggestion work for more than 4 words or 40
    # characters.
    assert search_rules("サイドボート 宣言 準備 確認 zzz").suggestions == []
    assert search_rules("サイドボート" + "ー" * 40).suggestions == []


@pytest.mark.django_db
def test_a_long_query_that_finds_nothing_costs_no_suggestion_queries(
    crossover_rules, django_assert_num_queries
):
    with django_assert_num_queries(3):  # sections, rulings, cards: nothing more
        search_rules("サイドボート 宣言 準備 確認 zzz")


@pytest.mark.django_db
def test_search_page_shows_did_you_mean_and_the_rulebooks_words(client, crossover_rules):
    url = reverse("rules:search")
    body = client.get(url, {"q": "サイドボート", "game": "crossover"}).content.decode()
    assert "Nothing matches." in body
    assert "Did you mean:" in body
    assert "Also searched for the rulebook's words:" not in body
    assert (
        '<a href="/rules/search/?q=%E3%82%B5%E3%82%A4%E3%83%89%E3%83%9C%E3%83%BC%E3%83%89'
        '&amp;game=crossover">サイドボード</a>'
    ) in body
    body = client.get(url, {"q": "制限時間"}).content.decode()
    assert "1 result" in body
    assert "Also searched for the rulebook's words:" in body
    assert "<span>制限時間 → 時間制限、時間切れ</span>" in body
    assert 'href="/rules/crossover/4-1-2/"' in body
    # The htmx partial carries the same.
    partial = client.get(url, {"q": "サイドボート"}, HTTP_HX_REQUEST="true").content.decode()
    assert "Did you mean:" in partial


@pytest.mark.django_db
def test_search_api_answers_suggestions(client, crossover_rules):
    data = client.get("/api/v1/rules/search/", {"q": "サイドボート"}).json()
    assert (data["count"], data["suggestions"][0]) == (0, "サイドボード")
    data = client.get("/api/v1/rules/search/", {"q": "sideboard"}).json()
    assert [hit["number"] for hit in data["results"]] == ["1−2−4", "2−1−3", "1−2−3"]
    assert data["suggestions"] == []


@pytest.mark.django_db
def test_card_search_finds_names_in_the_other_kana(crossover_rules):
    card = CardFactory(game=crossover_rules.game, name="狡猾フィーリア")
    hits = search_rules("ふぃーりあ", game="crossover").hits
    assert [(hit.kind, hit.object) for hit in hits if hit.kind == "card"] == [("card", card)]


def test_japanese_translations_of_the_new_messages():
    po = Path(settings.BASE_DIR) / "locale" / "ja" / "LC_MESSAGES" / "django.po"
    with po.open("rb") as handle:
        catalog = read_po(handle, locale="ja")
    assert catalog["Did you mean:"].string == "もしかして:"
    assert catalog["Also searched for the rulebook's words:"].string == (
        "ルールブックの用語でも検索しました:"
    )


# --- stored keys and the demo site ---------------------------------------------------------


@pytest.mark.django_db
def test_stored_search_keys_are_kana_folded(crossover_rules):
    section = crossover_rules.sections.get(number_key="1-2-4")
    assert section.search_title == "さいどぼーどの準備"


@pytest.mark.django_db
def test_migration_rewrites_old_search_keys(crossover_rules):
    section = crossover_rules.sections.get(number_key="1-2-4")
    Section.objects.filter(pk=section.pk).update(
        search_title=fold(section.title), search_text=fold(section.body)
    )
    migration = importlib.import_module("rules.migrations.0004_search_keys_fold_kana")
    migration.rewrite_search_keys(apps, None)
    section.refresh_from_db()
    assert section.search_title == "さいどぼーどの準備"
    assert section.search_text.startswith("1-2-4さいどぼーどの準備")
    assert section_numbers("さいどぼーど")[0] == "1−2−4"


@pytest.mark.django_db
def test_load_demo_rulebook_imports_the_seed_rulebook():
    from tests.factories import GameFactory

    GameFactory(slug="crossover", name="CrossOver The F&C TCG")
    out = io.StringIO()
    call_command("load_demo_rulebook", str(seed_path("000")), stdout=out)
    assert "imported" in out.getvalue()
    assert section_numbers("制限時間", game="crossover") == ["4−1−2"]
    # ./dev serve runs it at every start: the second time changes nothing.
    out = io.StringIO()
    call_command("load_demo_rulebook", str(seed_path("000")), stdout=out)
    assert "nothing to do" in out.getvalue()


@pytest.mark.django_db
def test_load_demo_rulebook_skips_a_missing_file_and_says_so(tmp_path):
    out = io.StringIO()
    missing = tmp_path / "000_e0cee07c6498af1f.txt"
    call_command("load_demo_rulebook", str(missing), stdout=out)
    assert out.getvalue() == (
        f"Rulebook: {missing} not found; skipped. The rules search has the demo procedures "
        "only; import a rulebook with ./dev manage import_rules --game crossover FILE\n"
    )


def test_dev_serve_loads_the_seed_rulebook_after_the_demo():
    text = (Path(settings.BASE_DIR) / "dev").read_text(encoding="utf-8")
    branch = text[text.index("\n    serve)\n") : text.index("\n    manage)\n")]
    demo = branch.index('manage.py load_demo --site "$site"\n')
    rulebook = branch.index(
        "manage.py load_demo_rulebook ../shared/seeds/000_e0cee07c6498af1f.txt\n"
    )
    assert demo < rulebook < branch.index("manage.py runserver")
