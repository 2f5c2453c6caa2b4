"""Who is refused what, on every command and staff-only list: an outsider (signed in, no
role in the event) and an anonymous caller are refused everywhere — 403 on an event they
may see (a missing permission), 404 on one they may not (a draft), even with real object
ids of another event; a player of the event on the staff's routes, a judge on the
managers' routes and a co-organizer on the organizer's (staff management) are refused with
403. Nothing changes on any refusal."""

from dataclasses import dataclass

import pytest

from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import UserFactory, games_for, new_event
from tournaments.models import (
    AuditEntry,
    Event,
    EventStaff,
    Match,
    Penalty,
    Registration,
    Round,
)

from .helpers import API, error_of, live_round

# Who may use a command, and the code everyone else gets.
LEVEL_CODES = {
    "manager": "not_manager",  # organizer, co-organizers
    "organizer": "not_organizer",  # the organizer only
    "staff": "not_staff",  # organizer, co-organizers, judges
    "own": "not_own_registration",  # the player themself, or the staff
    "participant": "not_participant",  # the match's players
}
# The roles refused at each level (an outsider is refused at every one).
REFUSED = {
    "manager": {"player", "judge"},
    "organizer": {"player", "judge", "co_organizer"},
    "staff": {"player"},
    "own": {"player"},  # another player than the registration's
    "participant": set(),
}


@dataclass(frozen=True)
class Command:
    name: str
    method: str
    path: str
    payload: dict | None
    level: str
    event_level: bool = False  # answers for the event in the URL, whatever the ids

    @property
    def code(self) -> str:
        return LEVEL_CODES[self.level]


def commands(event_pk, f, match, round_number, staff_id) -> list[Command]:
    registration = f.registrations[0].pk
    dropped = f.dropped.pk
    base = f"{API}/{event_pk}"
    rounds = f"{base}/rounds/{round_number}"
    return [
        # events
        Command("update", "patch", f"{base}/", {"name": "Renamed"}, "manager", True),
        Command("open-registration", "post", f"{base}/open-registration/", {}, "manager", True),
        Command("start", "post", f"{base}/start/", {}, "manager", True),
        Command("finish", "post", f"{base}/finish/", {}, "manager", True),
        Command("generate-round", "post", f"{base}/generate-round/", {}, "manager", True),
        Command("top-cut", "post", f"{base}/top-cut/", {}, "manager", True),
        Command("advance-bracket", "post", f"{base}/advance-bracket/", {}, "manager", True),
        Command(
            "late-entry",
            "post",
            f"{base}/late-entry/",
            {"username": "newcomer", "deck_text": LEGAL_DECK, "reason": "late"},
            "staff",
            True,
        ),
        # staff
        Command("staff-list", "get", f"{base}/staff/", None, "staff", True),
        Command(
            "staff-add",
            "post",
            f"{base}/staff/",
            {"username": "newcomer", "role": "judge"},
            "organizer",
            True,
        ),
        Command("staff-remove", "delete", f"{base}/staff/{staff_id}/", None, "organizer"),
        Command("audit", "get", f"{base}/audit/", None, "staff", True),
        # deck checks (rule 1−2−4)
        Command("deck-checks", "get", f"{base}/deck-checks/", None, "staff", True),
        Command(
            "deck-check",
            "post",
            f"{base}/deck-checks/",
            {"registration": registration, "counted_text": LEGAL_DECK},
            "staff",
            True,
        ),
        # rounds
        Command("publish", "post", f"{rounds}/publish/", {}, "manager"),
        Command("start-clock", "post", f"{rounds}/start-clock/", {}, "manager"),
        Command("close", "post", f"{rounds}/close/", {}, "manager"),
        Command("repair", "post", f"{rounds}/repair/", {"reason": "drops"}, "manager"),
        Command(
            "edit-pairing",
            "post",
            f"{rounds}/edit-pairing/",
            {"tables": {"1": [registration, dropped]}, "reason": "swap"},
            "manager",
        ),
        # registrations
        Command(
            "decklist",
            "post",
            f"{base}/registrations/{registration}/decklist/",
            {"deck_text": "4 x\n"},
            "own",
        ),
        Command("drop", "post", f"{base}/registrations/{registration}/drop/", {}, "own"),
        Command(
            "reenter", "post", f"{base}/registrations/{dropped}/reenter/", {"reason": ""}, "own"
        ),
        Command(
            "penalty",
            "post",
            f"{base}/registrations/{registration}/penalty/",
            {"kind": "warning", "infraction": "Slow play"},
            "staff",
        ),
        # matches
        Command(
            "report",
            "post",
            f"{base}/matches/{match.pk}/report/",
            {"games": games_for("2-0"), "expected_version": match.version},
            "participant",
        ),
        Command(
            "confirm",
            "post",
            f"{base}/matches/{match.pk}/confirm/",
            {"expected_version": match.version},
            "participant",
        ),
        Command(
            "dispute",
            "post",
            f"{base}/matches/{match.pk}/dispute/",
            {"expected_version": match.version, "reason": "no"},
            "participant",
        ),
        Command(
            "override",
            "post",
            f"{base}/matches/{match.pk}/override/",
            {"expected_version": match.version, "reason": "no", "record": "2-0"},
            "staff",
        ),
    ]


