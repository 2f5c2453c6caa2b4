"""tournaments.services.registrations: sign-up, waitlist, decklists, drops, re-entry and
late entries."""

import datetime as dt

import pytest
from django.utils import timezone

from decks import services as deck_services
from tests.decks.conftest import BETA_DECK, LEGAL_DECK
from tournaments import services
from tournaments.models import AuditEntry, Registration, RegistrationStatus, StaffRole

from .factories import UserFactory, open_event, play_round, register_all

pytestmark = pytest.mark.django_db


def actions(event):
    return list(
        AuditEntry.objects.filter(event=event).order_by("id").values_list("action", flat=True)
    )


@pytest.fixture
def event(organizer, crossover):
    return open_event(organizer, crossover, capacity=2)


@pytest.fixture
def running(organizer, crossover, make_players):
    """A running event of four players, capacity six, re-entry allowed."""
    event = open_event(organizer, crossover, capacity=6, allow_reentry=True, swiss_rounds=4)
    registrations = register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    return event, registrations


def test_register_player_with_a_legal_deck(event):
    player = UserFactory(username="alice")
    registration = services.register_player(event, actor=player, deck_text=LEGAL_DECK)
    registration = Registration.objects.get()
    assert (registration.player, registration.status) == (player, RegistrationStatus.REGISTERED)
    assert registration.deck_text == LEGAL_DECK
    assert registration.deck_report["legal"] is True
    assert registration.deck_report["as_of"] == "2026-05-16"  # the event's date
    assert registration.deck_submitted_at is not None
    assert registration.locked is False
    [entry] = AuditEntry.objects.filter(event=event, object_type="registration")
    assert (entry.action, entry.actor, entry.object_id) == (
        "registration.created",
        player,
        registration.pk,
    )
    assert entry.after == {"player": player.pk, "status": "registered", "decklist": True}


def test_register_player_refuses_an_illegal_deck_with_the_full_report(event):
    # βedition 狡猾フィーリア is banned from 2002-04-01, i.e. on the event's date.
    with pytest.raises(services.DeckIllegal) as raised:
        services.register_player(event, actor=UserFactory(), deck_text=BETA_DECK)
    assert raised.value.code == "deck_illegal"
    assert raised.value.report.codes == ["BANNED"]
    assert raised.value.report.violations[0].rule == "1−2−1"
    assert Registration.objects.count() == 0
    assert actions(event) == ["event.created", "event.registration_opened"]


def test_register_player_refuses_unknown_cards(event):
    with pytest.raises(services.DeckIllegal) as raised:
        services.register_player(event, actor=UserFactory(), deck_text="50 存在しないカード\n")
    assert "UNKNOWN_CARD" in raised.value.report.codes
    assert Registration.objects.count() == 0


def test_register_player_with_a_stored_deck(event, crossover):
    player = UserFactory()
    deck, _ = deck_services.save_deck(owner=player, fmt=crossover, name="Fire", text=LEGAL_DECK)
    registration = services.register_player(event, actor=player, deck=deck)
    assert registration.deck == deck
    assert registration.deck_report["main_count"] == 50


def test_register_player_refuses_another_players_deck(event, crossover):
    owner = UserFactory()
    deck, _ = deck_services.save_deck(owner=owner, fmt=crossover, name="Fire", text=LEGAL_DECK)
    with pytest.raises(services.NotAllowed) as raised:
        services.register_player(event, actor=UserFactory(), deck=deck)
    assert raised.value.code == "deck_not_owned"


def test_register_player_waitlists_when_full(event):
    register_all(event, [UserFactory(), UserFactory()])
    late = services.register_player(event, actor=UserFactory(), deck_text=LEGAL_DECK)
    assert late.status == RegistrationStatus.WAITLISTED


def test_register_player_without_waitlist_raises_capacity_full(event):
    register_all(event, [UserFactory(), UserFactory()])
    with pytest.raises(services.CapacityFull) as raised:
        services.register_player(event, actor=UserFactory(), join_waitlist=False)
    assert raised.value.code == "capacity_full"
    assert Registration.objects.count() == 2


def test_register_player_twice_is_a_conflict(event):
    player = UserFactory()
    services.register_player(event, actor=player)
    with pytest.raises(services.Conflict) as raised:
        services.register_player(event, actor=player)
    assert raised.value.code == "already_registered"
    assert Registration.objects.count() == 1
    assert actions(event).count("registration.created") == 1


def test_register_player_refused_before_opening_and_after_deadline(organizer, crossover):
    from .factories import new_event

    draft = new_event(organizer, crossover)
    with pytest.raises(services.InvalidState) as raised:
        services.register_player(draft, actor=UserFactory())
    assert raised.value.code == "registration_not_open"
    closed = open_event(
        organizer, crossover, registration_deadline=timezone.now() - dt.timedelta(minutes=1)
    )
    with pytest.raises(services.InvalidState) as raised:
        services.register_player(closed, actor=UserFactory())
    assert raised.value.code == "registration_closed"
    assert Registration.objects.count() == 0


