"""Event file round trip (issue #14): export → import into a database without the event
(nor its people) → export again gives the same document, except ``exported_at`` and the
``event.imported`` audit entries (docs/event-file.md, "Round trip")."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

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


def _bench_module():
    path = Path(__file__).resolve().parents[2] / "bench" / "event_file.py"
    spec = importlib.util.spec_from_file_location("bench_event_file", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_round_trip_of_a_512_player_9_round_event(crossover, django_assert_max_num_queries):
    """The generated event of bench/event_file.py (results written in bulk as the services
    write them; rounds paired, published and closed by the services)."""
    bench = _bench_module()
    user_model = get_user_model()
    organizer = user_model.objects.create_user("organizer")
    players = user_model.objects.bulk_create(
        user_model(username=f"player{n:04d}") for n in range(1, 513)
    )
    event = bench.build_played_event(crossover, organizer, players, rounds=9, bulk_results=True)
    before = export_event(event)
    assert [str(p) for p in validate(before)] == []
    assert len(before["registrations"]) == 512
    assert [r["status"] for r in before["rounds"]] == ["closed"] * 9
    # 256 tables in round 1; about 1 % drop after each round (odd pools get a bye).
    assert len(before["rounds"][0]["matches"]) == 256
    assert 2200 < sum(len(r["matches"]) for r in before["rounds"]) < 9 * 256
    dropped = [r for r in before["registrations"] if r["status"] == "dropped"]
    assert len(dropped) > 0
    bench.remove_event_and_people(event)
    # Bulk inserts: a few queries per table and per batch of rows (SQLite takes smaller
    # batches: at most 999 parameters a query), not a few per row (~12,000 rows here).
    with django_assert_max_num_queries(300):
        outcome = import_event(before)
    after = export_event(outcome.event)
    assert comparable(after) == comparable(before)
