"""Public rules pages: document tree, sections, rulings, cards, search, calculator."""

import datetime as dt

import pytest
from django.urls import reverse

from rules import services
from rules.models import Erratum, Ruling
from rules.services import import_rules_document
from tests.factories import CardFactory, CardSetFactory, GameFactory, PrintingFactory
from tests.rules.conftest import import_seed

pytestmark = pytest.mark.django_db


def small_document(game, text=None, series="rules", checksum="small"):
    return import_rules_document(
        game=game,
        text=text or "■■ R Version 1 ■■ 1 準備 ◆準備の本文。 1−1 デッキ ◆50枚。 2 対戦 ◆本文。",
        checksum=checksum,
        series=series,
    ).document


def test_rules_index_lists_current_documents(client, crossover_rules):
    import_seed("002", series="wiki")
    body = client.get(reverse("rules:index")).content.decode()
    assert "基本ルール" in body
    assert 'href="/rules/crossover/"' in body
    assert 'href="/rules/crossover/?series=wiki"' in body


def test_document_tree_shows_every_section_with_its_children(client, crossover_rules):
    response = client.get(reverse("rules:document", args=["crossover"]))
    assert response.status_code == 200
    tree = response.context["tree"]
    assert [node.number for node in tree] == ["1", "2", "3", "4", "5"]
    assert [node.number for node in tree[2].tree_children] == [
        "3−1",
        "3−2",
        "3−3",
        "3−4",
        "3−6",
        "3−7",
    ]
    body = response.content.decode()
    assert 'href="/rules/crossover/4-3-8-1/"' in body
    assert body.count('<li><a href="/rules/crossover/') == 106
    assert body.count(">check</span>") == 2  # the two odd spots


def test_document_tree_query_count(client, game, django_assert_num_queries):
    small_document(game)
    url = reverse("rules:document", args=["crossover"])
    # current documents, the document, its sections, its versions: whatever their number.
    with django_assert_num_queries(4):
        client.get(url)
    small_document(
        game, "■■ R Version 2 ■■ 1 準備 ◆a 1−1 デッキ ◆b 1−2 x ◆c 2 対戦 ◆d 3 終 ◆e", checksum="2"
    )
    with django_assert_num_queries(4):
        response = client.get(url)
    assert len(response.context["versions"]) == 2


def test_older_versions_and_other_series_can_be_shown(client, game):
    old = small_document(game)
    small_document(game, "■■ R Version 2 ■■ 1 準備 ◆a 1−1 デッキ ◆b 2 対戦 ◆c", checksum="2")
    wiki = small_document(game, " 見出し \n\n本文。\n", series="wiki", checksum="w")
    url = reverse("rules:document", args=["crossover"])
    response = client.get(url, {"version": old.pk})
    assert response.context["document"] == old
    assert "an older version" in response.content.decode()
    # Links in an older version go by id: numbers lead to the current version.
    assert f'href="/rules/crossover/sections/{old.sections.get(number_key="1-1").pk}/"' in (
        response.content.decode()
    )
    assert client.get(url, {"series": "wiki"}).context["document"] == wiki
    assert client.get(url, {"version": "x"}).status_code == 404
    assert client.get(url, {"series": "nope"}).status_code == 404


def test_unknown_game_is_404(client, db):
    assert client.get(reverse("rules:document", args=["nope"])).status_code == 404


@pytest.mark.parametrize("number", ["4-3-8", "4−3−8", "４－３－８"])
def test_section_page_by_number_with_any_dash(client, crossover_rules, number):
    response = client.get(reverse("rules:section", args=["crossover", number]))
    assert response.status_code == 200
    entry = response.context["entries"][0]
    assert entry["section"].title == "ひとつのカードに対して効果等が複数ある場合の処理"
    assert [a.number for a in entry["ancestors"]] == ["4", "4−3"]
    assert [c.number for c in entry["children"]] == ["4−3−8−1"]


def test_section_printed_twice_shows_both_and_the_review_flags(client, crossover_rules):
    response = client.get(reverse("rules:section", args=["crossover", "3-2-2"]))
    entries = response.context["entries"]
    assert [(e["section"].title, [a.number for a in e["ancestors"]]) for e in entries] == [
        ("カードのアンタップ", ["3", "3−2"]),
        ("カードを1枚引く", ["3", "3−3"]),
    ]
    assert entries[1]["flags"] == [
        "The number 3−2−2 is printed a second time here.",
        "Printed as 3−2−2 but it stands under 3−3; kept as printed.",
    ]
    body = response.content.decode()
    assert "printed 2 times in this document" in body
    assert "kept as printed for a judge to review" in body


