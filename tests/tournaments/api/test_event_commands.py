"""Event endpoints: create, change settings, open registration, start, finish, staff,
late entries, re-entry, top cut and bracket. Each success goes through the service (exact
resulting state and its audit entry); each refusal answers with the domain code and
status and changes nothing. Who is refused what: test_permissions.py."""

import datetime as dt

import pytest

from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import (
    new_event,
    open_event,
    play_round,
    play_top_cut_round,
    register_all,
)
from tournaments import services
from tournaments.models import (
    AuditEntry,
    Event,
    EventStaff,
    EventState,
    Registration,
    RegistrationStatus,
    Round,
    RoundStage,
)

from .helpers import API, api_time, error_of

ILLEGAL_DECK = "4 森原 さとみ\n"
TOKYO = dt.timezone(dt.timedelta(hours=9))


def only_entry(event, action):
    [entry] = AuditEntry.objects.filter(event=event, action=action)
    return entry


# --- create ------------------------------------------------------------------------------

FULL_SETTINGS = {
    "name": "Summer Cup",
    "format": "crossover",
    "date": "2026-07-04",
    "capacity": 32,
    "registration_deadline": "2026-07-03T18:00:00+09:00",
    "decklist_deadline": "2026-07-04T09:00:00+09:00",
    "swiss_rounds": 5,
    "round_minutes": 40,
    "tiebreak_profile": "pokemon",
    "top_cut_size": 8,
    "swiss_timeout_policy": "more_hp_wins",
    "top_cut_timeout_policy": "draw",
    "decklists_public_from": "2026-07-05T00:00:00+09:00",
    "allow_reentry": True,
    "late_entry_policy": "nothing",
}


def test_create_event_with_every_setting(organizer, crossover, client_for):
    response = client_for(organizer).post(f"{API}/", FULL_SETTINGS, format="json")
    assert response.status_code == 201, response.json()
    event = Event.objects.get()
    assert response.json() == {
        "id": event.pk,
        "game": crossover.game.slug,
        "organizer": "organizer",
        "state": "draft",
        "registered_count": 0,
        **FULL_SETTINGS,
    }
    assert (event.organizer, event.format, event.state) == (organizer, crossover, "draft")
    assert (event.name, event.date, event.capacity, event.swiss_rounds) == (
        "Summer Cup",
        dt.date(2026, 7, 4),
        32,
        5,
    )
    assert event.registration_deadline == dt.datetime(2026, 7, 3, 18, tzinfo=TOKYO)
    assert event.decklist_deadline == dt.datetime(2026, 7, 4, 9, tzinfo=TOKYO)
    assert event.decklists_public_from == dt.datetime(2026, 7, 5, tzinfo=TOKYO)
    assert (event.round_minutes, event.tiebreak_profile, event.top_cut_size) == (
        40,
        "pokemon",
        8,
    )
    assert (event.swiss_timeout_policy, event.top_cut_timeout_policy) == ("more_hp_wins", "draw")
    assert (event.allow_reentry, event.late_entry_policy) == (True, "nothing")
    entry = only_entry(event, "event.created")
    assert (entry.actor, entry.object_type, entry.object_id) == (organizer, "event", event.pk)
    assert entry.after["capacity"] == 32
    assert entry.after["format"] == crossover.pk


def test_create_event_with_the_needed_settings_only(organizer, crossover, client_for):
    payload = {"name": "Quick", "format": "crossover", "date": "2026-06-01", "capacity": 8}
    body = client_for(organizer).post(f"{API}/", payload, format="json").json()
    assert body["state"] == "draft"
    assert (body["swiss_rounds"], body["top_cut_size"], body["tiebreak_profile"]) == (
        None,
        0,
        "mtr",
    )
    # A draft is the staff's only.
    assert error_of(client_for().get(f"{API}/{body['id']}/")) == (404, "not_found")


