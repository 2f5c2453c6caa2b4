"""Event file round trip (issue #14): export → import into a database without the event
(nor its people) → export again gives the same document, except ``exported_at`` and the
``event.imported`` audit entries (docs/event-file.md, "Round trip")."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tournaments.event_file import export_event, import_event, validate
from tournaments.models import DeckCheck, Event, Penalty, Round

pytestmark = pytest.mark.django_db


def comparable(document: dict) -> dict:
    """The document without what a round trip is documented to change."""
    document = json.loads(json.dumps(document))
    document.pop("exported_at")
    document["audit"] = [e for e in document["audit"] if e["action"] != "event.imported"]
    return document


def empty_database() -> None:
    """Remove every event and every account: what an import into another site meets."""
    # Matches and penalties protect the registrations they name: remove them first.
    Penalty.objects.all().delete()
    DeckCheck.objects.all().delete()
    Round.objects.all().delete()
    Event.objects.all().delete()
    get_user_model().objects.all().delete()


def round_trip(events: list[Event]) -> tuple[list[dict], list[dict]]:
    first = [export_event(event) for event in events]
    for document in first:
        assert [str(p) for p in validate(document)] == []
    empty_database()
    imported = [import_event(document).event for document in first]
    second = [export_event(event) for event in imported]
    return first, second


def test_round_trip_of_the_four_demo_events_gives_the_same_documents():
    call_command("load_demo", "--no-admin")
    events = list(Event.objects.order_by("date"))
    assert len(events) == 4
    first, second = round_trip(events)
    for before, after in zip(first, second, strict=True):
        assert comparable(after) == comparable(before)
    # Every account came back as an inactive placeholder (nobody existed any more).
    users = get_user_model().objects.all()
    assert users.count() == 13
    assert not users.filter(is_active=True).exists()
    assert not any(user.has_usable_password() for user in users)