def test_section_page_shows_rulings_citing_it_also_from_older_versions(
    client, game, judge, django_assert_num_queries
):
    old = small_document(game)
    ruling = services.save_ruling(
        Ruling(game=game, question="How many cards?", answer="Fifty."),
        by=judge,
        sections=[old.sections.get(number_key="1-1")],
    )
    small_document(game, "■■ R Version 2 ■■ 1 準備 ◆a 1−1 デッキ ◆60枚。 2 対戦 ◆c", checksum="2")
    url = reverse("rules:section", args=["crossover", "1-1"])
    # document, outline, sections, rulings (with their cards and sections): fixed.
    with django_assert_num_queries(6):
        response = client.get(url)
    assert response.context["entries"][0]["rulings"] == [ruling]
    assert "How many cards?" in response.content.decode()
    for _ in range(2):
        services.save_ruling(
            Ruling(game=game, question="More?", answer="x"),
            by=judge,
            sections=[old.sections.get(number_key="1-1")],
        )
    with django_assert_num_queries(6):
        response = client.get(url)
    assert len(response.context["entries"][0]["rulings"]) == 3


def test_section_by_id_for_unnumbered_sections(client, game):
    wiki = small_document(game, " 見出し \n\n本文。\n", series="wiki", checksum="w")
    section = wiki.sections.get()
    response = client.get(reverse("rules:section_by_id", args=["crossover", section.pk]))
    assert response.status_code == 200
    assert response.context["entries"][0]["section"] == section
    other = GameFactory(slug="other", name="Other")
    assert (
        client.get(reverse("rules:section_by_id", args=[other.slug, section.pk])).status_code == 404
    )


def test_missing_section_is_404(client, crossover_rules):
    assert client.get(reverse("rules:section", args=["crossover", "3-5"])).status_code == 404


def test_card_page_shows_current_text_errata_and_rulings(client, game, judge):
    card = CardFactory(game=game, name="森原 さとみ")
    PrintingFactory(card=card, set=CardSetFactory(game=game), text="printed")
    services.save_erratum(
        Erratum(card=card, date=dt.date(2002, 4, 1), new_text="errata text"), by=judge
    )
    ruling = services.save_ruling(
        Ruling(game=game, question="Can it attack?", answer="Yes."), by=judge, cards=[card]
    )
    response = client.get(reverse("rules:card", args=[card.pk]))
    assert response.context["current_text"] == "errata text"
    assert response.context["rulings"] == [ruling]
    body = response.content.decode()
    assert "From the erratum of 2002-04-01." in body
    assert "Can it attack?" in body


def test_card_page_query_count(client, game, judge, django_assert_num_queries):
    card = CardFactory(game=game)
    url = reverse("rules:card", args=[card.pk])
    services.save_erratum(Erratum(card=card, date=dt.date(2002, 3, 1), new_text="x"), by=judge)
    services.save_ruling(Ruling(game=game, question="Q", answer="A"), by=judge, cards=[card])
    # card with game, printings, errata, rulings (with their cards and sections)
    with django_assert_num_queries(6):
        client.get(url)
    for index in range(2):
        services.save_erratum(
            Erratum(card=card, date=dt.date(2002, 4, index + 1), new_text="x"), by=judge
        )
        services.save_ruling(Ruling(game=game, question="Q", answer="A"), by=judge, cards=[card])
    with django_assert_num_queries(6):
        response = client.get(url)
    assert len(response.context["rulings"]) == 3


def test_ruling_page_links_its_replacement(client, game, judge):
    new = services.save_ruling(Ruling(game=game, question="New", answer="A"), by=judge)
    old = services.save_ruling(Ruling(game=game, question="Old", answer="A"), by=judge)
    services.supersede_ruling(old, by=judge, replacement=new)
    body = client.get(reverse("rules:ruling", args=[old.pk])).content.decode()
    assert "This ruling has been replaced." in body
    assert f'href="/rules/rulings/{new.pk}/"' in body
    assert client.get(reverse("rules:ruling", args=[new.pk])).context["ruling"] == new


def test_search_page(client, crossover_rules):
    response = client.get(reverse("rules:search"), {"q": "維持費", "game": "crossover"})
    assert response.status_code == 200
    hits = response.context["results"].hits
    assert hits[0].number == "3−6−2"
    body = response.content.decode()
    assert "<mark>維持費</mark>" in body
    assert "2 results" in body