@pytest.mark.parametrize(
    ("change", "status", "code", "where"),
    [
        ({"format": "nope"}, 400, "invalid_input", {"format"}),
        ({"name": None, "date": None}, 400, "invalid_input", {"name", "date"}),
        ({"date": "16 May"}, 400, "invalid_input", {"date"}),
        ({"capacity": 1}, 400, "invalid_setting", "capacity"),
        ({"round_minutes": 0}, 400, "invalid_setting", "round_minutes"),
        ({"capacity": 4, "top_cut_size": 8}, 400, "invalid_setting", "top_cut_size"),
        ({"top_cut_size": 3}, 400, "invalid_input", {"top_cut_size"}),
        ({"tiebreak_profile": "swiss"}, 400, "invalid_input", {"tiebreak_profile"}),
        ({"state": "running"}, 400, "invalid_input", {"state"}),
    ],
)
def test_create_event_refusals(organizer, crossover, client_for, change, status, code, where):
    payload = {k: v for k, v in {**FULL_SETTINGS, **change}.items() if v is not None}
    response = client_for(organizer).post(f"{API}/", payload, format="json")
    assert error_of(response) == (status, code)
    details = response.json()["details"]
    if code == "invalid_input":
        assert set(details["fields"]) == where
    else:
        assert details["field"] == where
    assert not Event.objects.exists()
    assert not AuditEntry.objects.exists()


def test_create_event_unknown_field_is_named(organizer, crossover, client_for):
    payload = {**FULL_SETTINGS, "colour": "red"}
    response = client_for(organizer).post(f"{API}/", payload, format="json")
    assert error_of(response) == (400, "invalid_input")
    assert response.json()["details"]["fields"] == {"colour": ["Unknown field."]}


# --- update ------------------------------------------------------------------------------


def test_update_event_settings_with_reason(staffed_event, organizer, client_for):
    url = f"{API}/{staffed_event.pk}/"
    payload = {"name": "Spring Open II", "capacity": 20, "round_minutes": 50, "reason": "room"}
    response = client_for(organizer).patch(url, payload, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["name"], body["capacity"], body["round_minutes"]) == ("Spring Open II", 20, 50)
    staffed_event.refresh_from_db()
    assert (staffed_event.name, staffed_event.capacity) == ("Spring Open II", 20)
    entry = only_entry(staffed_event, "event.updated")
    assert (entry.actor, entry.reason) == (organizer, "room")
    # Only what changed (round_minutes was 50 already).
    assert entry.before == {"name": "Spring Open", "capacity": 16}
    assert entry.after == {"name": "Spring Open II", "capacity": 20}


def test_update_event_by_a_co_organizer(staffed_event, co_organizer, client_for):
    url = f"{API}/{staffed_event.pk}/"
    response = client_for(co_organizer).patch(url, {"allow_reentry": True}, format="json")
    assert response.json()["allow_reentry"] is True
    assert only_entry(staffed_event, "event.updated").actor == co_organizer


def test_update_event_without_a_change_writes_nothing(staffed_event, organizer, client_for):
    url = f"{API}/{staffed_event.pk}/"
    assert client_for(organizer).patch(url, {}, format="json").status_code == 200
    assert not AuditEntry.objects.filter(action="event.updated").exists()


def test_update_event_capacity_moves_the_waitlist_in(
    organizer, crossover, make_players, client_for
):
    event = open_event(organizer, crossover, capacity=2)
    registrations = register_all(event, make_players(3))
    assert registrations[2].status == RegistrationStatus.WAITLISTED
    response = client_for(organizer).patch(f"{API}/{event.pk}/", {"capacity": 3}, format="json")
    assert response.json()["registered_count"] == 3
    registrations[2].refresh_from_db()
    assert registrations[2].status == RegistrationStatus.REGISTERED
    entry = only_entry(event, "event.updated")
    assert entry.after == {"capacity": 3, "promoted_from_waitlist": [registrations[2].pk]}


