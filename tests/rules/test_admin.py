"""Judges in the admin: rulings and errata with history, Japanese search, the tree."""

import datetime as dt

import pytest
from django.urls import reverse

from rules import services
from rules.models import Erratum, ErratumRevision, Ruling, RulingRevision, RulingStatus
from tests.factories import CardFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def judge_client(client, judge):
    client.force_login(judge)
    return client


def ruling_form(game, **overrides):
    return {
        "game": game.pk,
        "question": "Does 〔ロンジー〕 stop 〔魔界〕?",
        "answer": "Yes: 魔界 is an event.",
        "source": "Official FAQ",
        "date": "2002-05-01",
        "status": RulingStatus.OFFICIAL,
        "cards": [],
        "sections": [],
        "superseded_by": "",
        "revisions-TOTAL_FORMS": 0,
        "revisions-INITIAL_FORMS": 0,
        **overrides,
    }


def test_judge_adds_and_changes_a_ruling_with_history(judge_client, judge, crossover_rules):
    game = crossover_rules.game
    card = CardFactory(game=game, name="柴崎 拓也")
    section = crossover_rules.sections.get(number_key="4-3-8")
    response = judge_client.post(
        reverse("admin:rules_ruling_add"),
        ruling_form(game, cards=[card.pk], sections=[section.pk]),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    ruling = Ruling.objects.get()
    assert list(ruling.cards.all()) == [card]
    assert list(ruling.sections.all()) == [section]
    assert "4-3-8" in ruling.search_text
    created = RulingRevision.objects.get()
    assert (created.action, created.changed_by, created.before) == ("created", judge, None)

    response = judge_client.post(
        reverse("admin:rules_ruling_change", args=[ruling.pk]),
        ruling_form(game, answer="No.", cards=[], sections=[section.pk]),
    )
    assert response.status_code == 302
    changed = RulingRevision.objects.order_by("-id").first()
    assert changed.action == "changed"
    assert changed.changed_fields() == ["answer", "cards"]
    assert changed.before["cards"] == [f"柴崎 拓也 (#{card.pk})"]
    assert changed.after["cards"] == []

    page = judge_client.get(reverse("admin:rules_ruling_change", args=[ruling.pk]))
    body = page.content.decode()
    assert "History (every change is kept)" in body
    # The change, readable: the field's label, the old and new answer, the card removed.
    answer = '<span class="history-field">Answer</span> <del>Yes: 魔界 is an event.</del>'
    assert f"{answer} → <ins>No.</ins>" in body
    assert f'<span class="history-field">Cards</span> <del>柴崎 拓也 (#{card.pk})</del>' in body


def test_superseding_in_the_admin_needs_the_replacement(judge_client, crossover_rules):
    game = crossover_rules.game
    response = judge_client.post(
        reverse("admin:rules_ruling_add"), ruling_form(game, status=RulingStatus.SUPERSEDED)
    )
    assert response.status_code == 200
    assert "superseded_by" in response.context["adminform"].form.errors
    assert not Ruling.objects.exists()
    assert not RulingRevision.objects.exists()


def test_deleting_a_ruling_in_the_admin_keeps_its_history(judge_client, judge, game):
    ruling = services.save_ruling(Ruling(game=game, question="Q", answer="A"), by=judge)
    response = judge_client.post(
        reverse("admin:rules_ruling_delete", args=[ruling.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not Ruling.objects.exists()
    assert [r.action for r in RulingRevision.objects.order_by("id")] == ["created", "deleted"]
    # The history stays readable in the admin.
    listing = judge_client.get(reverse("admin:rules_rulingrevision_changelist"))
    assert listing.status_code == 200
    assert listing.context["cl"].result_count == 2


def test_bulk_delete_goes_through_the_service(judge_client, judge, game):
    rulings = [
        services.save_ruling(Ruling(game=game, question=f"Q{n}", answer="A"), by=judge)
        for n in range(2)
    ]
    response = judge_client.post(
        reverse("admin:rules_ruling_changelist"),
        {"action": "delete_selected", "_selected_action": [r.pk for r in rulings], "post": "yes"},
    )
    assert response.status_code == 302
    assert RulingRevision.objects.filter(action="deleted").count() == 2


def test_judge_adds_an_erratum_and_the_card_text_follows(judge_client, judge, game):
    card = CardFactory(game=game, name="森原 さとみ")
    response = judge_client.post(
        reverse("admin:rules_erratum_add"),
        {
            "card": card.pk,
            "date": "2002-04-01",
            "new_text": "errata text",
            "source": "official",
            "revisions-TOTAL_FORMS": 0,
            "revisions-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302
    revision = ErratumRevision.objects.get()
    assert (revision.action, revision.changed_by) == ("created", judge)
    assert judge_client.get(reverse("rules:card", args=[card.pk])).context["current_text"] == (
        "errata text"
    )
    erratum = Erratum.objects.get()
    judge_client.post(reverse("admin:rules_erratum_delete", args=[erratum.pk]), {"post": "yes"})
    assert [r.action for r in ErratumRevision.objects.order_by("id")] == ["created", "deleted"]


@pytest.mark.parametrize("query", ["維持費", "4-3-8", "４－３－８", "ｷｬﾗｸﾀｰ"])
def test_admin_section_search_is_the_rules_search(judge_client, crossover_rules, query):
    response = judge_client.get(reverse("admin:rules_section_changelist"), {"q": query})
    assert response.status_code == 200
    results = list(response.context["cl"].result_list)
    assert results
    first = results[0]
    expected_first = {"維持費": "3−6−2", "4-3-8": "4−3−8", "４－３－８": "4−3−8"}
    if query in expected_first:
        assert first.number == expected_first[query]


def test_admin_ruling_search_and_autocomplete(judge_client, judge, crossover_rules):
    game = crossover_rules.game
    ruling = services.save_ruling(
        Ruling(game=game, question="割り込みの順番は?", answer="逆順です。"), by=judge
    )
    response = judge_client.get(reverse("admin:rules_ruling_changelist"), {"q": "割り込み"})
    assert list(response.context["cl"].result_list) == [ruling]
    # The sections autocomplete of the ruling form uses the same search.
    response = judge_client.get(
        reverse("admin:autocomplete"),
        {
            "term": "4-3-8",
            "app_label": "rules",
            "model_name": "ruling",
            "field_name": "sections",
        },
    )
    assert response.status_code == 200
    assert response.json()["results"][0]["text"].startswith("4−3−8 ")


def test_admin_erratum_search_by_card_name(judge_client, judge, game):
    card = CardFactory(game=game, name="森原 さとみ")
    erratum = services.save_erratum(
        Erratum(card=card, date=dt.date(2002, 4, 1), new_text="x"), by=judge
    )
    response = judge_client.get(reverse("admin:rules_erratum_changelist"), {"q": "森原さとみ"})
    assert list(response.context["cl"].result_list) == [erratum]


def test_admin_document_page_shows_the_section_tree(judge_client, crossover_rules):
    response = judge_client.get(
        reverse("admin:rules_rulesdocument_change", args=[crossover_rules.pk])
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert [node.number for node in response.context["tree"]] == ["1", "2", "3", "4", "5"]
    assert body.count("(needs review)") == 2
    assert reverse("admin:rules_section_change", args=[crossover_rules.sections.first().pk]) in body


def test_admin_make_current_action(judge_client, crossover_rules):
    newer = services.import_rules_document(
        game=crossover_rules.game, text="■■ R ■■ 1 a ◆x 1−1 b ◆y 2 c ◆z", checksum="new"
    ).document
    crossover_rules.refresh_from_db()
    assert not crossover_rules.is_current
    judge_client.post(
        reverse("admin:rules_rulesdocument_changelist"),
        {"action": "make_current", "_selected_action": [crossover_rules.pk]},
    )
    crossover_rules.refresh_from_db()
    newer.refresh_from_db()
    assert (crossover_rules.is_current, newer.is_current) == (True, False)


def test_admin_changelists_query_count(judge_client, judge, game, django_assert_num_queries):
    url = reverse("admin:rules_ruling_changelist")
    services.save_ruling(Ruling(game=game, question="Q", answer="A"), by=judge)
    # session, user, permissions (2), game filter, counts (2), the page of rulings
    with django_assert_num_queries(8):
        judge_client.get(url)
    for _ in range(2):
        services.save_ruling(Ruling(game=game, question="Q", answer="A"), by=judge)
    with django_assert_num_queries(8):
        response = judge_client.get(url)
    assert response.context["cl"].result_count == 3


@pytest.mark.parametrize(
    "url_name",
    [
        "admin:rules_ruling_changelist",
        "admin:rules_ruling_add",
        "admin:rules_erratum_changelist",
        "admin:rules_section_changelist",
        "admin:rules_rulesdocument_changelist",
        "admin:rules_rulingrevision_changelist",
        "admin:rules_erratumrevision_changelist",
    ],
)
def test_outsiders_cannot_use_the_rules_admin(client, outsider, staff_without_rules, url_name):
    url = reverse(url_name)
    assert client.get(url).status_code == 302  # anonymous: to the login page
    client.force_login(outsider)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    client.force_login(staff_without_rules)
    assert client.get(url).status_code == 403


def test_outsider_cannot_post_a_ruling(client, outsider, staff_without_rules, game):
    for user in (outsider, staff_without_rules):
        client.force_login(user)
        client.post(reverse("admin:rules_ruling_add"), ruling_form(game))
    assert not Ruling.objects.exists()


def test_documents_cannot_be_added_or_sections_deleted_in_the_admin(judge_client, crossover_rules):
    assert judge_client.get(reverse("admin:rules_rulesdocument_add")).status_code == 403
    section = crossover_rules.sections.first()
    assert (
        judge_client.get(reverse("admin:rules_section_delete", args=[section.pk])).status_code
        == 403
    )


def _add_erratum(judge, game, index):
    card = CardFactory(game=game)
    services.save_erratum(Erratum(card=card, date=dt.date(2002, 4, 1), new_text="x"), by=judge)


def _add_document(judge, game, index):
    services.import_rules_document(
        game=game, text="■■ R ■■ 1 a ◆x 1−1 b ◆y 2 c ◆z", checksum=str(index), series=f"s{index}"
    )


@pytest.mark.parametrize(
    ("url_name", "add", "queries"),
    [
        # session, user, permissions (2), filter choices, counts (2), the page
        ("admin:rules_erratum_changelist", _add_erratum, 8),
        ("admin:rules_rulesdocument_changelist", _add_document, 8),
        ("admin:rules_section_changelist", _add_document, 8),
        ("admin:rules_erratumrevision_changelist", _add_erratum, 7),
    ],
)
def test_admin_list_pages_query_count(
    judge_client, judge, game, django_assert_num_queries, url_name, add, queries
):
    url = reverse(url_name)
    add(judge, game, 0)
    with django_assert_num_queries(queries):
        judge_client.get(url)
    add(judge, game, 1)
    add(judge, game, 2)
    with django_assert_num_queries(queries):
        response = judge_client.get(url)
    assert response.context["cl"].result_count >= 3
