"""tournaments.services.events: creating an event, its settings, staff and its states."""

import datetime as dt

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.models import AuditEntry, Event, EventStaff, EventState, Registration, StaffRole

from .factories import EVENT_DATE, UserFactory, new_event, open_event, play_round, register_all

pytestmark = pytest.mark.django_db


def entries(event, action=None):
    found = AuditEntry.objects.filter(event=event)
    return list(found.filter(action=action) if action else found)


@pytest.mark.parametrize(
    ("players", "rounds"),
    [(0, 0), (1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (16, 4), (17, 5),
     (64, 6), (65, 7), (4096, 12)],
)  # fmt: skip
def test_suggested_swiss_rounds_is_ceil_log2(players, rounds):
    assert services.suggested_swiss_rounds(players) == rounds


def test_create_event_starts_as_draft_with_one_audit_entry(organizer, crossover):
    event = services.create_event(
        organizer=organizer,
        format=crossover,
        name="  Spring Open ",
        date=EVENT_DATE,
        capacity=32,
        top_cut_size=8,
        tiebreak_profile="pokemon",
    )
    event = Event.objects.get()
    assert (event.name, event.state, event.capacity, event.top_cut_size) == (
        "Spring Open",
        EventState.DRAFT,
        32,
        8,
    )
    assert event.organizer == organizer
    assert event.tiebreak_profile == "pokemon"
    assert event.swiss_timeout_policy == "draw"
    assert event.top_cut_timeout_policy == "more_hp_wins"
    assert event.late_entry_policy == "losses"
    assert len(event.pairing_seed) == 16  # random unless given
    [entry] = entries(event)
    assert (entry.action, entry.actor, entry.object_type, entry.object_id) == (
        "event.created",
        organizer,
        "event",
        event.pk,
    )
    assert entry.after["capacity"] == 32
    assert entry.after["format"] == crossover.pk


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"capacity": 1}, "capacity"),
        ({"top_cut_size": 6}, "top_cut_size"),
        ({"top_cut_size": 32}, "top_cut_size"),  # larger than the capacity 16
        ({"round_minutes": 0}, "round_minutes"),
        ({"swiss_rounds": 0}, "swiss_rounds"),
        ({"tiebreak_profile": "buchholz"}, "tiebreak_profile"),
        ({"swiss_timeout_policy": "coin"}, "swiss_timeout_policy"),
        ({"name": "  "}, "name"),
        ({"decklist_deadline": dt.datetime(2026, 5, 15, 12)}, "decklist_deadline"),  # naive
    ],
)
def test_create_event_refuses_invalid_settings(organizer, crossover, settings, field):
    with pytest.raises(services.InvalidInput) as raised:
        new_event(organizer, crossover, **settings)
    assert raised.value.code == "invalid_setting"
    assert raised.value.details["field"] == field
    assert Event.objects.count() == 0
    assert AuditEntry.objects.count() == 0


def test_create_event_refuses_unknown_settings_and_anonymous(organizer, crossover):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(services.InvalidInput) as raised:
        new_event(organizer, crossover, prize="a car")
    assert raised.value.code == "unknown_setting"
    with pytest.raises(services.NotAllowed) as raised:
        new_event(AnonymousUser(), crossover)
    assert raised.value.code == "login_required"
    assert Event.objects.count() == 0


def test_update_event_changes_settings_and_records_before_and_after(organizer, crossover):
    event = new_event(organizer, crossover)
    event = services.update_event(
        event, actor=organizer, reason="bigger venue", capacity=40, round_minutes=45
    )
    event.refresh_from_db()
    assert (event.capacity, event.round_minutes) == (40, 45)
    [entry] = entries(event, "event.updated")
    assert entry.reason == "bigger venue"
    assert entry.before == {"capacity": 16, "round_minutes": 50}
    assert entry.after == {"capacity": 40, "round_minutes": 45}


def test_update_event_without_a_change_writes_nothing(organizer, crossover):
    event = new_event(organizer, crossover)
    services.update_event(event, actor=organizer, capacity=16)
    assert entries(event, "event.updated") == []