@pytest.mark.parametrize(
    ("payload", "status", "code", "field"),
    [
        ({"format": "crossover"}, 409, "setting_locked", "format"),
        ({"date": "2026-06-01"}, 409, "setting_locked", "date"),
        ({"capacity": 1}, 400, "invalid_setting", "capacity"),
        ({"swiss_rounds": 0}, 400, "invalid_setting", "swiss_rounds"),
        ({"top_cut_size": 32}, 400, "invalid_setting", "top_cut_size"),
    ],
)
def test_update_event_refusals(staffed_event, organizer, client_for, payload, status, code, field):
    before = Event.objects.filter(pk=staffed_event.pk).values().get()
    response = client_for(organizer).patch(f"{API}/{staffed_event.pk}/", payload, format="json")
    assert error_of(response) == (status, code)
    assert response.json()["details"]["field"] == field
    assert Event.objects.filter(pk=staffed_event.pk).values().get() == before
    assert not AuditEntry.objects.filter(action="event.updated").exists()


def test_update_event_capacity_below_the_registered(organizer, crossover, make_players, client_for):
    event = open_event(organizer, crossover, capacity=4)
    register_all(event, make_players(3))
    response = client_for(organizer).patch(f"{API}/{event.pk}/", {"capacity": 2}, format="json")
    assert error_of(response) == (400, "capacity_below_registered")
    assert response.json()["details"] == {"registered": 3}
    event.refresh_from_db()
    assert event.capacity == 4


def test_update_event_unknown_field_and_put(staffed_event, organizer, client_for):
    client = client_for(organizer)
    url = f"{API}/{staffed_event.pk}/"
    response = client.patch(url, {"state": "finished", "capacity": 20}, format="json")
    assert error_of(response) == (400, "invalid_input")
    assert response.json()["details"]["fields"] == {"state": ["Unknown field."]}
    assert error_of(client.put(url, {"name": "x"}, format="json")) == (405, "method_not_allowed")
    staffed_event.refresh_from_db()
    assert (staffed_event.state, staffed_event.capacity) == ("registration_open", 16)


# --- life cycle --------------------------------------------------------------------------


def test_open_registration(organizer, crossover, client_for):
    event = new_event(organizer, crossover)
    url = f"{API}/{event.pk}/open-registration/"
    response = client_for(organizer).post(url)
    assert (response.status_code, response.json()["state"]) == (200, "registration_open")
    event.refresh_from_db()
    assert event.state == EventState.REGISTRATION_OPEN
    entry = only_entry(event, "event.registration_opened")
    assert (entry.actor, entry.before, entry.after) == (
        organizer,
        {"state": "draft"},
        {"state": "registration_open"},
    )
    again = client_for(organizer).post(url)
    assert error_of(again) == (409, "wrong_event_state")
    assert again.json()["details"] == {"current": "registration_open", "allowed": ["draft"]}


def test_start_event_locks_decklists_and_sets_rounds(
    organizer, crossover, make_players, client_for
):
    event = open_event(organizer, crossover)
    registrations = register_all(event, make_players(3))
    response = client_for(organizer).post(f"{API}/{event.pk}/start/")
    assert response.status_code == 200
    assert (response.json()["state"], response.json()["swiss_rounds"]) == ("running", 2)
    assert all(r.locked for r in Registration.objects.filter(pk__in=[r.pk for r in registrations]))
    entry = only_entry(event, "event.started")
    assert entry.after == {
        "state": "running",
        "players": 3,
        "decklists_locked": 3,
        "swiss_rounds": 2,
    }


def test_start_event_refusals(organizer, crossover, make_players, client_for):
    event = open_event(organizer, crossover)
    first, second = make_players(2)
    register_all(event, [first])
    url = f"{API}/{event.pk}/start/"
    client = client_for(organizer)
    assert error_of(client.post(url)) == (409, "not_enough_players")
    no_deck = services.register_player(event, actor=second)
    response = client.post(url)
    assert error_of(response) == (409, "decklists_missing")
    assert response.json()["details"] == {"registrations": [no_deck.pk]}
    event.refresh_from_db()
    assert event.state == EventState.REGISTRATION_OPEN
    assert not AuditEntry.objects.filter(action="event.started").exists()


