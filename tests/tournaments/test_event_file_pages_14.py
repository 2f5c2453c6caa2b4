"""The event file on the pages and the API (issue #14): the staff's download (e-mails for
the organizer only), the public file (once the rounds are under way, without private
data), the import page (every problem with its JSON path, nothing written; the importer
becomes the organizer; only the organizer replaces an event) and the same through
``/api/v1/events/{id}/event-file/`` and ``/api/v1/event-files/``."""

from __future__ import annotations

import copy
import json
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments import services
from tournaments.event_file import export_event, validate
from tournaments.models import AuditEntry, Event, Registration, Round, RoundStatus

from .factories import new_event, open_event, play_round, register_all

pytestmark = pytest.mark.django_db

IMPORT_URL = "/events/import/"
API_IMPORT = "/api/v1/event-files/"


def download_url(event) -> str:
    return f"/events/{event.pk}/event-file/"


def api_url(event) -> str:
    return f"/api/v1/events/{event.pk}/event-file/"


def without_time(document: dict) -> dict:
    return {key: value for key, value in document.items() if key != "exported_at"}


def counts() -> dict:
    return {
        "events": Event.objects.count(),
        "registrations": Registration.objects.count(),
        "rounds": Round.objects.count(),
        "users": get_user_model().objects.count(),
        "audit": AuditEntry.objects.count(),
    }


def upload(document, name="event-1.json") -> SimpleUploadedFile:
    raw = document if isinstance(document, bytes) else json.dumps(document).encode()
    return SimpleUploadedFile(name, raw, content_type="application/json")


@pytest.fixture
def running(event_after_round_3):
    """event_after_round_3 (a warning, a drop, staff) with round 4 generated but not
    published, and one player's e-mail address on record."""
    state = event_after_round_3
    services.generate_round(state.event, actor=state.organizer)
    player = state.players[0]
    player.email = "alice@example.org"
    player.save(update_fields=["email"])
    state.event.refresh_from_db()
    return state


# --- download ------------------------------------------------------------------------------


def test_staff_download_is_the_whole_file_as_an_attachment(client, running, judge):
    event = running.event
    client.force_login(judge)
    response = client.get(download_url(event))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="event-{event.pk}.json"'
    document = json.loads(response.content)
    assert without_time(document) == without_time(export_event(event))
    assert document["private"] is False
    assert [round_["status"] for round_ in document["rounds"]] == ["closed"] * 3 + ["draft"]
    assert len(document["penalties"]) == 1
    assert document["audit"]
    assert all("email" not in user for user in document["users"])


def test_private_fields_only_for_the_organizer(client, running, organizer, co_organizer, judge):
    event = running.event
    client.force_login(organizer)
    response = client.get(download_url(event), {"private": "1"})
    assert response.status_code == 200
    document = json.loads(response.content)
    assert document["private"] is True
    emails = {user["username"]: user["email"] for user in document["users"]}
    assert emails["player001"] == "alice@example.org"
    for staff in (co_organizer, judge):
        client.force_login(staff)
        assert client.get(download_url(event), {"private": "1"}).status_code == 403


def test_outsider_refused_before_the_rounds_are_under_way(client, staffed_event, outsider):
    """Registration open: the file is the staff's alone."""
    client.force_login(outsider)
    assert client.get(download_url(staffed_event)).status_code == 403
    client.logout()
    assert client.get(download_url(staffed_event)).status_code == 403


def test_draft_event_file_does_not_exist_for_an_outsider(client, organizer, crossover, outsider):
    draft = new_event(organizer, crossover)
    client.force_login(outsider)
    assert client.get(download_url(draft)).status_code == 404


def test_public_file_once_running_has_no_private_data(client, running, outsider):
    event = running.event
    client.force_login(outsider)
    response = client.get(download_url(event))
    assert response.status_code == 200
    document = json.loads(response.content)
    assert validate(document) == []
    assert document["private"] is False
    assert [round_["number"] for round_ in document["rounds"]] == [1, 2, 3]  # not the draft
    assert document["penalties"] == []
    assert document["deck_checks"] == []
    assert document["audit"] == []
    assert document["event"]["staff"] == []
    assert all(row["decklist"] is None for row in document["registrations"])
    usernames = {user["username"] for user in document["users"]}
    assert "judge" not in usernames
    assert "co-organizer" not in usernames
    assert usernames == {"organizer"} | {f"player{n:03d}" for n in range(1, 9)}
    assert all("email" not in user for user in document["users"])
    # The same for a visitor who is not signed in; e-mails are refused to both.
    client.logout()
    assert json.loads(client.get(download_url(event)).content)["penalties"] == []
    assert client.get(download_url(event), {"private": "1"}).status_code == 403


def test_public_file_has_the_decklists_once_they_are_public(client, running, organizer, outsider):
    event = running.event
    services.update_event(event, actor=organizer, decklists_public_from=timezone.now())
    client.force_login(outsider)
    document = json.loads(client.get(download_url(event)).content)
    assert all(row["decklist"] is not None for row in document["registrations"])
    assert validate(document) == []