def test_search_page_htmx_gets_only_the_results(client, crossover_rules):
    response = client.get(reverse("rules:search"), {"q": "対象"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "<html" not in body
    assert "<mark>対象</mark>" in body


def test_search_page_without_query_and_with_bad_game(client, crossover_rules):
    assert client.get(reverse("rules:search")).context["results"] is None
    response = client.get(reverse("rules:search"), {"q": "対象", "game": "nope"})
    assert "game" in response.context["form"].errors


def test_search_page_query_count(client, game, django_assert_num_queries):
    small_document(game)
    url = reverse("rules:search")
    params = {"q": "本文"}
    # sections, rulings, cards (ids and tiers), the page's sections, the game choices.
    with django_assert_num_queries(5):
        response = client.get(url, params)
    assert response.context["results"].total == 2
    small_document(
        game, "■■ R Version 2 ■■ 1 準備 ◆本文 1−1 デ ◆本文 1−2 x ◆本文 2 対戦 ◆本文", checksum="2"
    )
    with django_assert_num_queries(5):
        response = client.get(url, params)
    assert response.context["results"].total == 4


def test_search_page_pages(client, crossover_rules):
    response = client.get(reverse("rules:search"), {"q": "の"})
    assert response.context["has_next"]
    assert "page=2" in response.content.decode()
    second = client.get(reverse("rules:search"), {"q": "の", "page": "2"})
    assert second.context["page"] == 2


def test_calculator_page_example_1(client):
    response = client.get(reverse("rules:calculator"), {"example": "4-3-8-example-1"})
    assert response.status_code == 302
    response = client.get(response["Location"])
    outcome = response.context["outcome"]
    assert (outcome.final.gender, outcome.final.ap, outcome.final.dp) == ("Other", 5, 5)
    body = response.content.decode()
    assert "1) Decide what is invalidated" in body
    assert "All modifications summed and applied at once: +5:+0" in body
    assert "Character (Other), AP:DP 5:5" in body


def test_calculator_page_example_2_shows_what_was_invalidated(client):
    response = client.get(
        client.get(reverse("rules:calculator"), {"example": "4-3-8-example-2"})["Location"]
    )
    outcome = response.context["outcome"]
    assert (outcome.final.gender, outcome.final.ap, outcome.final.dp) == ("Male", 4, 6)
    body = response.content.decode()
    assert "no effect: 〔ロンジー〕 makes the card unaffected" in body
    assert "swaps AP and DP" in body


def test_calculator_page_damage_crashes(client):
    response = client.get(
        reverse("rules:calculator"),
        {
            "name": "萌木玉緒",
            "card_type": "character",
            "gender": "Female",
            "ap": 2,
            "dp": 2,
            "damage": 3,
            "form-TOTAL_FORMS": 1,
            "form-INITIAL_FORMS": 0,
        },
    )
    assert response.context["outcome"].crashed
    assert "It crashes: 3 damage is at least its DP 2" in response.content.decode()


def test_calculator_page_rejects_an_effect_that_says_nothing(client):
    response = client.get(
        reverse("rules:calculator"),
        {
            "name": "x",
            "card_type": "character",
            "ap": 1,
            "dp": 1,
            "damage": 0,
            "form-TOTAL_FORMS": 1,
            "form-INITIAL_FORMS": 0,
            "form-0-source": "魔界",
            "form-0-source_kind": "event",
            "form-0-step": 5,
        },
    )
    assert response.context["outcome"] is None
    assert "Fill in what this effect does in its step." in response.content.decode()


def test_calculator_page_empty_form_and_add_row(client):
    response = client.get(reverse("rules:calculator"))
    assert response.status_code == 200
    assert len(response.context["effect_formset"].forms) == 3
    response = client.get(
        reverse("rules:calculator"),
        {
            "name": "x",
            "card_type": "character",
            "ap": 1,
            "dp": 1,
            "damage": 0,
            "form-TOTAL_FORMS": 1,
            "form-INITIAL_FORMS": 0,
            "add_effect": "1",
        },
    )
    assert len(response.context["effect_formset"].forms) == 2
    assert client.get(reverse("rules:calculator"), {"example": "nope"}).status_code == 404


def test_rules_index_query_count(client, django_assert_num_queries):
    game = GameFactory(slug="crossover")
    small_document(game)
    with django_assert_num_queries(1):
        client.get(reverse("rules:index"))
    for slug in ("a", "b"):
        small_document(GameFactory(slug=slug, name=slug), checksum=slug)
    with django_assert_num_queries(1):
        response = client.get(reverse("rules:index"))
    assert len(response.context["documents"]) == 3