def test_finish_event_after_the_last_swiss_round(organizer, crossover, make_players, client_for):
    event = open_event(organizer, crossover)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    url = f"{API}/{event.pk}/finish/"
    play_round(event, organizer)
    assert error_of(client_for(organizer).post(url)) == (409, "swiss_not_complete")
    play_round(event, organizer)
    response = client_for(organizer).post(url)
    assert (response.status_code, response.json()["state"]) == (200, "finished")
    event.refresh_from_db()
    assert event.state == EventState.FINISHED
    entry = only_entry(event, "event.finished")
    assert (entry.before, entry.after) == ({"state": "running"}, {"state": "finished"})


def test_finish_event_refusals(event_after_round_3, organizer, crossover, client_for):
    f = event_after_round_3
    client = client_for(organizer)
    assert error_of(client.post(f"{API}/{f.event.pk}/finish/")) == (409, "swiss_not_complete")
    draft = new_event(organizer, crossover, name="Draft")
    assert error_of(client.post(f"{API}/{draft.pk}/finish/")) == (409, "wrong_event_state")
    assert not AuditEntry.objects.filter(action="event.finished").exists()


# --- staff -------------------------------------------------------------------------------


def staff_json(staff):
    return {
        "id": staff.pk,
        "user": staff.user.username,
        "name": staff.user.username,
        "role": staff.role,
        "created_at": api_time(staff.created_at),
    }


def test_staff_list(staffed_event, organizer, co_organizer, judge, client_for):
    rows = list(EventStaff.objects.filter(event=staffed_event).order_by("role"))
    assert [row.user for row in rows] == [co_organizer, judge]
    for user in (organizer, co_organizer, judge):
        body = client_for(user).get(f"{API}/{staffed_event.pk}/staff/").json()
        assert body["count"] == 2
        assert body["results"] == [staff_json(row) for row in rows]


def test_add_staff_by_username(staffed_event, organizer, outsider, client_for):
    url = f"{API}/{staffed_event.pk}/staff/"
    payload = {"username": "outsider", "role": "judge"}
    response = client_for(organizer).post(url, payload, format="json")
    assert response.status_code == 201
    staff = EventStaff.objects.get(event=staffed_event, user=outsider)
    assert staff.role == "judge"
    assert response.json() == staff_json(staff)
    entry = AuditEntry.objects.get(action="staff.added", object_id=staff.pk)
    assert (entry.actor, entry.object_type, entry.object_id) == (organizer, "eventstaff", staff.pk)
    assert entry.after == {"user": outsider.pk, "role": "judge"}


def test_add_staff_refusals(staffed_event, organizer, judge, make_players, client_for):
    (player,) = make_players(1)
    services.register_player(staffed_event, actor=player)
    url = f"{API}/{staffed_event.pk}/staff/"
    client = client_for(organizer)
    before = list(EventStaff.objects.values_list("pk", "user", "role"))
    entries = AuditEntry.objects.count()
    unknown = client.post(url, {"username": "nobody", "role": "judge"}, format="json")
    assert error_of(unknown) == (400, "user_not_found")
    assert unknown.json()["details"] == {"field": "username"}
    bad_role = client.post(url, {"username": "player001", "role": "boss"}, format="json")
    assert error_of(bad_role) == (400, "invalid_input")
    assert set(bad_role.json()["details"]["fields"]) == {"role"}
    cases = [
        ("player001", 409, "user_is_player"),
        ("judge", 409, "already_staff"),
        ("organizer", 400, "user_is_organizer"),
    ]
    for username, status, code in cases:
        response = client.post(url, {"username": username, "role": "judge"}, format="json")
        assert error_of(response) == (status, code), username
    assert list(EventStaff.objects.values_list("pk", "user", "role")) == before
    assert AuditEntry.objects.count() == entries