def test_register_someone_else_needs_staff(staffed_event, judge, outsider):
    player = UserFactory()
    with pytest.raises(services.NotAllowed) as raised:
        services.register_player(staffed_event, actor=outsider, player=player)
    assert raised.value.code == "not_staff"
    registration = services.register_player(staffed_event, actor=judge, player=player)
    assert registration.player == player


def test_staff_cannot_register_as_players(staffed_event, organizer, judge, co_organizer):
    for user in (organizer, judge, co_organizer):
        with pytest.raises(services.NotAllowed) as raised:
            services.register_player(staffed_event, actor=user)
        assert raised.value.code == "staff_cannot_play"
    assert Registration.objects.count() == 0


def test_withdrawn_player_registers_again_at_the_back(event):
    first, _second = register_all(event, [UserFactory(), UserFactory()])
    waiting = services.register_player(event, actor=UserFactory(), deck_text=LEGAL_DECK)
    services.drop_player(first, actor=first.player)
    waiting.refresh_from_db()
    assert waiting.status == RegistrationStatus.REGISTERED  # moved in
    again = services.register_player(event, actor=first.player)
    assert again.pk == first.pk
    assert again.status == RegistrationStatus.WAITLISTED
    assert again.dropped_after_round is None


def test_submit_decklist_before_the_deadline(event):
    registration = services.register_player(event, actor=UserFactory())
    assert registration.has_decklist is False
    services.submit_decklist(registration, actor=registration.player, deck_text=LEGAL_DECK)
    registration.refresh_from_db()
    assert registration.deck_text == LEGAL_DECK
    entry = AuditEntry.objects.get(action="registration.decklist_submitted")
    assert entry.before == {"deck_text": "", "deck": None, "legal": None}
    assert entry.after == {"deck_text": LEGAL_DECK, "deck": None, "legal": True}


def test_submit_decklist_illegal_keeps_the_old_list(event):
    registration = services.register_player(event, actor=UserFactory(), deck_text=LEGAL_DECK)
    with pytest.raises(services.DeckIllegal):
        services.submit_decklist(registration, actor=registration.player, deck_text=BETA_DECK)
    registration.refresh_from_db()
    assert registration.deck_text == LEGAL_DECK
    assert not AuditEntry.objects.filter(action="registration.decklist_submitted").exists()


def test_submit_decklist_by_an_outsider_is_refused(event, outsider):
    registration = services.register_player(event, actor=UserFactory())
    with pytest.raises(services.NotAllowed) as raised:
        services.submit_decklist(registration, actor=outsider, deck_text=LEGAL_DECK)
    assert raised.value.code == "not_own_registration"


def test_decklist_locks_at_the_deadline_except_for_a_judge_with_a_reason(
    staffed_event, organizer, judge
):
    registration = services.register_player(
        staffed_event, actor=UserFactory(), deck_text=LEGAL_DECK
    )
    services.update_event(
        staffed_event,
        actor=organizer,
        decklist_deadline=timezone.now() - dt.timedelta(seconds=1),
    )
    changed = LEGAL_DECK.replace("42 スワティ", "43 スワティ")
    with pytest.raises(services.InvalidState) as raised:
        services.submit_decklist(registration, actor=registration.player, deck_text=changed)
    assert raised.value.code == "decklist_locked"
    with pytest.raises(services.InvalidInput) as raised:
        services.submit_decklist(registration, actor=judge, deck_text=changed)
    assert raised.value.code == "reason_required"
    services.submit_decklist(
        registration, actor=judge, deck_text=changed, reason="count error found at deck check"
    )
    registration.refresh_from_db()
    assert registration.deck_text == changed
    [entry] = AuditEntry.objects.filter(action="registration.decklist_submitted")
    assert (entry.actor, entry.reason) == (judge, "count error found at deck check")
    assert entry.before["deck_text"] == LEGAL_DECK
    assert entry.after["deck_text"] == changed


def test_decklist_locked_once_the_event_runs(running):
    _event, registrations = running
    with pytest.raises(services.InvalidState) as raised:
        services.submit_decklist(
            registrations[0], actor=registrations[0].player, deck_text=LEGAL_DECK
        )
    assert raised.value.code == "decklist_locked"


def test_drop_player_before_start_frees_the_seat_for_the_waitlist(event):
    first, _second = register_all(event, [UserFactory(), UserFactory()])
    waiting = services.register_player(event, actor=UserFactory())
    dropped = services.drop_player(first, actor=first.player, reason="cannot come")
    assert (dropped.status, dropped.dropped_after_round) == ("dropped", 0)
    waiting.refresh_from_db()
    assert waiting.status == RegistrationStatus.REGISTERED
    [entry] = AuditEntry.objects.filter(action="registration.dropped")
    assert entry.reason == "cannot come"
    assert entry.before == {"status": "registered", "dropped_after_round": None}
    assert entry.after == {
        "status": "dropped",
        "dropped_after_round": 0,
        "promoted_from_waitlist": [waiting.pk],
    }


