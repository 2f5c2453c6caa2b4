"""The API answers as its OpenAPI schema says: Schemathesis generates requests for every
operation of ``/api/schema/`` and sends them, in-process, as three callers (anonymous, a
player registered in a running event with a deck, and that event's organizer), each
example in a rolled-back savepoint so that every one starts from the same event.

Checks: no server error, every response valid against the documented schema, every status
code and content type documented. Path parameters are either generated or (most of the
time) real ids of the event, its rounds, matches, registrations, penalties, staff, deck
checks, export job, the player's deck, cards and rules sections, so the operations get
past their 404s. ``MAX_EXAMPLES`` per operation and caller, derandomized: the same
requests every run, sized for CI (it runs on SQLite and on PostgreSQL with the suite).
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
import schemathesis
from django.core import signals
from django.core.cache import caches
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.urls import path as url_path
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from decks.services import save_deck
from rules.models import RulesDocument, Section
from tests.decks.conftest import LEGAL_DECK, cards, crossover, formats, sets  # noqa: F401
from tests.tournaments.conftest import (  # noqa: F401
    co_organizer,
    event_after_round_3,
    judge,
    make_players,
    organizer,
    staffed_event,
)
from tests.tournaments.factories import new_event, open_event
from tournaments import exports, services, snapshots
from tournaments.api.schema import IMPLICIT_ERRORS, RETRY_AFTER
from tournaments.models import EventStaff, ExportJob, Match
from tournaments.services import deck_checks
from tournaments.tokens import create_token

# Operations no caller of the run gets a 2xx from, and why: the run asserts that every
# other operation gets one (so that it tests more than the refusals), and that these do
# not (a fixed list: one that starts to succeed is taken off it). Most need a body that the
# schema alone does not describe well enough for a generator to hit (a real format slug, a
# legal decklist, a username, a match's games and version); the others a state of the
# event other than the run's (round 4 published and unreported, the other events without
# players).
BODY = "needs domain-valid values in its body that generated examples never hold"
STATE = "the run's events are in a state where it is refused (409)"
NEVER_SUCCEEDS: dict[str, str] = {
    "GET /api/v1/export-jobs/{id}/download/": "the run's job is not finished (409)",
    "POST /api/v1/decks/": BODY,
    "POST /api/v1/decks/check/": BODY,
    "POST /api/v1/event-files/": BODY,
    "POST /api/v1/events/": BODY,
    "POST /api/v1/events/{event_pk}/deck-checks/": BODY,
    "POST /api/v1/events/{event_pk}/deck-checks/{id}/penalty/": BODY,
    "POST /api/v1/events/{event_pk}/matches/{id}/confirm/": BODY,
    "POST /api/v1/events/{event_pk}/matches/{id}/dispute/": BODY,
    "POST /api/v1/events/{event_pk}/matches/{id}/override/": BODY,
    "POST /api/v1/events/{event_pk}/matches/{id}/report/": BODY,
    "POST /api/v1/events/{event_pk}/registrations/{id}/decklist/": BODY,
    "POST /api/v1/events/{event_pk}/registrations/{id}/penalty/": BODY,
    "POST /api/v1/events/{event_pk}/registrations/{id}/reenter/": STATE,
    "POST /api/v1/events/{event_pk}/rounds/{number}/close/": STATE,
    "POST /api/v1/events/{event_pk}/rounds/{number}/edit-pairing/": BODY,
    "POST /api/v1/events/{event_pk}/rounds/{number}/publish/": STATE,
    "POST /api/v1/events/{event_pk}/rounds/{number}/repair/": STATE,
    "POST /api/v1/events/{event_pk}/staff/": BODY,
    "POST /api/v1/events/{id}/advance-bracket/": STATE,
    "POST /api/v1/events/{id}/finish/": STATE,
    "POST /api/v1/events/{id}/generate-round/": STATE,
    "POST /api/v1/events/{id}/late-entry/": BODY,
    "POST /api/v1/events/{id}/start/": STATE,
    "POST /api/v1/events/{id}/top-cut/": STATE,
    "PUT /api/v1/decks/{id}/": BODY,
}
# Examples per operation and caller (62 operations x 3 callers): valid requests, and
# requests that break the schema (which must get a documented 4xx, never a 500).
MAX_EXAMPLES = {GenerationMode.POSITIVE: 15, GenerationMode.NEGATIVE: 6}
CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
    content_type_conformance,
]


@pytest.fixture
def wsgi_app():
    """Django's WSGI application on the test's own database connection: as Django's test
    client does, requests do not close the connection (that would end the test's
    transaction)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@dataclass
class World:
    callers: dict[str, dict[str, str]]
    # Kind of object -> ids that exist (see ``real_path_parameters``).
    ids: dict[str, list[int]] = field(default_factory=dict)


def _rules_sections(game) -> list[int]:
    document = RulesDocument.objects.create(
        game=game,
        series="rules",
        title="Basic Rules",
        version="2.02",
        is_current=True,
        style="crossover",
        checksum="0" * 64,
    )
    top = Section.objects.create(
        document=document, number="1", number_key="1", title="Game", body="Text.", order=1
    )
    child = Section.objects.create(
        document=document,
        number="1-1",
        number_key="1.1",
        title="Players",
        body="Two players.",
        order=2,
        level=2,
        parent=top,
    )
    return [top.pk, child.pk]


