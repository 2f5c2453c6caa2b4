"""The demo rules of a fresh site (rules.demo via load_demo): a procedures document,
rulings and errata marked "Demo — not official", with search, section pages and card
pages working before any rulebook is imported."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from cardpool.models import Card
from cardpool.names import name_key
from rules.demo import load_demo_rules
from rules.models import Erratum, ErratumRevision, RulesDocument, Ruling, RulingRevision
from rules.selectors import search_rules

pytestmark = pytest.mark.django_db

DEMO_TITLE = (
    "大会運営の手引き（デモ — 公式ではありません） / Tournament procedures (Demo — not official)"
)
MARK = "デモ — 公式ではありません（このサイトのための例文） / Demo — not official"


@pytest.fixture(scope="module")
def _demo_loaded(django_db_setup, django_db_blocker):
    """``load_demo`` run once for the module, inside a transaction rolled back at its end;
    each test runs in a savepoint of it (pytest-django's ``db``), as
    ``TestCase.setUpTestData`` does, so one test's edits never reach another."""
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            call_command("load_demo", "--no-admin", stdout=StringIO())
            yield
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.fixture
def demo(_demo_loaded, db):
    return RulesDocument.objects.get(series="demo")


def card_named(name: str) -> Card:
    return Card.objects.get(game__slug="crossover", name_key=name_key(name))


def test_the_demo_document_rulings_and_errata_are_marked_demo(demo):
    assert (demo.game.slug, demo.title, demo.version, demo.is_current) == (
        "crossover",
        DEMO_TITLE,
        "demo-1",
        True,
    )
    assert [s.number for s in demo.sections.order_by("order")] == [
        "D1",
        "D2",
        "D2−1",
        "D2−2",
        "D2−3",
        "D3",
        "D3−1",
        "D3−2",
        "D4",
    ]
    assert demo.sections.get(number="D2−1").parent.number == "D2"
    rulings = list(Ruling.objects.order_by("source"))
    assert [r.source for r in rulings] == [f"{MARK} · demo-ruling-{n}" for n in range(1, 6)]
    assert all(r.question.startswith("【デモ・非公式】") for r in rulings)
    assert all(r.answer.startswith("【デモの例文です】") for r in rulings)
    assert {r.status for r in rulings} == {"community"}
    errata = list(Erratum.objects.order_by("source"))
    assert [e.card.name for e in errata] == ["桜庭 ひかる", "ダミーキャラクター"]
    assert all(e.new_text.startswith("【デモのエラッタ例 — 公式ではありません】") for e in errata)
    # Written through the services: history and search keys.
    assert RulingRevision.objects.filter(action="created").count() == 5
    assert ErratumRevision.objects.filter(action="created").count() == 2
    assert all(r.search_text for r in rulings)


def test_loading_again_adds_nothing_and_keeps_edits(demo):
    ruling = Ruling.objects.get(source__endswith="demo-ruling-1")
    Ruling.objects.filter(pk=ruling.pk).update(answer="edited")
    Ruling.objects.filter(source__endswith="demo-ruling-5").delete()
    summary = load_demo_rules()
    assert (summary.document_created, summary.rulings_created, summary.errata_created) == (
        False,
        1,
        0,
    )
    assert RulesDocument.objects.filter(series="demo").count() == 1
    assert Ruling.objects.count() == 5
    assert Erratum.objects.count() == 2
    assert Ruling.objects.get(pk=ruling.pk).answer == "edited"


def test_rules_index_lists_the_demo_document(client, demo):
    body = client.get(reverse("rules:index")).content.decode()
    assert DEMO_TITLE in body
    assert 'href="/rules/crossover/?series=demo"' in body
    response = client.get("/rules/crossover/?series=demo")
    assert response.status_code == 200
    assert "D2−1 デッキリストの提出 / Decklists" in response.content.decode()


def test_rules_index_lists_an_imported_rulebook_before_the_demo_document(client, demo):
    RulesDocument.objects.create(
        game=demo.game, title="Basic Rules (test)", version="2.02", style="oneline", checksum="0"
    )
    body = client.get(reverse("rules:index")).content.decode()
    assert body.index("Basic Rules (test)") < body.index(DEMO_TITLE)


def test_a_japanese_search_finds_the_demo_ruling_about_a_card(client, demo):
    results = search_rules("桜庭ひかる デッキリスト", game="crossover")
    assert [hit.kind for hit in results.hits] == ["ruling"]
    ruling = Ruling.objects.get(source__endswith="demo-ruling-3")
    assert results.hits[0].url == reverse("rules:ruling", args=[ruling.pk])
    response = client.get(reverse("rules:search"), {"q": "森原さとみ ダメージ"})
    body = response.content.decode()
    assert response.context["results"].total == 1
    assert "【デモ・非公式】" in body


def test_an_english_search_finds_a_demo_section(demo):
    results = search_rules("decklist deadline", game="crossover")
    assert [(hit.kind, hit.number) for hit in results.hits] == [("section", "D2−1")]


def test_section_pages_open_with_their_rulings(client, demo):
    section = demo.sections.get(number="D4")
    response = client.get(reverse("rules:section_by_id", args=["crossover", section.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    assert "D4 複数の効果の計算 / Several effects on one card" in body
    assert body.count('class="ruling"') == 2  # demo rulings 1 and 2 cite D4
    for child in demo.sections.filter(parent__isnull=False):
        url = reverse("rules:section_by_id", args=["crossover", child.pk])
        assert client.get(url).status_code == 200


def test_card_pages_show_their_demo_rulings_and_errata(client, demo):
    hikaru = card_named("桜庭ひかる")
    response = client.get(reverse("rules:card", args=[hikaru.pk]))
    assert response.status_code == 200
    assert [r.source for r in response.context["rulings"]] == [f"{MARK} · demo-ruling-3"]
    assert response.context["erratum"].new_text.startswith("【デモのエラッタ例")
    satomi = card_named("森原さとみ")
    rulings = client.get(reverse("rules:card", args=[satomi.pk])).context["rulings"]
    assert [r.source for r in rulings] == [f"{MARK} · demo-ruling-1"]
    assert client.get(reverse("cardpool:card_detail", args=[satomi.pk])).status_code == 200


def test_the_calculator_on_the_demo_links_no_missing_section(client, demo):
    response = client.get(reverse("rules:calculator"))
    assert [link["url"] for link in response.context["rule_links"]] == [None, None]
    assert "/rules/crossover/4-3-8/" not in response.content.decode()