def test_staff_page_offers_the_email_box_to_the_organizer_only(
    client, running, organizer, judge, outsider
):
    event = running.event
    url = reverse("tournaments:event_file_staff", args=[event.pk])
    client.force_login(organizer)
    page = client.get(url).content.decode()
    assert f'action="{download_url(event)}"' in page
    assert 'name="private"' in page
    assert f"python -m tournaments.engine.replay event-{event.pk}.json" in page
    client.force_login(judge)
    page = client.get(url).content.decode()
    assert 'name="private"' not in page
    client.force_login(outsider)
    assert client.get(url).status_code == 403
    client.logout()
    assert client.get(url).status_code == 302


def test_download_query_count_does_not_grow_with_the_event(
    client, running, organizer, crossover, make_players
):
    """The export is a fixed number of queries: an event with 8 players and 4 rounds costs
    what one with 2 players and 1 round does."""
    small = open_event(organizer, crossover, name="Small")
    register_all(small, make_players(2, prefix="small"))
    services.start_event(small, actor=organizer)
    play_round(small, organizer, lambda number, table: "2-0")
    client.force_login(organizer)

    def queries(event) -> int:
        client.get(download_url(event))  # warm the session
        with CaptureQueriesContext(connection) as context:
            assert client.get(download_url(event)).status_code == 200
        return len(context.captured_queries)

    assert queries(running.event) == queries(small)


# --- import page -----------------------------------------------------------------------------


def test_import_page_shows_every_problem_and_writes_nothing(client, running, outsider):
    document = export_event(running.event)
    broken = copy.deepcopy(document)
    broken["event"]["uid"] = str(uuid.uuid4())
    broken["rounds"][0]["matches"][0]["player2"] = "nobody-here"
    broken["rounds"][1]["matches"][0]["reported_by"] = "player999"
    before = counts()
    client.force_login(outsider)
    response = client.post(IMPORT_URL, {"file": upload(broken)})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported" in page
    assert "<code>rounds[0].matches[0].player2</code>" in page
    assert "<code>rounds[1].matches[0].reported_by</code>" in page
    assert response.context["problem_count"] == len(validate(broken)) >= 2
    assert counts() == before


def test_import_page_names_a_file_that_is_not_json(client, outsider):
    client.force_login(outsider)
    response = client.post(IMPORT_URL, {"file": upload(b'{"schema": ')})
    assert response.status_code == 400
    [problem] = response.context["problems"]
    assert problem.message.startswith("not JSON: Expecting value at line 1")


def test_import_page_creates_the_event_with_the_importer_as_organizer(client, running, outsider):
    document = export_event(running.event)
    document["event"]["uid"] = str(uuid.uuid4())
    client.force_login(outsider)
    response = client.post(IMPORT_URL, {"file": upload(document)})
    imported = Event.objects.get(uid=document["event"]["uid"])
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:event_detail", args=[imported.pk])
    assert imported.organizer == outsider
    assert imported.registrations.count() == 8
    # The same file again replaces the event: nothing is duplicated.
    before = counts()
    again = client.post(IMPORT_URL, {"file": upload(document)}, follow=True)
    assert again.status_code == 200
    assert "already here and is replaced" in again.content.decode()
    # The audit log too: the file's entries and one event.imported, as after the first.
    assert counts() == before


def test_import_page_keeps_the_organizer_whose_username_matches(client, running, organizer):
    event = running.event
    document = export_event(event)
    client.force_login(organizer)
    response = client.post(IMPORT_URL, {"file": upload(document)})
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.organizer == organizer
    assert Event.objects.filter(uid=event.uid).count() == 1


def test_import_page_refuses_to_replace_another_organizers_event(client, running, judge):
    """Same uid: importing would replace the event; its judge is not its organizer."""
    document = export_event(running.event)
    before = counts()
    client.force_login(judge)
    response = client.post(IMPORT_URL, {"file": upload(document)})
    assert response.status_code == 403
    [problem] = response.context["problems"]
    assert problem.path == "event.uid"
    assert counts() == before


