"""Search over imported rulebooks, rulings and cards, on SQLite and PostgreSQL alike.

The documents come from ../shared/seeds/ (skipped when absent).
"""

import datetime as dt

import pytest

from cardpool.models import Card
from rules import services
from rules.models import Ruling, RulingStatus, Section
from rules.search import matches, parse_query
from rules.selectors import search_rules
from tests.factories import CardFactory
from tests.rules.conftest import import_seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(crossover_rules, judge):
    """The CrossOver rulebook, the players' wiki summary (a second series of the same
    game), the Monster Collection supplement, two cards and rulings."""
    import_seed("002", series="wiki")
    import_seed("001")
    game = crossover_rules.game
    yamana = CardFactory(game=game, name="山名 春恵")
    satomi = CardFactory(game=game, name="森原 さとみ")
    section = crossover_rules.sections.get(number_key="4-2-10")
    ruling = services.save_ruling(
        Ruling(game=game, question="Does it affect itself?", answer="No, only the others."),
        by=judge,
        cards=[yamana],
        sections=[section],
    )
    old = services.save_ruling(
        Ruling(game=game, question="Old answer about <script>", answer="Yes."), by=judge
    )
    services.supersede_ruling(old, by=judge, replacement=ruling)
    return {"yamana": yamana, "satomi": satomi, "ruling": ruling, "old": old}


def every_hit(query, **options):
    return search_rules(query, page_size=10_000, **options).hits


def first(query, **options):
    return search_rules(query, page_size=1, **options).hits[0]


@pytest.mark.parametrize("query", ["4-3-8", "4−3−8", "４－３－８", "4ー3ー8", " 4-3-8 "])
def test_section_numbers_match_with_any_dash(library, query):
    hits = every_hit(query, game="crossover")
    assert [(hit.kind, hit.number) for hit in hits[:2]] == [
        ("section", "4−3−8"),
        ("section", "4−3−8−1"),
    ]
    assert hits[0].url == "/rules/crossover/4-3-8/"
    # Then the texts that mention 4-3-8 (the wiki cites it as 【ルール 4-3-8】).
    assert {hit.title for hit in hits[2:]} == {"ルール細則", "変更履歴"}


def test_a_number_printed_twice_finds_both_sections(library):
    hits = every_hit("3-2-2", game="crossover")
    assert [(h.number, h.title, h.tier) for h in hits[:2]] == [
        ("3−2−2", "カードのアンタップ", 0),
        ("3−2−2", "カードを1枚引く", 0),
    ]


@pytest.mark.parametrize(
    ("query", "top_number", "top_title", "total"),
    [
        ("対象", "4−2−13", "対象", 14),
        ("維持費", "3−6−2", "維持費の支払い", 4),
        ("割込", "", "割込み処理", 2),  # the wiki writes 割込み; the rulebook 割り込み
        ("割り込み", "4−3−4", "割り込み", 13),
    ],
)
def test_two_and_three_character_japanese_queries(library, query, top_number, top_title, total):
    hits = every_hit(query, game="crossover")
    assert (hits[0].number, hits[0].title) == (top_number, top_title)
    assert len(hits) == total


def test_exact_title_is_highlighted_and_ranked_first(library):
    hit = first("対象", game="crossover")
    assert hit.title_html == "<mark>対象</mark>"
    assert hit.excerpt_html.startswith("◆カードテキスト中に、「<mark>対象</mark>の〜」")


def test_mixed_japanese_and_english_any_width_and_case(library):
    narrow = {(h.kind, h.object.pk) for h in every_hit("キャラクター AP", game="crossover")}
    wide = {(h.kind, h.object.pk) for h in every_hit("ｷｬﾗｸﾀｰ　ａｐ", game="crossover")}
    assert narrow == wide
    assert len(narrow) == 9
    # The excerpt shows the place where most of the words are.
    hit = next(h for h in every_hit("キャラクター AP") if h.number == "3−4−5−4")
    assert "<mark>キャラクター</mark>" in hit.excerpt_html
    assert "<mark>AP</mark>" in hit.excerpt_html
    assert {h.number for h in every_hit("all turn")} >= {"3−4−2", "3−4−4"}


