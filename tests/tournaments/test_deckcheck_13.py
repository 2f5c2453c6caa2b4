"""Deck checks at the table (rule 1−2−4; the sideboard count of 2−1−3 on match slips):
the service, the staff's pages, the API, permissions (an outsider and a player are
refused), query counts, the audit log and a penalty issued from a failed check."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tournaments import audit_texts, services, snapshots
from tournaments.infractions import load_builtin_infractions
from tournaments.models import AuditEntry, DeckCheck, EventRevision, Penalty, PenaltyKind
from tournaments.services import deck_checks
from tournaments.services.deck_checks import CountedCard

from .factories import register_all

pytestmark = pytest.mark.django_db

# 50 cards in the deck, 5 in the sideboard (4 狡猾フィーリア in all: the copy limit).
REGISTERED = (
    "4 森原 さとみ\n2 狡猾フィーリア [base]\n44 スワティ\n"
    "サイドボード\n2 狡猾フィーリア [base]\n3 スワティ\n"
)
# After a legal swap: 2 スワティ out, 2 狡猾フィーリア in from the sideboard (1−2−4).
SWAPPED = "4 森原さとみ\n4 狡猾フィーリア [base]\n42 スワティ\nサイドボード\n5 スワティ\n"
# One card swapped in without one out: the deck has 51 cards, the sideboard 4.
GROWN = (
    "4 森原 さとみ\n3 狡猾フィーリア [base]\n44 スワティ\nサイドボード\n1 狡猾フィーリア [base]\n"
    "3 スワティ\n"
)


@pytest.fixture
def checked(staffed_event, organizer, make_players):
    """A running event, round 1 published: four players with REGISTERED."""
    load_builtin_infractions()
    event = staffed_event
    players = make_players(4)
    registrations = register_all(event, players, REGISTERED)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    event.refresh_from_db()
    return event, registrations, round_


def page_client(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def api_client(user=None):
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


def text_of(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


# --- the service ------------------------------------------------------------------------


def test_record_deck_check_1_2_4_legal_swap_is_ok_and_audited(checked, judge):
    _event, registrations, round_ = checked
    check = services_record(registrations[0], judge, counted_text=SWAPPED, round_=round_)
    assert check.ok is True
    assert check.method == "paste"
    assert check.round == round_
    assert check.judge == judge
    assert check.registered_text == REGISTERED
    assert check.result["discrepancies"] == []
    assert check.result["swapped_in"] == [{"name": "狡猾フィーリア", "count": 2}]
    assert check.result["swapped_out"] == [{"name": "スワティ", "count": 2}]
    assert sorted(map(tuple, check.counted["main"])) == [
        ("スワティ", None, 42),
        ("森原 さとみ", None, 4),
        ("狡猾フィーリア", "base", 4),
    ]
    entry = AuditEntry.objects.get(action="deck_check.recorded")
    assert entry.actor == judge
    assert (entry.object_type, entry.object_id) == ("registration", registrations[0].pk)
    assert entry.after == {
        "deck_check": check.pk,
        "round": 1,
        "deck_check_ok": True,
        "discrepancies": 0,
    }


def services_record(registration, actor, **options):
    return deck_checks.record_deck_check(registration, actor=actor, **options)


def test_record_deck_check_1_2_4_changed_deck_size_lists_every_discrepancy(checked, judge):
    _event, registrations, _round = checked
    check = services_record(registrations[1], judge, counted_text=GROWN)
    assert check.ok is False
    codes = [item["code"] for item in check.result["discrepancies"]]
    assert codes == ["DECK_SIZE_CHANGED", "SIDEBOARD_SIZE_CHANGED"]
    assert check.result["discrepancies"][0]["rule"] == "1−2−4"
    assert deck_checks.summary(check, "en") == (
        "The deck has 51 cards, but the registered deck has 50: sideboard swaps must keep "
        "the deck size.\nThe sideboard has 4 cards, but the registered sideboard has 5."
    )
    assert deck_checks.summary(check, "ja").startswith("デッキが51枚ですが")
    assert AuditEntry.objects.get(action="deck_check.recorded").after["discrepancies"] == 2


def test_record_deck_check_counts_per_card(checked, judge):
    _event, registrations, _round = checked
    cards = [
        CountedCard("森原 さとみ", None, main=4),
        CountedCard("狡猾フィーリア", "base", main=2, side=1),
        CountedCard("スワティ", None, main=44, side=3),
    ]
    check = services_record(registrations[0], judge, cards=cards, counted_text="SB: 1 森原さとみ")
    assert check.method == "count"
    assert [(d["code"], d["name"], d["count"]) for d in check.result["discrepancies"]] == [
        ("EXTRA", "森原 さとみ", 1),
        ("MISSING", "狡猾フィーリア", 1),
    ]


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({}, "nothing_counted"),
        ({"counted_text": "4 森原 さとみ\n3 だれか\n"}, "counted_unreadable"),
        ({"cards": [CountedCard("だれか", None, main=1)]}, "unknown_card"),
        ({"cards": [CountedCard("森原 さとみ", "β", main=1)]}, "unknown_printing"),
        ({"cards": [CountedCard("森原 さとみ", None, main=-1)]}, "invalid_count"),
    ],
)
def test_record_deck_check_refuses_counts_it_cannot_read(checked, judge, options, code):
    _event, registrations, _round = checked
    with pytest.raises(services.InvalidInput) as refused:
        services_record(registrations[0], judge, **options)
    assert refused.value.code == code
    assert DeckCheck.objects.count() == 0
    assert not AuditEntry.objects.filter(action="deck_check.recorded").exists()


def test_record_deck_check_names_the_unreadable_line(checked, judge):
    _event, registrations, _round = checked
    with pytest.raises(services.InvalidInput) as refused:
        services_record(registrations[0], judge, counted_text="4 森原 さとみ\n3 だれか\n")
    problems = refused.value.details["problems"]
    assert [(p["code"], p["lines"]) for p in problems] == [("UNKNOWN_CARD", [2])]
    assert refused.value.details["field"] == "counted_text"


def test_record_deck_check_refused_for_outsider_and_player(checked, outsider):
    _event, registrations, _round = checked
    for user in (outsider, registrations[1].player):
        with pytest.raises(services.NotAllowed) as refused:
            services_record(registrations[0], user, counted_text=SWAPPED)
        assert refused.value.code == "not_staff"
    assert DeckCheck.objects.count() == 0


def test_record_deck_check_needs_a_player_who_plays(checked, judge):
    _event, registrations, _round = checked
    services.drop_player(registrations[2], actor=judge, reason="Ill")
    with pytest.raises(services.InvalidState) as refused:
        services_record(registrations[2], judge, counted_text=SWAPPED)
    assert refused.value.code == "not_active"


def without_tokens(response) -> str:
    """The page, the per-render CSRF token and server time aside."""
    body = re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]*"', r"\1", response.content.decode())
    return re.sub(r'data-server-now="[^"]*"', "", body)


def revision(event) -> tuple[int, int]:
    return EventRevision.objects.filter(event=event).values_list("number", "standings").get()


def test_a_deck_check_leaves_the_standings_cached(checked, judge, monkeypatch):
    """deck_check.recorded is one of audit.NOT_STANDINGS_ACTIONS: the event's revision moves,
    its standings revision does not, and the standings page is served without computing
    the standings again. Its penalty is a penalty.issued, which may cost a game: both move."""
    event, registrations, round_ = checked
    page = reverse("tournaments:standings", args=[event.pk])
    visitor = page_client()
    warm = visitor.get(page)
    assert warm.status_code == 200
    number, standings = revision(event)

    check = services_record(registrations[1], judge, counted_text=GROWN, round_=round_)

    assert revision(event) == (number + 1, standings)

    def no_standings(*args, **kwargs):
        raise AssertionError("the standings were computed again")

    with monkeypatch.context() as patch:
        patch.setattr(snapshots, "compute_standings", no_standings)
        again = visitor.get(page)
    assert again.status_code == 200
    assert without_tokens(again) == without_tokens(warm)

    deck_checks.issue_deck_check_penalty(check, actor=judge, infraction="x", kind="warning")
    assert revision(event) == (number + 2, standings + 1)


def test_issue_deck_check_penalty_links_the_penalty_and_audits(checked, judge):
    event, registrations, round_ = checked
    check = services_record(registrations[1], judge, counted_text=GROWN, round_=round_)
    infraction = deck_checks.deck_mismatch_infraction(event)
    assert infraction.code == "deck_mismatch"
    match = round_.matches.get(participants__registration=registrations[1])
    penalty = deck_checks.issue_deck_check_penalty(
        check,
        actor=judge,
        infraction=infraction,
        note=deck_checks.summary(check),
        match=match,
    )
    penalty.refresh_from_db()
    assert penalty.deck_check == check
    assert penalty.kind == PenaltyKind.GAME_LOSS
    assert penalty.infraction_ref == infraction
    assert penalty.note.startswith("The deck has 51 cards")
    # One entry, the penalty's, naming the deck check.
    entries = list(AuditEntry.objects.filter(action__startswith="penalty.").order_by("id"))
    assert [entry.action for entry in entries] == ["penalty.issued"]
    assert entries[0].object_type == "penalty"
    assert entries[0].object_id == penalty.pk
    assert entries[0].after["deck_check"] == check.pk
    assert entries[0].after["kind"] == "game_loss"
    assert entries[0].after["match"] == match.pk
    assert AuditEntry.objects.filter(action__startswith="deck_check.").count() == 1
    # One penalty per deck check.
    with pytest.raises(services.Conflict) as refused:
        deck_checks.issue_deck_check_penalty(
            check, actor=judge, infraction=infraction, kind="warning", note="again"
        )
    assert refused.value.code == "deck_check_has_penalty"
    assert Penalty.objects.filter(deck_check=check).count() == 1


def test_issue_deck_check_penalty_refused_for_an_ok_check_and_outsider(checked, judge, outsider):
    _event, registrations, _round = checked
    ok = services_record(registrations[0], judge, counted_text=REGISTERED)
    with pytest.raises(services.InvalidState) as refused:
        deck_checks.issue_deck_check_penalty(ok, actor=judge, infraction="x", kind="warning")
    assert refused.value.code == "deck_check_ok"
    failed = services_record(registrations[1], judge, counted_text=GROWN)
    with pytest.raises(services.NotAllowed):
        deck_checks.issue_deck_check_penalty(failed, actor=outsider, infraction="x", kind="warning")
    assert not Penalty.objects.filter(deck_check__isnull=False).exists()


def test_audit_sentences_of_deck_checks_in_both_languages(checked, judge):
    _event, registrations, _round = checked
    services_record(registrations[0], judge, counted_text=GROWN)
    entry = AuditEntry.objects.get(action="deck_check.recorded")
    entry.person_name = "alice"
    with translation.override("en"):
        texts = audit_texts.entry_texts(entry, checked[0])
        assert texts["sentence"] == "Deck check of alice"
        assert texts["changes"] == [
            ("Deck matches the registered list", None, "No"),
            ("Discrepancies found", None, "2"),
        ]
    with translation.override("ja"):
        assert audit_texts.entry_texts(entry, checked[0])["sentence"] == "aliceのデッキチェック"


def test_audit_sentence_of_a_deck_check_penalty_in_both_languages(checked, judge):
    _event, registrations, _round = checked
    check = services_record(registrations[1], judge, counted_text=GROWN)
    deck_checks.issue_deck_check_penalty(check, actor=judge, infraction="x", kind="warning")
    entry = AuditEntry.objects.get(action="penalty.issued")
    entry.person_name = "alice"
    entry.penalty_kind = "warning"
    with translation.override("en"):
        texts = audit_texts.entry_texts(entry, checked[0])
        assert texts["sentence"] == "Warning for alice (deck check)"
        # the check's id is for the record, not a line of the diff
        assert "Deck check" not in [label for label, _before, _after in texts["changes"]]
    with translation.override("ja"):
        sentence = audit_texts.entry_texts(entry, checked[0])["sentence"]
        assert sentence == "aliceへの警告（デッキチェック）"
    # a penalty issued without a deck check reads as before
    entry.after = {**entry.after, "deck_check": None}
    with translation.override("en"):
        assert audit_texts.entry_texts(entry, checked[0])["sentence"] == "Warning for alice"


# --- pages --------------------------------------------------------------------------------


def list_url(event):
    return reverse("tournaments:deck_check_list", args=[event.pk])


def new_url(event, registration):
    return reverse("tournaments:deck_check_new", args=[event.pk, registration.pk])


def test_new_deck_check_page_counts_per_card_without_script(checked, judge):
    event, registrations, round_ = checked
    client = page_client(judge)
    response = client.get(new_url(event, registrations[0]))
    assert response.status_code == 200
    body = text_of(response)
    assert "Registered cards: 50 in the deck, 5 in the sideboard." in body
    # One row per registered card and printing, starting from the registered counts.
    assert 'name="count-card1_main" value="2"' in body
    assert 'name="count-card1_side" value="2"' in body
    assert "狡猾フィーリア [基本セット]" in body
    assert f'<option value="{round_.number}" selected>' in body
    posted = {
        "method": "count",
        "count-card0_main": "4",
        "count-card0_side": "0",
        "count-card1_main": "4",
        "count-card1_side": "0",
        "count-card2_main": "42",
        "count-card2_side": "5",
        "count-round": str(round_.number),
    }
    response = client.post(new_url(event, registrations[0]), posted)
    check = DeckCheck.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("tournaments:deck_check_detail", args=[event.pk, check.pk])
    assert check.ok is True
    assert check.method == "count"
    body = text_of(client.get(response.url))
    assert "OK: the deck and sideboard are the registered list." in body
    assert "2 × 狡猾フィーリア" in body
    assert "Issue a penalty for this deck check" not in body


def test_new_deck_check_page_paste_shows_discrepancies_in_japanese(checked, judge):
    event, registrations, _round = checked
    client = page_client(judge)
    client.cookies["django_language"] = "ja"
    response = client.post(
        new_url(event, registrations[1]),
        {"method": "paste", "paste-counted_text": GROWN, "paste-round": ""},
        HTTP_ACCEPT_LANGUAGE="ja",
    )
    check = DeckCheck.objects.get()
    body = text_of(client.get(response.url, HTTP_ACCEPT_LANGUAGE="ja"))
    assert check.ok is False
    assert "デッキが51枚ですが、登録したデッキは50枚です。" in body
    assert "サイドボードが4枚ですが、登録したサイドボードは5枚です。" in body
    penalty_url = reverse("tournaments:deck_check_penalty", args=[event.pk, check.pk])
    assert penalty_url in body


def test_new_deck_check_page_shows_the_unreadable_line(checked, judge):
    event, registrations, _round = checked
    response = page_client(judge).post(
        new_url(event, registrations[0]),
        {"method": "paste", "paste-counted_text": "4 森原 さとみ\n3 だれか\n"},
    )
    assert response.status_code == 400
    body = text_of(response)
    assert "Some lines of the counted cards cannot be read." in body
    assert "Unknown card “だれか” on line 2." in body
    assert DeckCheck.objects.count() == 0


def test_pick_page_finds_players_by_name(checked, judge):
    event, registrations, _round = checked
    response = page_client(judge).get(
        reverse("tournaments:deck_check_pick", args=[event.pk]), {"q": "player002"}
    )
    body = text_of(response)
    assert new_url(event, registrations[1]) in body
    assert new_url(event, registrations[0]) not in body


def test_penalty_page_is_prefilled_and_issues_a_linked_penalty(checked, judge):
    event, registrations, round_ = checked
    check = services_record(registrations[1], judge, counted_text=GROWN, round_=round_)
    url = reverse("tournaments:deck_check_penalty", args=[event.pk, check.pk])
    client = page_client(judge)
    response = client.get(url)
    assert response.status_code == 200
    form = response.context["penalty_form"]
    infraction = deck_checks.deck_mismatch_infraction(event)
    match = round_.matches.get(participants__registration=registrations[1])
    assert form.initial["infraction"] == str(infraction.pk)
    assert form.initial["match"] == str(match.pk)
    assert form.initial["note"] == deck_checks.summary(check, "en")
    response = client.post(
        url,
        {
            "penalty-infraction": str(infraction.pk),
            "penalty-kind": "",
            "penalty-match": str(match.pk),
            "penalty-note": form.initial["note"],
        },
    )
    assert response.status_code == 302
    penalty = Penalty.objects.get(deck_check=check)
    assert penalty.kind == PenaltyKind.GAME_LOSS
    assert penalty.match == match
    body = text_of(client.get(response.url))
    assert "Game loss: Deck does not match decklist" in body
    assert "Issue a penalty for this deck check" not in body


@pytest.mark.parametrize("name", ["deck_check_list", "deck_check_pick"])
def test_deck_check_pages_refused_for_outsider_player_and_anonymous(checked, outsider, name):
    event, registrations, _round = checked
    url = reverse(f"tournaments:{name}", args=[event.pk])
    assert page_client(outsider).get(url).status_code == 403
    assert page_client(registrations[0].player).get(url).status_code == 403
    assert page_client().get(url).status_code == 302  # to the login page


def test_deck_check_detail_and_forms_refused_for_outsider(checked, judge, outsider):
    event, registrations, _round = checked
    check = services_record(registrations[1], judge, counted_text=GROWN)
    detail = reverse("tournaments:deck_check_detail", args=[event.pk, check.pk])
    assert page_client(outsider).get(detail).status_code == 403
    for url in (
        new_url(event, registrations[0]),
        reverse("tournaments:deck_check_penalty", args=[event.pk, check.pk]),
    ):
        assert page_client(outsider).get(url).status_code == 403
        body = {"method": "paste", "paste-counted_text": REGISTERED, "penalty-kind": "warning"}
        assert page_client(outsider).post(url, body).status_code == 403
    assert DeckCheck.objects.count() == 1
    assert not Penalty.objects.filter(deck_check=check).exists()


def test_deck_check_list_query_count_is_the_same_for_1_and_3_checks(checked, judge):
    event, registrations, _round = checked
    client = page_client(judge)
    services_record(registrations[0], judge, counted_text=REGISTERED)
    client.get(list_url(event))  # warm the session and caches
    with CaptureQueriesContext(connection) as one:
        body_one = text_of(client.get(list_url(event)))
    services_record(registrations[1], judge, counted_text=GROWN)
    services_record(registrations[2], judge, counted_text=SWAPPED)
    with CaptureQueriesContext(connection) as three:
        body_three = text_of(client.get(list_url(event)))
    assert len(three) == len(one)
    assert "1 deck check" in body_one
    assert "3 deck checks" in body_three
    assert "2 discrepancies" in body_three


# --- the API --------------------------------------------------------------------------------


def api_url(event, *rest):
    return "/api/v1/events/{}/deck-checks/{}".format(event.pk, "".join(f"{p}/" for p in rest))


def test_api_create_and_list_deck_checks(checked, judge):
    event, registrations, round_ = checked
    client = api_client(judge)
    response = client.post(
        api_url(event),
        {
            "registration": registrations[0].pk,
            "round": round_.number,
            "cards": [
                {"name": "森原さとみ", "main": 4},
                {"name": "狡猾フィーリア", "printing": "base", "main": 4},
                {"name": "スワティ", "main": 42, "side": 5},
            ],
        },
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["ok"] is True
    assert data["registration"] == registrations[0].pk
    assert data["round"] == round_.number
    assert data["judge"] == "judge"
    assert data["method"] == "count"
    assert data["penalties"] == []
    assert data["result"]["swapped_in"] == [{"name": "狡猾フィーリア", "count": 2}]
    failed = client.post(
        api_url(event),
        {"registration": registrations[1].pk, "counted_text": GROWN},
        format="json",
        HTTP_ACCEPT_LANGUAGE="ja",
    )
    assert failed.status_code == 201
    discrepancies = failed.json()["result"]["discrepancies"]
    assert discrepancies[0]["code"] == "DECK_SIZE_CHANGED"
    assert discrepancies[0]["message"].startswith("デッキが51枚ですが")
    listed = client.get(api_url(event)).json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [row["ok"] for row in rows] == [False, True]


def test_api_errors_name_what_is_wrong(checked, judge):
    event, registrations, _round = checked
    client = api_client(judge)
    response = client.post(
        api_url(event),
        {"registration": registrations[0].pk, "counted_text": "4 森原 さとみ\n3 だれか\n"},
        format="json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "counted_unreadable"
    assert body["details"]["field"] == "counted_text"
    assert body["details"]["problems"][0]["lines"] == [2]
    response = client.post(api_url(event), {"registration": 999999, "counted_text": "x"})
    assert response.status_code == 400
    assert response.json()["code"] == "registration_not_found"
    assert response.json()["details"]["field"] == "registration"


def test_api_penalty_from_a_deck_check(checked, judge):
    event, registrations, round_ = checked
    check = services_record(registrations[1], judge, counted_text=GROWN, round_=round_)
    match = round_.matches.get(participants__registration=registrations[1])
    response = api_client(judge).post(
        api_url(event, check.pk, "penalty"), {"match": match.pk}, format="json"
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["infraction_code"] == "deck_mismatch"
    assert data["kind"] == "game_loss"
    assert data["deck_check"] == check.pk
    assert data["note"].startswith("The deck has 51 cards")
    again = api_client(judge).post(api_url(event, check.pk, "penalty"), {}, format="json")
    assert again.status_code == 409
    assert again.json()["code"] == "deck_check_has_penalty"


def test_api_penalty_refuses_an_unknown_kind_by_field(checked, judge):
    event, registrations, _round = checked
    check = services_record(registrations[1], judge, counted_text=GROWN)
    response = api_client(judge).post(
        api_url(event, check.pk, "penalty"), {"kind": "lecture"}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_input"
    assert body["details"]["fields"] == {"kind": ['"lecture" is not a valid choice.']}
    assert not Penalty.objects.filter(deck_check=check).exists()


def test_api_penalty_kind_is_the_penalty_kinds_enum_in_the_schema(db):
    schema = SchemaGenerator().get_schema(request=None, public=True)
    kind = schema["components"]["schemas"]["DeckCheckPenaltyInput"]["properties"]["kind"]
    refs = [item["$ref"].rsplit("/", 1)[1] for item in kind["oneOf"]]
    assert refs == ["PenaltyKindEnum", "BlankEnum"]
    assert schema["components"]["schemas"]["PenaltyKindEnum"]["enum"] == PenaltyKind.values
    penalty = schema["components"]["schemas"]["PenaltyInput"]["properties"]["kind"]
    assert {"$ref": "#/components/schemas/PenaltyKindEnum"} in penalty["oneOf"]


def test_api_refuses_outsider_player_and_anonymous(checked, judge, outsider):
    event, registrations, _round = checked
    check = services_record(registrations[1], judge, counted_text=GROWN)
    body = {"registration": registrations[0].pk, "counted_text": REGISTERED}
    for user in (outsider, registrations[0].player):
        client = api_client(user)
        listed = client.get(api_url(event))
        assert listed.status_code == 403
        assert listed.json()["code"] == "not_staff"
        assert client.get(api_url(event, check.pk)).status_code == 403
        created = client.post(api_url(event), body, format="json")
        assert created.status_code == 403
        assert created.json()["code"] == "not_staff"
        assert client.post(api_url(event, check.pk, "penalty"), {}).status_code == 403
    anonymous = api_client().get(api_url(event))
    assert anonymous.status_code == 403
    assert anonymous.json()["code"] == "not_authenticated"
    assert DeckCheck.objects.count() == 1
    assert not Penalty.objects.filter(deck_check=check).exists()


def test_api_list_query_count_is_the_same_for_1_and_3_checks(checked, judge):
    event, registrations, _round = checked
    client = api_client(judge)
    services_record(registrations[0], judge, counted_text=REGISTERED)
    client.get(api_url(event))
    with CaptureQueriesContext(connection) as one:
        assert len(client.get(api_url(event)).json()["results"]) == 1
    services_record(registrations[1], judge, counted_text=GROWN)
    services_record(registrations[2], judge, counted_text=SWAPPED)
    with CaptureQueriesContext(connection) as three:
        assert len(client.get(api_url(event)).json()["results"]) == 3
    assert len(three) == len(one)


# --- match slips: the registered sideboard count (2−1−3) ---------------------------------


def test_match_slips_show_each_players_registered_sideboard_count_2_1_3(
    staffed_event, organizer, judge, make_players
):
    event = staffed_event
    players = make_players(4)
    register_all(event, players[:2], REGISTERED)
    register_all(event, players[2:], "4 森原 さとみ\n4 狡猾フィーリア [base]\n42 スワティ\n")
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    response = page_client(judge).get(
        reverse("tournaments:match_slips", args=[event.pk, round_.number])
    )
    body = text_of(response)
    counts = re.findall(r'<span class="slip-sideboard">([^<]*)</span>', body)
    assert sorted(counts) == sorted(
        ["Sideboard: 5 cards", "Sideboard: 5 cards", "Sideboard: 0 cards", "Sideboard: 0 cards"]
    )
    assert "Confirm each other’s sideboard count before the match (rule 2−1−3)." in body


def test_a_registered_card_the_pool_no_longer_knows_can_still_be_counted(checked, judge):
    # The pool was edited after registration: "消えたカード" resolves to nothing now, but
    # the judge can count it under its registered name (per card or pasted).
    _event, registrations, _round = checked
    registration = registrations[0]
    text = REGISTERED.replace("44 スワティ", "43 スワティ\n1 消えたカード")
    registration.__class__.objects.filter(pk=registration.pk).update(deck_text=text)
    pasted = services_record(registration, judge, counted_text=text)
    assert pasted.ok is True
    cards = [
        CountedCard("森原 さとみ", None, main=4),
        CountedCard("狡猾フィーリア", "base", main=2, side=2),
        CountedCard("スワティ", None, main=43, side=3),
        CountedCard("消えたカード", None, main=0),
    ]
    counted = services_record(registration, judge, cards=cards)
    assert [(d["code"], d["name"], d["count"]) for d in counted.result["discrepancies"]] == [
        ("DECK_SIZE_CHANGED", "", 0),
        ("MISSING", "消えたカード", 1),
    ]
    # A card that is neither in the pool nor on the list is still refused.
    with pytest.raises(services.InvalidInput) as refused:
        services_record(registration, judge, counted_text=text + "1 だれか\n")
    assert refused.value.code == "counted_unreadable"


def test_audit_log_page_reads_deck_checks_in_both_languages(checked, judge):
    event, registrations, round_ = checked
    check = services_record(registrations[1], judge, counted_text=GROWN, round_=round_)
    match = round_.matches.get(participants__registration=registrations[1])
    deck_checks.issue_deck_check_penalty(
        check, actor=judge, infraction=deck_checks.deck_mismatch_infraction(event), match=match
    )
    url = reverse("tournaments:audit_log", args=[event.pk])
    body = text_of(page_client(judge).get(url, HTTP_ACCEPT_LANGUAGE="en"))
    assert "Deck check of player002" in body
    assert "Game loss for player002 (deck check)" in body
    client = page_client(judge)
    client.cookies["django_language"] = "ja"
    body = text_of(client.get(url, HTTP_ACCEPT_LANGUAGE="ja"))
    assert "player002のデッキチェック" in body
    assert "player002へのゲームロス（デッキチェック）" in body