def call(client, command: Command):
    method = getattr(client, command.method)
    if command.payload is None:
        return method(command.path)
    return method(command.path, command.payload, format="json")


def state():
    """Everything a command could change."""
    return (
        list(Event.objects.order_by("pk").values()),
        list(EventStaff.objects.order_by("pk").values_list("pk", "event", "user", "role")),
        list(
            Registration.objects.order_by("pk").values_list(
                "pk", "status", "dropped_after_round", "late_entry_round", "deck_text", "locked"
            )
        ),
        list(Round.objects.order_by("pk").values_list("pk", "status", "pairing_attempt")),
        list(
            Match.objects.order_by("pk").values_list(
                "pk", "player1", "player2", "status", "version", "wins", "losses", "draws"
            )
        ),
        Penalty.objects.count(),
        AuditEntry.objects.count(),
    )


@pytest.fixture
def setting(event_after_round_3):
    f = event_after_round_3
    UserFactory(username="newcomer")
    _round, matches = live_round(f)  # round 4 published: its matches take reports
    staff_id = EventStaff.objects.get(event=f.event, user=f.judge).pk
    return f, matches[0], staff_id


def test_outsider_gets_403_on_a_visible_event(setting, outsider, client_for):
    f, match, staff_id = setting
    before = state()
    client = client_for(outsider)
    for command in commands(f.event.pk, f, match, 4, staff_id):
        assert error_of(call(client, command)) == (403, command.code), command.name
    assert state() == before


@pytest.mark.parametrize("role", ["player", "judge", "co_organizer"])
def test_role_refused_outside_its_permissions(setting, role, co_organizer, client_for):
    f, match, staff_id = setting
    user = {"player": f.players[1], "judge": f.judge, "co_organizer": co_organizer}[role]
    client = client_for(user)
    refused = [c for c in commands(f.event.pk, f, match, 4, staff_id) if role in REFUSED[c.level]]
    assert refused
    before = state()
    for command in refused:
        assert error_of(call(client, command)) == (403, command.code), command.name
    assert state() == before


def test_role_table_covers_the_brief(setting):
    # A player on every staff route, a judge on every manager route, a co-organizer on
    # staff management.
    f, match, staff_id = setting
    table = {c.name: c.level for c in commands(f.event.pk, f, match, 4, staff_id)}
    for name in (
        "staff-list",
        "audit",
        "late-entry",
        "penalty",
        "override",
        "deck-checks",
        "deck-check",
    ):
        assert table[name] == "staff"
    for name in (
        "update",
        "open-registration",
        "start",
        "finish",
        "generate-round",
        "top-cut",
        "advance-bracket",
        "publish",
        "start-clock",
        "close",
        "repair",
        "edit-pairing",
    ):
        assert table[name] == "manager"
    assert table["staff-add"] == table["staff-remove"] == "organizer"


def test_anonymous_gets_403_on_every_command(setting, client_for):
    f, match, staff_id = setting
    client = client_for()
    before = state()
    for command in commands(f.event.pk, f, match, 4, staff_id):
        response = call(client, command)
        assert error_of(response) == (403, "not_authenticated"), command.name
    for url in (f"{API}/{f.event.pk}/register/", f"{API}/"):
        assert error_of(client.post(url, {}, format="json")) == (403, "not_authenticated"), url
    assert state() == before


def test_outsider_gets_404_on_a_draft_event(setting, outsider, organizer, crossover, client_for):
    f, match, staff_id = setting
    draft = new_event(organizer, crossover, name="Secret League")
    before = state()
    client = client_for(outsider)
    for command in commands(draft.pk, f, match, 4, staff_id):
        assert error_of(call(client, command)) == (404, "not_found"), command.name
    register = client.post(f"{API}/{draft.pk}/register/", {}, format="json")
    assert error_of(register) == (404, "not_found")
    for path in ("penalties/", "decklists/", f"decklists/{f.registrations[0].pk}/"):
        assert error_of(client.get(f"{API}/{draft.pk}/{path}")) == (404, "not_found"), path
    assert state() == before


def test_objects_of_another_event_are_404_for_its_staff(setting, organizer, crossover, client_for):
    # The draft's own organizer sees the draft, but not the other event's objects in it.
    f, match, staff_id = setting
    draft = new_event(organizer, crossover, name="Secret League")
    client = client_for(organizer)
    before = state()
    for command in commands(draft.pk, f, match, 4, staff_id):
        if command.event_level:
            continue  # an event-level command: the draft itself answers
        assert error_of(call(client, command)) == (404, "not_found"), command.name
    assert state() == before


def test_outsider_list_never_shows_a_private_event(
    setting, outsider, organizer, crossover, client_for
):
    f, _match, _staff_id = setting
    new_event(organizer, crossover, name="Secret League")
    for user in (None, outsider, f.players[0]):
        names = [e["name"] for e in client_for(user).get(f"{API}/").json()["results"]]
        assert names == ["Spring Open"], user