def test_card_name_finds_the_card_its_rulings_and_sections(library):
    hits = every_hit("山名春恵", game="crossover")
    assert [(hit.kind, hit.title) for hit in hits] == [
        ("card", "山名 春恵"),
        ("ruling", "Does it affect itself?"),
        ("section", "カードテキストにある「カード名」の扱い"),
        ("section", "ダメージと能力値への修正"),
        ("section", "ルール細則"),
    ]
    assert hits[0].url == f"/rules/cards/{library['yamana'].pk}/"
    assert hits[0].title_html == "<mark>山名 春恵</mark>"
    # The same with the space the card prints.
    assert [h.title for h in every_hit("山名 春恵", game="crossover")] == [h.title for h in hits]


def test_superseded_rulings_are_left_out(library):
    assert every_hit("<script>") == []
    assert [h.object for h in every_hit("itself")] == [library["ruling"]]


def test_results_are_escaped(library):
    ruling = library["ruling"]
    ruling.answer = "Use <b>care</b> & itself"
    services.save_ruling(ruling, by=None)
    hit = first("itself")
    assert hit.excerpt_html == "Use &lt;b&gt;care&lt;/b&gt; &amp; <mark>itself</mark>"


def test_game_filter(library):
    assert {hit.game for hit in every_hit("対象", game="monster-collection")} == {
        "monster-collection"
    }
    assert len(every_hit("対象", game="monster-collection")) == 8
    assert {hit.game for hit in every_hit("対象")} == {"crossover", "monster-collection"}


def test_only_current_versions_are_searched(library, crossover_rules):
    edited = services.import_rules_document(
        game=crossover_rules.game,
        text="■■ R Version 3 ■■ 1 準備 ◆維持費はない。 1−1 デッキ ◆本文。 2 終わり ◆終わり。",
        checksum="edited",
    ).document
    hits = every_hit("維持費", game="crossover")
    assert {hit.object.document for hit in hits if hit.kind == "section"} == {
        edited,
        Section.objects.get(title="全体の基本進行").document,  # the wiki series
    }


def test_pages_of_results(library):
    everything = search_rules("の", page_size=10_000)
    page_two = search_rules("の", page=2, page_size=20)
    assert page_two.total == everything.total
    assert [h.object.pk for h in page_two.hits] == [h.object.pk for h in everything.hits[20:40]]
    assert search_rules("の", page=999, page_size=20).hits == []


def test_empty_query_finds_nothing(library):
    results = search_rules("   ")
    assert (results.total, results.hits) == (0, [])


# Every query gives exactly these numbers of results on SQLite and on PostgreSQL (the
# same filter, LIKE on folded text, runs on both). Counts over all games and kinds.
SAME_ON_EVERY_DATABASE = {
    "対象": 22,
    "割込": 2,
    "維持費": 4,
    "4-3-8": 4,
    "４－３－８": 4,
    "キャラクター AP": 9,
    "ｷｬﾗｸﾀｰ": 39,
    "all turn": 3,
    "ALL": 3,
    "山名春恵": 5,
    "itself": 1,
    "の": 145,
    "ダメージ": 24,
    "zzz": 0,
}


@pytest.mark.parametrize(("query", "count"), SAME_ON_EVERY_DATABASE.items())
def test_result_set_is_the_plain_python_rule_on_every_database(library, query, count):
    """The database finds exactly what rules.search.matches finds, row by row."""
    parsed = parse_query(query)
    expected = {
        ("section", section.pk)
        for section in Section.objects.filter(document__is_current=True)
        if matches(f"{section.number} {section.title}\n{section.body}", parsed)
    }
    expected |= {
        ("ruling", ruling.pk)
        for ruling in Ruling.objects.exclude(status=RulingStatus.SUPERSEDED)
        if matches(services.ruling_search_text(ruling), parsed)
    }
    expected |= {("card", card.pk) for card in Card.objects.all() if matches(card.name, parsed)}
    found = {(hit.kind, hit.object.pk) for hit in every_hit(query)}
    assert found == expected
    assert len(found) == count


def test_ruling_dates_order_rulings(library, judge):
    game = library["ruling"].game
    newer = services.save_ruling(
        Ruling(game=game, question="itself again", answer="x", date=dt.date(2003, 1, 1)),
        by=judge,
    )
    assert [h.object for h in every_hit("itself")] == [newer, library["ruling"]]
