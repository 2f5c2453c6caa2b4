"""Shared helpers of the API tests."""

from rest_framework.fields import DateTimeField

from tournaments import services
from tournaments.models import Match

API = "/api/v1/events"


def live_round(fixture):
    """Round 4 of ``event_after_round_3`` generated and published through the services;
    returns the round and its matches with two players, by table."""
    round_ = services.generate_round(fixture.event, actor=fixture.organizer)
    services.publish_round(round_, actor=fixture.organizer)
    matches = list(
        Match.objects.filter(round=round_, player2__isnull=False)
        .select_related("player1__player", "player2__player")
        .order_by("table")
    )
    return round_, matches


def error_of(response) -> tuple[int, str]:
    body = response.json()
    assert set(body) == {"code", "message", "details"}, body
    return response.status_code, body["code"]


def api_time(value) -> str | None:
    """A datetime as the API writes it (the current time zone, ISO 8601)."""
    return None if value is None else DateTimeField().to_representation(value)
