"""The API's JSON parser (tournaments/api/parsers.py, issue #15 "Hostile input"): a body
nested too deeply or holding a number of more than 4300 digits is the API's 400
``parse_error``, a JSON body that is not UTF-8 a 415 ``unsupported_media_type`` (so the
NUL middleware, which looks for ``\\u0000`` in the raw bytes, cannot be bypassed), each
in the one error shape, with nothing written."""

import json

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from decks.models import Deck
from tests.decks.conftest import cards, crossover, formats, sets  # noqa: F401
from tests.tournaments.factories import UserFactory, games_for, open_event, register_all
from tournaments import services
from tournaments.models import AuditEntry, Event, Match, MatchStatus

DEEP = "[" * 100000 + "]" * 100000
HUGE_INTEGER = "9" * 5000


@pytest.fixture
def live_match(crossover):  # noqa: F811
    """A started event with round 1 published: its first match with two players."""
    organizer = UserFactory(username="organizer")
    event = open_event(organizer, crossover)
    register_all(event, [UserFactory(username=f"player{n}") for n in range(1, 5)])
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    return (
        Match.objects.filter(round=round_, player2__isnull=False)
        .select_related("player1__player")
        .order_by("table")
        .first()
    )


def _writes() -> tuple:
    return (
        Deck.objects.count(),
        Event.objects.count(),
        AuditEntry.objects.count(),
        get_user_model().objects.count(),
        Match.objects.exclude(status=MatchStatus.PENDING).count(),
    )


def _operations(match):
    """(path, the caller) of a few write operations."""
    return [
        ("/api/v1/decks/", match.player1.player),
        ("/api/v1/events/", match.round.event.organizer),
        ("/api/v1/event-files/", match.player1.player),
        (
            f"/api/v1/events/{match.round.event.pk}/matches/{match.pk}/report/",
            match.player1.player,
        ),
    ]


def _error(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert set(body) == {"code", "message", "details"}, body
    assert body["code"] == code, body
    assert body["message"]
    return body


def _post(user, path: str, body: bytes, content_type: str = "application/json"):
    client = APIClient()
    client.raise_request_exception = False
    client.force_login(user)
    return client.generic("POST", path, body, content_type=content_type)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (DEEP, "nested too deeply"),
        (HUGE_INTEGER, "4300"),
        ('{"n": ' + HUGE_INTEGER + "}", "4300"),
        ('{"n": NaN}', "NaN"),
        ('{"n": [1e400]}', "number too large: 1e400"),
    ],
    ids=["deep", "huge-integer", "huge-integer-in-object", "nan", "float-overflow"],
)
def test_unparsable_json_body_is_400_parse_error_nothing_written(live_match, body, words):
    before = _writes()
    for path, user in _operations(live_match):
        found = _error(_post(user, path, body.encode()), 400, "parse_error")
        assert words in found["message"], (path, found)
    assert _writes() == before


def test_the_report_still_works_after_the_refusals(live_match):
    # The same operations with a plain body still reach their views (the parser is used).
    path = _operations(live_match)[3][0]
    body = json.dumps({"games": games_for("2-0"), "expected_version": live_match.version})
    response = _post(live_match.player1.player, path, body.encode())
    assert response.status_code == 200, response.content[:300]


@pytest.mark.parametrize("charset", ["utf-16", "UTF-16LE", "utf-32"])
def test_json_body_not_utf8_is_415_nul_refused(live_match, charset):
    before = _writes()
    document = {"name": "nul\x00here", "deck_text": "x", "format": "crossover"}
    encoded = json.dumps(document).encode(charset.lower())
    assert b"\\u0000" not in encoded  # the NUL middleware does not see it
    for path, user in _operations(live_match):
        response = _post(user, path, encoded, f"application/json; charset={charset}")
        found = _error(response, 415, "unsupported_media_type")
        assert charset in found["message"], found
    assert _writes() == before


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8"])
def test_json_body_declared_utf8_is_read(live_match, charset):
    # UTF-8 declared is read as ever: the NUL middleware answers the NUL in it.
    document = {"name": "nul\x00here", "deck_text": "x", "format": "crossover"}
    for path, user in _operations(live_match):
        response = _post(
            user, path, json.dumps(document).encode(), f"application/json; charset={charset}"
        )
        assert _error(response, 400, "invalid_input")["details"] == {"field": "name"}