def test_import_page_asks_a_visitor_to_log_in(client):
    response = client.get(IMPORT_URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_import_page_in_japanese(client, outsider):
    client.force_login(outsider)
    page = client.get(IMPORT_URL, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "大会ファイルの取り込み" in page


# --- API -------------------------------------------------------------------------------------


def api_client(user=None) -> APIClient:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


def test_api_event_file_for_staff_organizer_and_public(running, organizer, judge, outsider):
    event = running.event
    staff = api_client(judge).get(api_url(event))
    assert staff.status_code == 200
    assert without_time(staff.json()) == without_time(export_event(event))
    private = api_client(organizer).get(api_url(event), {"private": "1"})
    assert private.json()["private"] is True
    refused = api_client(judge).get(api_url(event), {"private": "1"})
    assert refused.status_code == 403
    assert refused.json()["code"] == "not_organizer"
    public = api_client(outsider).get(api_url(event)).json()
    assert public["audit"] == []
    assert public["penalties"] == []
    assert api_client().get(api_url(event)).json()["rounds"] == public["rounds"]


def test_api_event_file_not_public_before_the_rounds(staffed_event, outsider):
    response = api_client(outsider).get(api_url(staffed_event))
    assert response.status_code == 403
    assert response.json()["code"] == "event_file_not_public"


def test_api_import_creates_then_replaces(running, outsider):
    document = export_event(running.event)
    document["event"]["uid"] = str(uuid.uuid4())
    api = api_client(outsider)
    created = api.post(API_IMPORT, document, format="json")
    assert created.status_code == 201
    body = created.json()
    imported = Event.objects.get(uid=document["event"]["uid"])
    assert body["event"] == imported.pk
    assert body["url"] == f"/events/{imported.pk}/"
    assert body["created"] is True
    assert body["counts"]["registrations"] == 8
    # The file names people, not accounts: each name is a placeholder of the new event,
    # never the existing account of that name (#21).
    assert body["users_created"] == [row["username"] for row in document["users"]]
    assert imported.organizer == outsider
    replaced = api.post(API_IMPORT, document, format="json")
    assert replaced.status_code == 200
    assert replaced.json()["created"] is False
    assert replaced.json()["event"] == imported.pk


def test_api_import_accepts_a_multipart_upload(running, outsider):
    document = export_event(running.event)
    document["event"]["uid"] = str(uuid.uuid4())
    response = api_client(outsider).post(API_IMPORT, {"file": upload(document)}, format="multipart")
    assert response.status_code == 201


def test_api_import_rejects_with_every_problem_and_writes_nothing(running, outsider):
    document = export_event(running.event)
    document["event"]["uid"] = str(uuid.uuid4())
    document["rounds"][0]["matches"][0]["player2"] = "nobody-here"
    before = counts()
    response = api_client(outsider).post(API_IMPORT, document, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "event_file_rejected"
    assert set(body) == {"code", "message", "details"}
    paths = [problem["path"] for problem in body["details"]["problems"]]
    assert "rounds[0].matches[0].player2" in paths
    assert body["details"]["problems"] == [
        {"path": p.path, "message": p.message} for p in validate(document)
    ]
    assert counts() == before


def test_api_import_refuses_replacing_another_organizers_event(running, judge):
    response = api_client(judge).post(API_IMPORT, export_event(running.event), format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "not_organizer"


def test_api_import_refuses_an_anonymous_caller(running):
    before = counts()
    response = api_client().post(API_IMPORT, export_event(running.event), format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "not_authenticated"
    assert counts() == before


def test_api_event_file_query_count_does_not_grow_with_the_event(
    running, organizer, crossover, make_players
):
    small = open_event(organizer, crossover, name="Small")
    register_all(small, make_players(2, prefix="small"))
    services.start_event(small, actor=organizer)
    play_round(small, organizer, lambda number, table: "2-0")
    api = api_client(organizer)

    def queries(event) -> int:
        with CaptureQueriesContext(connection) as context:
            assert api.get(api_url(event)).status_code == 200
        return len(context.captured_queries)

    assert queries(running.event) == queries(small)
    assert Round.objects.filter(event=running.event, status=RoundStatus.DRAFT).count() == 1


# --- verify page and schema ------------------------------------------------------------------


def test_verify_page_shows_the_command_the_download_and_the_format(
    client, running, outsider, django_assert_num_queries
):
    event = running.event
    client.force_login(outsider)
    url = reverse("tournaments:event_verify", args=[event.pk])
    client.get(url)
    with django_assert_num_queries(3):  # session, user, the event with the viewer's access
        response = client.get(url)
    page = response.content.decode()
    assert f"python -m tournaments.engine.replay event-{event.pk}.json" in page
    assert f'href="{download_url(event)}" download' in page
    assert "# The event file (`crossover-event/1`)" in page
    assert f'href="{reverse("tournaments:event_file_schema")}"' in page


def test_verify_page_before_the_rounds_has_no_download(client, staffed_event, outsider):
    client.force_login(outsider)
    page = client.get(reverse("tournaments:event_verify", args=[staffed_event.pk]))
    assert page.status_code == 200
    assert download_url(staffed_event) not in page.content.decode()


def test_verify_page_of_a_draft_does_not_exist_for_a_visitor(client, organizer, crossover):
    draft = new_event(organizer, crossover)
    assert client.get(reverse("tournaments:event_verify", args=[draft.pk])).status_code == 404


def test_event_file_schema_is_public(client):
    response = client.get(reverse("tournaments:event_file_schema"))
    assert response.status_code == 200
    assert response.json()["$schema"].startswith("https://json-schema.org/")