def test_update_event_format_and_date_are_draft_only(organizer, crossover):
    event = open_event(organizer, crossover)
    with pytest.raises(services.InvalidState) as raised:
        services.update_event(event, actor=organizer, date=dt.date(2026, 6, 1))
    assert (raised.value.code, raised.value.details["field"]) == ("setting_locked", "date")
    assert Event.objects.get().date == EVENT_DATE


def test_update_event_capacity_cannot_drop_below_the_registered(organizer, crossover, make_players):
    event = open_event(organizer, crossover, capacity=4)
    register_all(event, make_players(3))
    with pytest.raises(services.InvalidInput) as raised:
        services.update_event(event, actor=organizer, capacity=2)
    assert raised.value.code == "capacity_below_registered"
    assert raised.value.details == {"registered": 3}


def test_update_event_raising_capacity_moves_the_waitlist_in(organizer, crossover, make_players):
    event = open_event(organizer, crossover, capacity=2)
    _first, _second, third, fourth = register_all(event, make_players(4))
    assert [r.status for r in (third, fourth)] == ["waitlisted", "waitlisted"]
    services.update_event(event, actor=organizer, capacity=3)
    statuses = dict(Registration.objects.values_list("id", "status"))
    assert statuses[third.pk] == "registered"
    assert statuses[fourth.pk] == "waitlisted"
    [entry] = entries(event, "event.updated")
    assert entry.after == {"capacity": 3, "promoted_from_waitlist": [third.pk]}


def test_update_event_by_a_judge_is_refused(staffed_event, judge):
    with pytest.raises(services.NotAllowed) as raised:
        services.update_event(staffed_event, actor=judge, capacity=40)
    assert raised.value.code == "not_manager"


def test_update_event_co_organizer_may_edit(staffed_event, co_organizer):
    services.update_event(staffed_event, actor=co_organizer, round_minutes=40)
    assert Event.objects.get().round_minutes == 40


def test_open_registration_moves_draft_forward_once(organizer, crossover):
    event = new_event(organizer, crossover)
    event = services.open_registration(event, actor=organizer)
    assert Event.objects.get().state == EventState.REGISTRATION_OPEN
    [entry] = entries(event, "event.registration_opened")
    assert (entry.before, entry.after) == (
        {"state": "draft"},
        {"state": "registration_open"},
    )
    with pytest.raises(services.InvalidState) as raised:
        services.open_registration(event, actor=organizer)
    assert raised.value.code == "wrong_event_state"
    assert raised.value.details == {"current": "registration_open", "allowed": ["draft"]}
    assert len(entries(event, "event.registration_opened")) == 1


def test_start_event_locks_decklists_and_suggests_rounds(organizer, crossover, make_players):
    event = open_event(organizer, crossover)
    registrations = register_all(event, make_players(5))
    event = services.start_event(event, actor=organizer)
    event.refresh_from_db()
    assert event.state == EventState.RUNNING
    assert event.swiss_rounds == 3
    assert set(Registration.objects.values_list("locked", flat=True)) == {True}
    [entry] = entries(event, "event.started")
    assert entry.after == {
        "state": "running",
        "players": 5,
        "decklists_locked": 5,
        "swiss_rounds": 3,
    }
    assert len(registrations) == 5


def test_start_event_keeps_rounds_the_organizer_set(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=6)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    assert Event.objects.get().swiss_rounds == 6


def test_start_event_needs_two_players(organizer, crossover, make_players):
    event = open_event(organizer, crossover)
    register_all(event, make_players(1))
    with pytest.raises(services.InvalidState) as raised:
        services.start_event(event, actor=organizer)
    assert raised.value.code == "not_enough_players"
    assert Event.objects.get().state == EventState.REGISTRATION_OPEN
    assert entries(event, "event.started") == []


def test_start_event_needs_every_decklist(organizer, crossover, make_players):
    event = open_event(organizer, crossover)
    register_all(event, make_players(2))
    late = services.register_player(event, actor=UserFactory(username="nodeck"))
    with pytest.raises(services.InvalidState) as raised:
        services.start_event(event, actor=organizer)
    assert raised.value.code == "decklists_missing"
    assert raised.value.details == {"registrations": [late.pk]}
    assert set(Registration.objects.values_list("locked", flat=True)) == {False}