@pytest.fixture
def world(event_after_round_3, organizer, judge, crossover, cards, settings):  # noqa: F811
    fixture = event_after_round_3
    event = fixture.event
    player = fixture.players[0]
    round_4 = services.generate_round(event, actor=organizer)
    services.publish_round(round_4, actor=organizer)
    deck_check = deck_checks.record_deck_check(
        fixture.registrations[1], actor=judge, counted_text=LEGAL_DECK
    )
    open_one = open_event(organizer, crossover, name="Summer Open")
    draft = new_event(organizer, crossover, name="Autumn Open")
    deck, _report = save_deck(owner=player, fmt=crossover, name="Mine", text=LEGAL_DECK)
    settings.EXPORT_SYNC_LIMIT = 1
    job = exports.export(player, event, kind="standings", file_format="csv")
    assert isinstance(job, ExportJob)
    del settings.EXPORT_SYNC_LIMIT
    callers = {
        "anonymous": {},
        "player": {"Authorization": f"Bearer {_token(player)}"},
        "organizer": {"Authorization": f"Bearer {_token(organizer)}"},
    }
    ids = {
        "event": [event.pk, open_one.pk, draft.pk],
        "registration": [r.pk for r in fixture.registrations],
        "match": list(Match.objects.filter(round__event=event).values_list("pk", flat=True)),
        "round": [round_.number for round_ in event.rounds.all()],
        "penalty": [fixture.warning.pk],
        "staff": list(EventStaff.objects.filter(event=event).values_list("pk", flat=True)),
        "deck-check": [deck_check.pk],
        "export-job": [job.pk],
        "deck": [deck.pk],
        "card": [card.pk for card in cards.values()],
        "section": _rules_sections(crossover.game),
    }
    return World(callers=callers, ids=ids)


def _token(user) -> str:
    return create_token(user, name="schemathesis", scope="write").secret


NESTED = {
    "registrations": "registration",
    "matches": "match",
    "rounds": "round",
    "penalties": "penalty",
    "decklists": "registration",
    "staff": "staff",
    "deck-checks": "deck-check",
}
TOP = {
    "events": "event",
    "export-jobs": "export-job",
    "decks": "deck",
    "cards": "card",
    "sections": "section",
}


def real_path_parameters(path: str, world: World) -> list[dict]:
    """Every combination of real ids for the path's parameters (the nested ones in the
    first event, the one with rounds)."""
    parts = path.strip("/").split("/")
    combos: list[dict] = [{}]
    for before, part in itertools.pairwise(parts):
        if not part.startswith("{"):
            continue
        name = part.strip("{}")
        if name == "event_pk":
            values = world.ids["event"][:1]
        else:
            kind = NESTED.get(before) if "{event_pk}" in path else TOP.get(before)
            values = world.ids[kind]
        combos = [{**combo, name: value} for combo in combos for value in values]
    return [combo for combo in combos if combo]


def _strategy(operation, world: World, mode: GenerationMode):
    generated = operation.as_strategy(generation_mode=mode)
    real = real_path_parameters(operation.path, world)
    if not real:
        return generated
    with_real = [
        operation.as_strategy(generation_mode=mode, path_parameters=values) for values in real
    ]
    # Real ids first: Hypothesis leans to the first branches, so most examples reach
    # past the 404s, and some are generated ids.
    return st.one_of(*with_real, generated)


def forget_caches() -> None:
    for cache in caches.all():
        cache.clear()
    snapshots.forget_engine_standings()


def run_operation(
    operation, headers: dict, world: World, mode, failures: dict, statuses: Counter
) -> int:
    """Sends ``operation``'s examples; each failure into ``failures``, each status code
    into ``statuses``. The number of requests sent."""
    calls = 0

    @settings(
        max_examples=MAX_EXAMPLES[mode],
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=_strategy(operation, world, mode))
    def test(case):
        nonlocal calls
        calls += 1
        with transaction.atomic():
            try:
                # Werkzeug's test client does not decode Content-Encoding as an HTTP
                # client does: ask for the body as it is (the gzip middleware honours it).
                response = case.call(headers={**headers, "Accept-Encoding": "identity"})
                statuses[response.status_code] += 1
                case.validate_response(response, checks=CHECKS, headers=headers)
            except FailureGroup as group:
                request = response.request
                sent = f"{request.method} {request.url} {request.body!r:.300}"
                for failure in group.exceptions:
                    key = (operation.label, failure.title, failure.message[:600])
                    failures.setdefault(key, sent)
            finally:
                # Every example starts from the same event: its changes are rolled back,
                # and so are the caches that may hold them (as between tests).
                transaction.set_rollback(True)
                forget_caches()

    test()
    return calls