def test_remove_staff(staffed_event, organizer, judge, client_for):
    staff = EventStaff.objects.get(event=staffed_event, user=judge)
    url = f"{API}/{staffed_event.pk}/staff/{staff.pk}/"
    response = client_for(organizer).delete(url)
    assert response.status_code == 204
    assert not EventStaff.objects.filter(pk=staff.pk).exists()
    entry = only_entry(staffed_event, "staff.removed")
    assert (entry.actor, entry.object_id, entry.before) == (
        organizer,
        staff.pk,
        {"user": judge.pk, "role": "judge"},
    )
    assert error_of(client_for(organizer).delete(url)) == (404, "not_found")
    # The former judge is now an outsider of a public event.
    assert error_of(client_for(judge).get(f"{API}/{staffed_event.pk}/staff/")) == (
        403,
        "not_staff",
    )


# --- late entry, re-entry ----------------------------------------------------------------


def test_late_entry_by_a_judge(event_after_round_3, outsider, client_for):
    f = event_after_round_3
    payload = {"username": "outsider", "deck_text": LEGAL_DECK, "reason": "arrived late"}
    response = client_for(f.judge).post(f"{API}/{f.event.pk}/late-entry/", payload, format="json")
    assert response.status_code == 201
    registration = Registration.objects.get(event=f.event, player=outsider)
    assert response.json() == {
        "id": registration.pk,
        "player": "outsider",
        "name": "outsider",
        "status": "registered",
        "has_decklist": True,
        "dropped_after_round": None,
        "late_entry_round": 4,
    }
    assert (registration.deck_text, registration.locked) == (LEGAL_DECK, True)
    entry = only_entry(f.event, "registration.late_entry")
    assert (entry.actor, entry.object_id, entry.reason) == (
        f.judge,
        registration.pk,
        "arrived late",
    )
    assert entry.after == {
        "player": outsider.pk,
        "status": "registered",
        "late_entry_round": 4,
        "late_entry_policy": "losses",
    }


def test_late_entry_refusals(event_after_round_3, outsider, client_for):
    f = event_after_round_3
    url = f"{API}/{f.event.pk}/late-entry/"
    judge = client_for(f.judge)
    count = Registration.objects.count()
    cases = [
        ({"username": "outsider"}, 400, "decklist_missing"),
        ({"username": "outsider", "deck_text": ILLEGAL_DECK}, 400, "deck_illegal"),
        ({"username": "nobody", "deck_text": LEGAL_DECK}, 400, "user_not_found"),
        ({"username": "player001", "deck_text": LEGAL_DECK}, 409, "already_registered"),
        ({"username": "player008", "deck_text": LEGAL_DECK}, 409, "use_reentry"),
        ({"username": "co-organizer", "deck_text": LEGAL_DECK}, 403, "staff_cannot_play"),
    ]
    for payload, status, code in cases:
        assert error_of(judge.post(url, payload, format="json")) == (status, code), payload
    assert error_of(judge.post(url, {"deck_text": LEGAL_DECK}, format="json")) == (
        400,
        "invalid_input",
    )
    # Not while registration is open (the player registers instead).
    open_one = open_event(f.organizer, f.event.format, name="Open")
    services.add_staff(open_one, actor=f.organizer, user=f.judge, role="judge")
    response = judge.post(
        f"{API}/{open_one.pk}/late-entry/",
        {"username": "outsider", "deck_text": LEGAL_DECK},
        format="json",
    )
    assert error_of(response) == (409, "event_not_running")
    assert Registration.objects.count() == count
    assert not AuditEntry.objects.filter(action="registration.late_entry").exists()