def test_drop_player_during_the_event_takes_effect_at_the_next_pairing(running, organizer):
    event, registrations = running
    play_round(event, organizer)
    dropped = services.drop_player(registrations[1], actor=registrations[1].player)
    assert (dropped.status, dropped.dropped_after_round) == ("dropped", 1)
    round_2 = services.generate_round(event, actor=organizer)
    paired = {m.player1_id for m in round_2.matches.all()} | {
        m.player2_id for m in round_2.matches.all()
    }
    assert registrations[1].pk not in paired
    assert len(paired - {None}) == 3


def test_drop_player_twice_is_refused(running):
    _event, registrations = running
    services.drop_player(registrations[0], actor=registrations[0].player)
    with pytest.raises(services.InvalidState) as raised:
        services.drop_player(registrations[0], actor=registrations[0].player)
    assert raised.value.code == "not_active"
    assert AuditEntry.objects.filter(action="registration.dropped").count() == 1


def test_drop_player_by_staff_and_not_by_another_player(staffed_event, judge):
    first, second = register_all(staffed_event, [UserFactory(), UserFactory()])
    with pytest.raises(services.NotAllowed) as raised:
        services.drop_player(first, actor=second.player)
    assert raised.value.code == "not_own_registration"
    services.drop_player(first, actor=judge, reason="no-show")
    assert Registration.objects.get(pk=first.pk).status == RegistrationStatus.DROPPED


def test_reenter_after_a_drop_when_allowed(running, organizer):
    event, registrations = running
    play_round(event, organizer)
    services.drop_player(registrations[2], actor=registrations[2].player)
    back = services.reenter(registrations[2], actor=registrations[2].player)
    assert (back.status, back.dropped_after_round) == ("registered", None)
    entry = AuditEntry.objects.get(action="registration.reentered")
    assert entry.before == {"status": "dropped", "dropped_after_round": 1}


def test_reenter_refusals(organizer, crossover, make_players, running):
    _event, registrations = running
    with pytest.raises(services.InvalidState) as raised:
        services.reenter(registrations[0], actor=organizer)
    assert raised.value.code == "not_dropped"
    services.drop_player(registrations[0], actor=organizer)
    with pytest.raises(services.InvalidState) as raised:  # never played
        services.reenter(registrations[0], actor=organizer)
    assert raised.value.code == "use_late_entry"

    strict = open_event(organizer, crossover, name="No re-entry")
    strict_regs = register_all(strict, make_players(2, prefix="strict"))
    services.start_event(strict, actor=organizer)
    play_round(strict, organizer)
    services.drop_player(strict_regs[0], actor=organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.reenter(strict_regs[0], actor=organizer)
    assert raised.value.code == "reentry_not_allowed"
    assert not AuditEntry.objects.filter(action="registration.reentered").exists()


def test_add_late_entry_joins_from_the_next_round(running, organizer, judge):
    event, _registrations = running
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    play_round(event, organizer)
    late_player = UserFactory(username="late")
    late = services.add_late_entry(
        event, actor=judge, player=late_player, deck_text=LEGAL_DECK, reason="train delay"
    )
    assert (late.status, late.late_entry_round, late.locked) == ("registered", 2, True)
    entry = AuditEntry.objects.get(action="registration.late_entry")
    assert entry.after == {
        "player": late_player.pk,
        "status": "registered",
        "late_entry_round": 2,
        "late_entry_policy": "losses",
    }
    round_2 = services.generate_round(event, actor=organizer)
    assert round_2.matches.filter(participants__registration=late).exists()


def test_add_late_entry_refusals(running, organizer, outsider, crossover):
    event, registrations = running
    with pytest.raises(services.NotAllowed) as raised:
        services.add_late_entry(event, actor=outsider, player=UserFactory(), deck_text=LEGAL_DECK)
    assert raised.value.code == "not_staff"
    with pytest.raises(services.InvalidInput) as raised:
        services.add_late_entry(event, actor=organizer, player=UserFactory())
    assert raised.value.code == "decklist_missing"
    with pytest.raises(services.Conflict) as raised:
        services.add_late_entry(event, actor=organizer, player=registrations[0].player)
    assert raised.value.code == "already_registered"
    with pytest.raises(services.DeckIllegal):
        services.add_late_entry(event, actor=organizer, player=UserFactory(), deck_text=BETA_DECK)
    services.update_event(event, actor=organizer, capacity=4)
    with pytest.raises(services.CapacityFull):
        services.add_late_entry(event, actor=organizer, player=UserFactory(), deck_text=LEGAL_DECK)
    assert not AuditEntry.objects.filter(action="registration.late_entry").exists()
    assert Registration.objects.count() == 4