@pytest.mark.django_db
def test_every_operation_matches_the_schema(world, wsgi_app):
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", wsgi_app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 60
    failures: dict = {}
    calls = Counter()
    # (operation, caller) -> how many answers of each status code.
    statuses: dict[tuple[str, str], Counter] = {}
    started = time.monotonic()
    for caller in ("anonymous", "player", "organizer"):
        for operation in operations:
            counted = statuses.setdefault((operation.label, caller), Counter())
            for mode in MAX_EXAMPLES:
                headers = world.callers[caller]
                calls[caller] += run_operation(operation, headers, world, mode, failures, counted)
    elapsed = time.monotonic() - started
    report = "\n\n".join(
        f"{label}: {title}\n{message}\nRequest: {sent}"
        for (label, title, message), sent in sorted(failures.items())
    )
    print(f"{sum(calls.values())} requests in {elapsed:.1f}s, {len(failures)} failures")
    assert not failures, f"{len(failures)} failures:\n\n{report}"
    # The run proves little if the requests never get past the errors: every operation
    # was answered a 2xx for some caller, but the few listed in NEVER_SUCCEEDS.
    labels = {operation.label for operation in operations}
    assert set(NEVER_SUCCEEDS) <= labels, set(NEVER_SUCCEEDS) - labels
    succeeded = {
        label
        for (label, _caller), counted in statuses.items()
        if any(200 <= code < 300 for code in counted)
    }
    never = {
        label: {caller: dict(statuses[label, caller]) for caller in world.callers}
        for label in sorted(labels - succeeded)
    }
    assert set(never) == set(NEVER_SUCCEEDS), never


# --- what the run found, as plain tests -----------------------------------------------

PAST_THE_LARGEST_ID = str(2**63)


@pytest.mark.parametrize(
    "path",
    [
        "{pk}/standings/",
        "{pk}/registrations/",
        "{pk}/rounds/",
        "{pk}/rounds/1/pairings/",
        "{pk}/matches/1/",
        "{pk}/decklists/",
        "{pk}/penalties/",
        "{pk}/event-file/",
    ],
)
def test_an_event_id_past_the_largest_is_not_found(db, client, path):
    """An event id larger than the database's integer was a 500 (OverflowError on
    SQLite, out of range on PostgreSQL) on every route under an event."""
    response = client.get("/api/v1/events/" + path.format(pk=PAST_THE_LARGEST_ID))
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "not found", "details": {}}
    largest = client.get("/api/v1/events/" + path.format(pk=2**63 - 1))
    assert largest.status_code == 404


@pytest.mark.parametrize(
    ("value", "error"),
    [
        # Tokyo's offset had seconds before 1888: "+09:18:59" is no RFC 3339 time.
        ("1078-02-24T20:08:40+12:12", "give a time from 2000 to 8999"),
        ("1999-12-31T23:59:59Z", "give a time from 2000 to 8999"),
        ("9000-01-01T00:00:00Z", "give a time from 2000 to 8999"),
        ("9999-12-31T23:59:59-12:00", "Datetime value out of range."),
        ("2026-05-01T10:00:00+09:00", None),
    ],
)
@pytest.mark.django_db
def test_event_times_are_years_2000_to_8999(request, value, error):
    fixture = request.getfixturevalue("event_after_round_3")
    client = APIClient()
    client.force_login(fixture.organizer)
    response = client.patch(
        f"/api/v1/events/{fixture.event.pk}/", {"decklists_public_from": value}, format="json"
    )
    if error is None:
        assert response.status_code == 200, response.content
        assert response.json()["decklists_public_from"] == "2026-05-01T10:00:00+09:00"
    else:
        assert response.status_code == 400
        assert response.json()["details"]["fields"]["decklists_public_from"] == [error]


# --- 429: the throttled answer is documented --------------------------------------------


class _ThrottledView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle]

    def get(self, request):
        return Response({})


class _PlainView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = []

    def get(self, request):
        return Response({})


def test_a_throttled_view_documents_429_with_retry_after():
    generator = SchemaGenerator(
        patterns=[
            url_path("throttled/", _ThrottledView.as_view()),
            url_path("plain/", _PlainView.as_view()),
        ]
    )
    paths = generator.get_schema(request=None, public=True)["paths"]
    throttled = paths["/throttled/"]["get"]["responses"]
    assert throttled["429"] == {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        "description": IMPLICIT_ERRORS[429],
        "headers": RETRY_AFTER,
    }
    assert "429" not in paths["/plain/"]["get"]["responses"]


@pytest.mark.django_db
def test_the_deck_check_throttled_answer_is_as_documented(client, monkeypatch):
    schema = client.get("/api/schema/?format=json").json()
    documented = schema["paths"]["/api/v1/decks/check/"]["post"]["responses"]["429"]
    assert documented["headers"] == RETRY_AFTER
    caches["default"].clear()
    monkeypatch.setitem(AnonRateThrottle.THROTTLE_RATES, "anon", "1/minute")
    body = {"decklist": "", "format": "crossover"}
    client.post("/api/v1/decks/check/", body, content_type="application/json")
    response = client.post("/api/v1/decks/check/", body, content_type="application/json")
    caches["default"].clear()
    assert response.status_code == 429
    answer = response.json()
    assert set(answer) == {"code", "message", "details"}
    assert answer["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60