def test_reenter_after_a_drop(event_after_round_3, client_for):
    f = event_after_round_3
    url = f"{API}/{f.event.pk}/registrations/{f.dropped.pk}/reenter/"
    client = client_for(f.players[7])
    assert error_of(client.post(url, {}, format="json")) == (409, "reentry_not_allowed")
    services.update_event(f.event, actor=f.organizer, allow_reentry=True)
    response = client.post(url, {"reason": "feeling better"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["dropped_after_round"]) == ("registered", None)
    f.dropped.refresh_from_db()
    assert (f.dropped.status, f.dropped.dropped_after_round) == ("registered", None)
    entry = only_entry(f.event, "registration.reentered")
    assert (entry.actor, entry.reason, entry.before, entry.after) == (
        f.players[7],
        "feeling better",
        {"status": "dropped", "dropped_after_round": 2},
        {"status": "registered", "dropped_after_round": None},
    )
    assert error_of(client.post(url, {}, format="json")) == (409, "not_dropped")


# --- top cut and bracket -----------------------------------------------------------------


@pytest.fixture
def swiss_done(organizer, crossover, make_players):
    """Six players, two Swiss rounds played and closed, a top 4 planned."""
    event = open_event(organizer, crossover, swiss_rounds=2, top_cut_size=4)
    register_all(event, make_players(6))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    play_round(event, organizer)
    return event


def round_json(number, match_count, open_count, stage="top_cut"):
    return {
        "number": number,
        "stage": stage,
        "status": "draft",
        "match_count": match_count,
        "open_match_count": open_count,
        "published_at": None,
        "started_at": None,
        "closed_at": None,
    }


def test_top_cut_then_bracket_then_finish(swiss_done, organizer, client_for):
    event = swiss_done
    client = client_for(organizer)
    seeds = services.compute_standings(event).order()[:4]
    response = client.post(f"{API}/{event.pk}/top-cut/")
    assert response.status_code == 201
    assert response.json() == round_json(3, 2, 2)
    event.refresh_from_db()
    assert event.state == EventState.TOP_CUT
    semis = Round.objects.get(event=event, number=3)
    assert semis.stage == RoundStage.TOP_CUT
    tables = {m.table: (m.player1_id, m.player2_id) for m in semis.matches.all()}
    assert tables == {1: (seeds[0], seeds[3]), 2: (seeds[1], seeds[2])}
    entry = only_entry(event, "event.top_cut_generated")
    assert (entry.after["round"], entry.after["seeds"]) == (3, seeds)

    advance = f"{API}/{event.pk}/advance-bracket/"
    assert error_of(client.post(advance)) == (409, "previous_round_open")
    play_top_cut_round(semis, organizer)
    response = client.post(advance)
    assert (response.status_code, response.json()) == (201, round_json(4, 1, 1))
    final = Round.objects.get(event=event, number=4)
    winners = [m.player1_id for m in semis.matches.order_by("table")]  # player 1 wins 2-0
    assert [(m.player1_id, m.player2_id) for m in final.matches.all()] == [tuple(winners)]
    entry = only_entry(event, "round.bracket_advanced")
    assert (entry.object_id, entry.after["round"]) == (final.pk, 4)

    play_top_cut_round(final, organizer)
    assert error_of(client.post(advance)) == (409, "bracket_complete")
    response = client.post(f"{API}/{event.pk}/finish/")
    assert response.json()["state"] == "finished"


def test_top_cut_refusals(event_after_round_3, organizer, crossover, make_players, client_for):
    f = event_after_round_3
    client = client_for(organizer)
    assert error_of(client.post(f"{API}/{f.event.pk}/top-cut/")) == (409, "swiss_not_complete")
    assert error_of(client.post(f"{API}/{f.event.pk}/advance-bracket/")) == (
        409,
        "event_not_in_top_cut",
    )
    no_cut = open_event(organizer, crossover, name="No cut", swiss_rounds=1)
    register_all(no_cut, make_players(2, "nocut"))
    services.start_event(no_cut, actor=organizer)
    play_round(no_cut, organizer)
    assert error_of(client.post(f"{API}/{no_cut.pk}/top-cut/")) == (409, "no_top_cut")
    assert not Round.objects.filter(stage=RoundStage.TOP_CUT).exists()
    assert Event.objects.filter(state=EventState.TOP_CUT).count() == 0


def test_finish_with_a_top_cut_pending(swiss_done, organizer, client_for):
    response = client_for(organizer).post(f"{API}/{swiss_done.pk}/finish/")
    assert error_of(response) == (409, "top_cut_pending")
