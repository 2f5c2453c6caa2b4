"""The audit page of an imported event (issue #21): the ``event.imported`` entry holds
counts named like the event's relations ("registrations", "matches"), which have no
verbose name; the page read them as fields and answered 500."""

from __future__ import annotations

import pytest
from django.utils import translation

from tournaments.audit_texts import entry_texts
from tournaments.event_file import export_event, import_event
from tournaments.models import AuditEntry, Event

from .factories import open_event, register_all

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _language_reset():
    """A page asked for in Japanese leaves Japanese active in this thread (the locale
    middleware activates, nothing deactivates): the next test starts in English."""
    yield
    translation.deactivate()


IMPORTED_UID = "5e0d5c1e-21aa-4c8b-9a0f-000000000021"


def audit_url(event) -> str:
    return f"/events/{event.pk}/staff/audit/"


@pytest.fixture
def imported(organizer, crossover, make_players):
    """A copy of an open event with two players, imported as a new event by its
    organizer."""
    event = open_event(organizer, crossover)
    register_all(event, make_players(2))
    document = export_event(event)
    document["event"]["uid"] = IMPORTED_UID
    return import_event(document, actor=organizer).event


def test_audit_page_of_an_imported_event_answers_and_reads_the_import(client, organizer, imported):
    client.force_login(organizer)
    response = client.get(audit_url(imported))
    assert response.status_code == 200
    first = response.context["rows"][0]
    assert first["entry"].action == "event.imported"
    assert first["sentence"] == "Event imported from an event file"
    assert first["action_label"] == "Event file imported"
    changes = {change["label"]: change["after"] for change in first["changes"]}
    assert changes["New event"] == "Yes"
    assert changes["Registrations imported"] == "2"
    assert changes["Rounds imported"] == "0"
    assert changes["Audit entries imported"] == str(
        AuditEntry.objects.filter(event=imported).count() - 1
    )
    text = response.content.decode()
    assert "<strong>Event imported from an event file</strong>" in text
    assert "Registrations imported:</span> 2" in text


def test_audit_page_of_an_imported_event_in_japanese(client, organizer, imported):
    client.force_login(organizer)
    response = client.get(audit_url(imported), HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 200
    text = response.content.decode()
    assert "<strong>大会ファイルから大会を取り込み</strong>" in text
    assert "取り込んだ参加登録:</span> 2" in text


def test_audit_page_of_an_imported_event_is_refused_to_an_outsider(client, outsider, imported):
    client.force_login(outsider)
    assert client.get(audit_url(imported)).status_code == 403


def test_replacing_import_reads_as_a_replacement(organizer, imported):
    document = export_event(imported)
    import_event(document, actor=organizer)
    entry = AuditEntry.objects.filter(event=imported, action="event.imported").first()
    assert entry.after["created"] is False
    texts = entry_texts(entry, imported)
    assert texts["sentence"] == "Event replaced by an imported event file"
    assert ("New event", None, "No") in texts["changes"]


@pytest.mark.parametrize("key", ["registrations", "rounds", "penalties", "staff", "webhooks"])
def test_a_key_named_like_a_reverse_relation_reads_as_words(key):
    """Any entry, not only an import's: a key that names a relation without a verbose
    name is labelled from the key itself."""
    entry = AuditEntry(action="event.updated", object_type="event", object_id=1, after={key: 3})
    with translation.override("en"):
        texts = entry_texts(entry, Event(name="Spring Open"))
    assert texts["changes"] == [(key.replace("_", " ").capitalize(), None, "3")]