def test_start_event_from_draft_is_refused(organizer, crossover):
    event = new_event(organizer, crossover)
    with pytest.raises(services.InvalidState) as raised:
        services.start_event(event, actor=organizer)
    assert raised.value.code == "wrong_event_state"


def test_finish_event_without_top_cut_after_every_swiss_round(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=2)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.finish_event(event, actor=organizer)
    assert (raised.value.code, raised.value.details) == ("swiss_not_complete", {"played": 1})
    play_round(event, organizer)
    services.finish_event(event, actor=organizer)
    assert Event.objects.get().state == EventState.FINISHED
    assert len(entries(event, "event.finished")) == 1


def test_finish_event_with_a_top_cut_pending_is_refused(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=1, top_cut_size=2)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.finish_event(event, actor=organizer)
    assert raised.value.code == "top_cut_pending"


def test_add_staff_by_the_organizer(organizer, crossover, judge):
    event = new_event(organizer, crossover)
    staff = services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    assert EventStaff.objects.get() == staff
    [entry] = entries(event, "staff.added")
    assert entry.after == {"user": judge.pk, "role": "judge"}
    with pytest.raises(services.Conflict) as raised:
        services.add_staff(event, actor=organizer, user=judge, role=StaffRole.CO_ORGANIZER)
    assert raised.value.code == "already_staff"


def test_add_staff_refusals(staffed_event, organizer, co_organizer, make_players):
    event = staffed_event
    with pytest.raises(services.NotAllowed) as raised:
        services.add_staff(event, actor=co_organizer, user=UserFactory(), role="judge")
    assert raised.value.code == "not_organizer"
    with pytest.raises(services.InvalidInput) as raised:
        services.add_staff(event, actor=organizer, user=organizer, role="judge")
    assert raised.value.code == "user_is_organizer"
    with pytest.raises(services.InvalidInput) as raised:
        services.add_staff(event, actor=organizer, user=UserFactory(), role="referee")
    assert raised.value.code == "invalid_role"
    [player] = make_players(1)
    register_all(event, [player])
    with pytest.raises(services.InvalidState) as raised:
        services.add_staff(event, actor=organizer, user=player, role="judge")
    assert raised.value.code == "user_is_player"
    assert EventStaff.objects.count() == 2


def test_remove_staff(staffed_event, organizer, judge):
    staff = EventStaff.objects.get(user=judge)
    services.remove_staff(staff, actor=organizer)
    assert not EventStaff.objects.filter(user=judge).exists()
    [entry] = entries(staffed_event, "staff.removed")
    assert entry.before == {"user": judge.pk, "role": "judge"}


def test_event_timestamps_are_aware(organizer, crossover):
    event = new_event(organizer, crossover, decklist_deadline=timezone.now())
    assert timezone.is_aware(Event.objects.get(pk=event.pk).decklist_deadline)


def test_update_event_refuses_a_save_over_a_newer_change(organizer, crossover):
    event = new_event(organizer, crossover)
    seen = event.updated_at
    services.update_event(event, actor=organizer, capacity=20, expected_updated_at=seen)
    event.refresh_from_db()
    with pytest.raises(services.Conflict) as raised:
        services.update_event(event, actor=organizer, name="Late", expected_updated_at=seen)
    assert raised.value.code == "stale_version"
    event.refresh_from_db()
    assert (event.name, event.capacity) == ("Spring Open", 20)
    assert AuditEntry.objects.filter(event=event, action="event.updated").count() == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [("capacity", 100_001), ("capacity", 10**20), ("round_minutes", 1441), ("swiss_rounds", 31)],
)
def test_update_event_refuses_absurd_numbers(organizer, crossover, field, value):
    event = new_event(organizer, crossover)
    with pytest.raises(services.InvalidInput) as raised:
        services.update_event(event, actor=organizer, **{field: value})
    assert raised.value.code == "invalid_setting"
    assert raised.value.details["field"] == field
