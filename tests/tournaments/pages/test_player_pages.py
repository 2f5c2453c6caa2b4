"""Pages about players: the player's own decklist change, drop and re-entry; the staff's
player page with its drop, re-entry, decklist and penalty forms; late entries; the
dashboard's players and penalties panels. Every POST changes state only through the
services (checked by its audit entry); every refusal changes nothing."""

import datetime as dt
import re
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import (
    UserFactory,
    new_event,
    open_event,
    play_round,
    register_all,
)
from tournaments import services
from tournaments.models import (
    AuditEntry,
    Match,
    MatchStatus,
    Penalty,
    Registration,
    RegistrationStatus,
    StaffRole,
)

pytestmark = pytest.mark.django_db

ILLEGAL_DECK = "4 森原 さとみ\n10 スワティ\n"
OTHER_DECK = "4 森原 さとみ\n46 スワティ"  # as stored: the form strips the text
LOCKED_TEXT = "Decklists are locked: only a judge can change your decklist now."
NEXT_PAIRING = "This takes effect from the next pairing"


def text_of(response) -> str:
    return response.content.decode()


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def snapshot(registration) -> tuple:
    registration.refresh_from_db()
    return (
        registration.status,
        registration.dropped_after_round,
        registration.deck_text,
        registration.locked,
    )


def staffed(event, organizer, judge, co_organizer=None):
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    if co_organizer is not None:
        services.add_staff(event, actor=organizer, user=co_organizer, role=StaffRole.CO_ORGANIZER)
    return event


@pytest.fixture
def running(organizer, judge, crossover, make_players):
    """Four players, round 1 published and its clock running; re-entry allowed."""
    event = staffed(open_event(organizer, crossover, allow_reentry=True), organizer, judge)
    players = make_players(4)
    registrations = register_all(event, players)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    event.refresh_from_db()
    return SimpleNamespace(event=event, players=players, registrations=registrations, round=round_)


@pytest.fixture
def after_round_1(organizer, judge, crossover, make_players):
    """Four players, round 1 played and closed; player004 dropped after it; re-entry
    allowed (``allow_reentry``) unless the test changes it."""

    def make(allow_reentry=True):
        event = open_event(organizer, crossover, allow_reentry=allow_reentry)
        staffed(event, organizer, judge)
        players = make_players(4)
        registrations = register_all(event, players)
        services.start_event(event, actor=organizer)
        play_round(event, organizer)
        dropped = services.drop_player(registrations[3], actor=players[3])
        event.refresh_from_db()
        return SimpleNamespace(
            event=event, players=players, registrations=registrations, dropped=dropped
        )

    return make


def player_url(name, event, registration):
    return reverse(f"tournaments:{name}", args=[event.pk, registration.pk])


# --- the player's own registration ------------------------------------------------------


def test_my_registration_shows_deck_report_deadline_and_actions(
    client_for, organizer, crossover, outsider
):
    deadline = timezone.now() + dt.timedelta(days=2)
    event = open_event(organizer, crossover, decklist_deadline=deadline)
    services.register_player(event, actor=outsider, deck_text=LEGAL_DECK)
    body = text_of(
        client_for(outsider).get(reverse("tournaments:my_registration", args=[event.pk]))
    )
    assert "<h2>My deck</h2>" in body
    assert '<div class="verdict legal">' in body
    assert "<dt>Deck</dt><dd>50</dd>" in body
    assert f'<pre class="decklist">{LEGAL_DECK}</pre>' in body
    local = timezone.localtime(deadline)
    assert f"<dt>Decklist deadline</dt><dd>{local:%Y-%m-%d %H:%M}</dd>" in body
    assert " · locked" not in body
    assert reverse("tournaments:my_decklist", args=[event.pk]) in body
    assert ">Change decklist</a>" in body
    assert reverse("tournaments:my_drop", args=[event.pk]) in body
    assert ">Drop from the event</a>" in body
    assert "Re-enter the event" not in body


def test_my_registration_after_start_shows_locked_and_no_change_link(client_for, running):
    event, player = running.event, running.players[0]
    body = text_of(client_for(player).get(reverse("tournaments:my_registration", args=[event.pk])))
    assert " · locked</dd>" in body
    assert "<dt>Decklist deadline</dt><dd>when the event starts</dd>" in body
    assert "Your decklist is locked: only a judge can change it now." in body
    assert ">Change decklist</a>" not in body
    assert ">Drop from the event</a>" in body


def test_my_decklist_change_saves_and_audits(client_for, staffed_event, outsider):
    registration = services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    url = reverse("tournaments:my_decklist", args=[staffed_event.pk])
    client = client_for(outsider)
    page = text_of(client.get(url))
    assert "<h1>Change decklist</h1>" in page
    assert f">\n{LEGAL_DECK}</textarea>" in page
    response = client.post(url, {"decklist": OTHER_DECK})
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:my_registration", args=[staffed_event.pk])
    registration.refresh_from_db()
    assert registration.deck_text == OTHER_DECK
    assert registration.deck_report["legal"] is True
    entry = AuditEntry.objects.get(
        action="registration.decklist_submitted", object_id=registration.pk
    )
    assert entry.actor == outsider
    assert entry.reason == ""
    assert entry.before == {"deck_text": LEGAL_DECK, "deck": None, "legal": True}
    assert entry.after == {"deck_text": OTHER_DECK, "deck": None, "legal": True}
    assert "Your decklist is saved." in text_of(client.get(response["Location"]))


def test_my_decklist_illegal_shows_report_and_saves_nothing(client_for, staffed_event, outsider):
    registration = services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    url = reverse("tournaments:my_decklist", args=[staffed_event.pk])
    response = client_for(outsider).post(url, {"decklist": ILLEGAL_DECK})
    assert response.status_code == 200
    body = text_of(response)
    assert "The decklist is not legal for this event: nothing was saved." in body
    assert '<div class="verdict illegal">' in body
    assert "<dt>Deck</dt><dd>14</dd>" in body
    assert "<h2>Problems</h2>" in body
    registration.refresh_from_db()
    assert registration.deck_text == LEGAL_DECK
    assert not AuditEntry.objects.filter(action="registration.decklist_submitted").exists()


def test_my_decklist_locked_is_refused_with_message(client_for, running):
    event, player, registration = running.event, running.players[0], running.registrations[0]
    url = reverse("tournaments:my_decklist", args=[event.pk])
    page = text_of(client_for(player).get(url))
    assert "Your decklist is locked: only a judge can change it now." in page
    assert "<textarea" not in page
    before = snapshot(registration)
    response = client_for(player).post(url, {"decklist": OTHER_DECK})
    assert response.status_code == 200
    assert LOCKED_TEXT in text_of(response)
    assert snapshot(registration) == before
    assert not AuditEntry.objects.filter(action="registration.decklist_submitted").exists()


def test_my_decklist_after_the_deadline_is_locked(client_for, organizer, crossover, outsider):
    event = open_event(
        organizer, crossover, decklist_deadline=timezone.now() + dt.timedelta(minutes=1)
    )
    registration = services.register_player(event, actor=outsider, deck_text=LEGAL_DECK)
    services.update_event(
        event, actor=organizer, decklist_deadline=timezone.now() - dt.timedelta(seconds=1)
    )
    response = client_for(outsider).post(
        reverse("tournaments:my_decklist", args=[event.pk]), {"decklist": OTHER_DECK}
    )
    assert LOCKED_TEXT in text_of(response)
    registration.refresh_from_db()
    assert registration.deck_text == LEGAL_DECK


def test_my_drop_asks_then_drops_from_the_next_pairing(client_for, running):
    event, player, registration = running.event, running.players[0], running.registrations[0]
    url = reverse("tournaments:my_drop", args=[event.pk])
    client = client_for(player)
    page = text_of(client.get(url))
    assert f"<h1>Drop from {event.name}?</h1>" in page
    assert "Are you sure?" in page
    assert "Yes, drop me from the event" in page
    assert "This event allows re-entry" in page
    registration.refresh_from_db()
    assert registration.status == RegistrationStatus.REGISTERED  # the GET changed nothing

    response = client.post(url, {"reason": "Train leaves"}, follow=True)
    assert response.redirect_chain == [
        (reverse("tournaments:my_registration", args=[event.pk]), 302)
    ]
    assert any(NEXT_PAIRING in message for message in messages_of(response))
    registration.refresh_from_db()
    assert (registration.status, registration.dropped_after_round) == ("dropped", 1)
    entry = AuditEntry.objects.get(action="registration.dropped", object_id=registration.pk)
    assert entry.actor == player
    assert entry.reason == "Train leaves"
    assert entry.before == {"status": "registered", "dropped_after_round": None}
    assert entry.after == {"status": "dropped", "dropped_after_round": 1}
    # still paired in round 1: the drop counts from the next pairing
    assert Match.objects.filter(round=running.round, participants__registration=registration)
    body = text_of(response)
    assert ">Drop from the event</a>" not in body
    assert "Re-enter the event" in body  # the event allows it


def test_my_drop_twice_shows_the_refusal(client_for, running):
    event, player, registration = running.event, running.players[0], running.registrations[0]
    services.drop_player(registration, actor=player)
    url = reverse("tournaments:my_drop", args=[event.pk])
    assert "there is nothing to drop from" in text_of(client_for(player).get(url))
    response = client_for(player).post(url, {"reason": ""}, follow=True)
    assert messages_of(response) == [
        "This registration is not active: the player has dropped or is disqualified."
    ]
    assert AuditEntry.objects.filter(action="registration.dropped").count() == 1


def test_my_reenter_is_offered_and_works(client_for, after_round_1):
    fixture = after_round_1()
    event, player, registration = fixture.event, fixture.players[3], fixture.registrations[3]
    body = text_of(client_for(player).get(reverse("tournaments:my_registration", args=[event.pk])))
    assert "Re-enter the event" in body
    response = client_for(player).post(
        reverse("tournaments:my_reenter", args=[event.pk]), follow=True
    )
    assert messages_of(response) == ["Welcome back: you are paired again from the next round."]
    registration.refresh_from_db()
    assert (registration.status, registration.dropped_after_round) == ("registered", None)
    entry = AuditEntry.objects.get(action="registration.reentered", object_id=registration.pk)
    assert entry.actor == player
    assert entry.before == {"status": "dropped", "dropped_after_round": 1}
    assert entry.after == {"status": "registered", "dropped_after_round": None}


def test_my_reenter_not_allowed_shows_message(client_for, after_round_1):
    fixture = after_round_1(allow_reentry=False)
    event, player, registration = fixture.event, fixture.players[3], fixture.registrations[3]
    body = text_of(client_for(player).get(reverse("tournaments:my_registration", args=[event.pk])))
    assert "Re-enter the event" not in body
    before = snapshot(registration)
    response = client_for(player).post(
        reverse("tournaments:my_reenter", args=[event.pk]), follow=True
    )
    assert messages_of(response) == ["This event does not allow re-entry."]
    assert snapshot(registration) == before
    assert not AuditEntry.objects.filter(action="registration.reentered").exists()


@pytest.mark.parametrize("name", ["my_decklist", "my_drop", "my_reenter"])
def test_my_pages_need_login_and_a_registration(client_for, running, outsider, name):
    url = reverse(f"tournaments:{name}", args=[running.event.pk])
    for method in ("get", "post"):
        anonymous = getattr(client_for(), method)(url)
        assert anonymous.status_code == 302
        assert anonymous["Location"] == f"/accounts/login/?next={url}"
    before = AuditEntry.objects.count()
    assert client_for(outsider).post(url, {"decklist": LEGAL_DECK}).status_code == 404
    assert AuditEntry.objects.count() == before


def test_my_reenter_get_is_not_allowed(client_for, running):
    url = reverse("tournaments:my_reenter", args=[running.event.pk])
    assert client_for(running.players[0]).get(url).status_code == 405


# --- staff: the player page -------------------------------------------------------------


def test_player_page_shows_registration_deck_matches_penalties_and_audit(
    client_for, event_after_round_3, co_organizer
):
    fixture = event_after_round_3
    event, registration = fixture.event, fixture.registrations[0]
    url = player_url("player_detail", event, registration)
    for user in (fixture.organizer, fixture.judge, co_organizer):
        response = client_for(user).get(url)
        assert response.status_code == 200
    body = text_of(response)
    assert "<h1>Player: player001</h1>" in body
    assert '<dd><span class="badge">Registered</span></dd>' in body
    assert " · locked</dd>" in body
    assert '<div class="verdict legal">' in body
    assert f'<pre class="decklist">{LEGAL_DECK}</pre>' in body
    for number in (1, 2, 3):
        assert f"<td>{number}</td><td>" in body
    assert "<td>Warning</td><td>Slow play</td>" in body
    assert "<strong>player001 registered</strong>" in body
    assert "<strong>Warning for player001</strong>" in body
    assert "Drop the player" in body
    assert "Issue the penalty" in body
    assert "Save the decklist" in body
    assert "Decklists are locked: a change needs a reason" in body
    # the match select offers this player's matches only
    options = re.findall(r'<option value="(\d+)">', body)
    own = Match.objects.filter(participants__registration=registration)
    assert sorted(int(o) for o in options) == sorted(own.values_list("pk", flat=True))


def test_player_page_of_dropped_player_offers_reentry_only_when_allowed(
    client_for, event_after_round_3
):
    fixture = event_after_round_3
    url = player_url("player_detail", fixture.event, fixture.dropped)
    body = text_of(client_for(fixture.judge).get(url))
    assert "Dropped</span> (after round 2)" in body
    assert "Drop the player" not in body
    assert "This event does not allow re-entry." in body
    assert "Re-enter the player" not in body
    assert "<strong>player008 dropped</strong>" in body


def test_player_page_refused_to_outsider_player_and_anonymous(
    client_for, event_after_round_3, outsider
):
    fixture = event_after_round_3
    url = player_url("player_detail", fixture.event, fixture.registrations[1])
    assert client_for(fixture.judge).post(url).status_code == 405
    assert client_for(outsider).get(url).status_code == 403
    assert client_for(fixture.players[0]).get(url).status_code == 403
    assert client_for(fixture.players[1]).get(url).status_code == 403  # even their own
    anonymous = client_for().get(url)
    assert anonymous.status_code == 302
    assert anonymous["Location"] == f"/accounts/login/?next={url}"


def test_player_page_of_another_event_or_private_event_is_404(
    client_for, event_after_round_3, organizer, crossover, outsider, make_players
):
    fixture = event_after_round_3
    other = open_event(organizer, crossover, name="Other")
    foreign = register_all(other, make_players(1, prefix="other"))[0]
    url = reverse("tournaments:player_detail", args=[fixture.event.pk, foreign.pk])
    assert client_for(fixture.judge).get(url).status_code == 404
    private = new_event(organizer, crossover, name="Private")
    url = reverse("tournaments:player_detail", args=[private.pk, foreign.pk])
    assert client_for(outsider).get(url).status_code == 404


def test_staff_drop_with_reason(client_for, running, judge):
    event, registration = running.event, running.registrations[1]
    client = client_for(judge)
    response = client.post(
        player_url("player_drop", event, registration), {"drop-reason": "Feeling ill"}
    )
    assert response.status_code == 302
    assert response["Location"] == player_url("player_detail", event, registration)
    registration.refresh_from_db()
    assert (registration.status, registration.dropped_after_round) == ("dropped", 1)
    entry = AuditEntry.objects.get(action="registration.dropped", object_id=registration.pk)
    assert (entry.actor, entry.reason) == (judge, "Feeling ill")
    assert entry.before == {"status": "registered", "dropped_after_round": None}
    assert entry.after == {"status": "dropped", "dropped_after_round": 1}
    body = text_of(client.get(response["Location"]))
    assert "player002 is dropped. This takes effect from the next pairing" in body
    assert "Reason: Feeling ill" in body


def test_quick_drop_from_dashboard_returns_to_dashboard(client_for, running, organizer):
    event, registration = running.event, running.registrations[2]
    dashboard = reverse("tournaments:dashboard", args=[event.pk])
    body = text_of(client_for(organizer).get(dashboard))
    drop_url = player_url("player_drop", event, registration)
    assert f'action="{drop_url}"' in body
    response = client_for(organizer).post(drop_url, {"next": "dashboard"})
    assert response["Location"] == dashboard
    registration.refresh_from_db()
    assert registration.status == "dropped"
    entry = AuditEntry.objects.get(action="registration.dropped", object_id=registration.pk)
    assert (entry.actor, entry.reason) == (organizer, "")


def test_staff_drop_of_dropped_player_shows_refusal(client_for, event_after_round_3):
    fixture = event_after_round_3
    response = client_for(fixture.judge).post(
        player_url("player_drop", fixture.event, fixture.dropped), follow=True
    )
    assert messages_of(response) == [
        "This registration is not active: the player has dropped or is disqualified."
    ]
    assert AuditEntry.objects.filter(action="registration.dropped").count() == 1


def test_staff_reenter(client_for, after_round_1, judge):
    fixture = after_round_1()
    event, registration = fixture.event, fixture.registrations[3]
    body = text_of(client_for(judge).get(player_url("player_detail", event, registration)))
    assert "Re-enter the player" in body
    response = client_for(judge).post(
        player_url("player_reenter", event, registration),
        {"reenter-reason": "Came back"},
        follow=True,
    )
    assert messages_of(response) == [
        "player004 re-entered: they are paired again from the next round."
    ]
    registration.refresh_from_db()
    assert (registration.status, registration.dropped_after_round) == ("registered", None)
    entry = AuditEntry.objects.get(action="registration.reentered", object_id=registration.pk)
    assert (entry.actor, entry.reason) == (judge, "Came back")
    assert entry.before == {"status": "dropped", "dropped_after_round": 1}
    assert entry.after == {"status": "registered", "dropped_after_round": None}


def test_staff_reenter_not_allowed_changes_nothing(client_for, after_round_1, judge):
    fixture = after_round_1(allow_reentry=False)
    registration = fixture.registrations[3]
    before = snapshot(registration)
    response = client_for(judge).post(
        player_url("player_reenter", fixture.event, registration), follow=True
    )
    assert messages_of(response) == ["This event does not allow re-entry."]
    assert snapshot(registration) == before
    assert not AuditEntry.objects.filter(action="registration.reentered").exists()


def test_staff_decklist_change_needs_a_reason_once_locked(client_for, running, judge):
    event, registration = running.event, running.registrations[0]
    url = player_url("player_decklist", event, registration)
    response = client_for(judge).post(url, {"deck-decklist": OTHER_DECK, "deck-reason": ""})
    assert response.status_code == 200
    body = text_of(response)
    assert "Required: decklists are locked." in body
    assert '<ul class="errorlist" id="id_deck-reason_error"><li>This field is required.' in body
    registration.refresh_from_db()
    assert registration.deck_text == LEGAL_DECK

    response = client_for(judge).post(
        url, {"deck-decklist": OTHER_DECK, "deck-reason": "Wrote 42 instead of 46"}
    )
    assert response["Location"] == player_url("player_detail", event, registration)
    registration.refresh_from_db()
    assert registration.deck_text == OTHER_DECK
    entry = AuditEntry.objects.get(
        action="registration.decklist_submitted", object_id=registration.pk
    )
    assert (entry.actor, entry.reason) == (judge, "Wrote 42 instead of 46")
    assert entry.before == {"deck_text": LEGAL_DECK, "deck": None, "legal": True}
    assert entry.after == {"deck_text": OTHER_DECK, "deck": None, "legal": True}


def test_staff_decklist_change_before_lock_needs_no_reason(
    client_for, staffed_event, judge, outsider
):
    registration = services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    response = client_for(judge).post(
        player_url("player_decklist", staffed_event, registration), {"deck-decklist": OTHER_DECK}
    )
    assert response.status_code == 302
    registration.refresh_from_db()
    assert registration.deck_text == OTHER_DECK
    entry = AuditEntry.objects.get(action="registration.decklist_submitted")
    assert (entry.actor, entry.reason) == (judge, "")


def test_staff_illegal_decklist_shows_report_and_saves_nothing(client_for, running, judge):
    event, registration = running.event, running.registrations[0]
    response = client_for(judge).post(
        player_url("player_decklist", event, registration),
        {"deck-decklist": ILLEGAL_DECK, "deck-reason": "Correction"},
    )
    assert response.status_code == 200
    body = text_of(response)
    assert "The decklist is not legal for this event: nothing was saved." in body
    assert '<section class="rejected-report"' in body
    assert '<div class="verdict illegal">' in body
    assert "<dt>Deck</dt><dd>14</dd>" in body
    registration.refresh_from_db()
    assert registration.deck_text == LEGAL_DECK
    assert not AuditEntry.objects.filter(action="registration.decklist_submitted").exists()


def test_staff_warning_penalty(client_for, running, judge):
    event, registration = running.event, running.registrations[0]
    response = client_for(judge).post(
        player_url("player_penalty", event, registration),
        {"penalty-kind": "warning", "penalty-infraction": "Slow play", "penalty-note": "T3"},
        follow=True,
    )
    assert messages_of(response) == ["Warning for player001."]
    penalty = Penalty.objects.get(registration=registration)
    assert (penalty.kind, penalty.infraction, penalty.note, penalty.judge) == (
        "warning",
        "Slow play",
        "T3",
        judge,
    )
    assert (penalty.match, penalty.round) == (None, None)
    entry = AuditEntry.objects.get(action="penalty.issued", object_id=penalty.pk)
    assert (entry.actor, entry.reason, entry.before) == (judge, "T3", None)
    assert entry.after == {
        "registration": registration.pk,
        "kind": "warning",
        "infraction": "Slow play",
        "note": "T3",
        "match": None,
    }
    body = text_of(response)
    assert "<td>Warning</td><td>Slow play</td>\n    <td>—</td>\n    <td>T3</td>" in body


def test_staff_game_loss_becomes_part_of_the_match(client_for, running, judge):
    event, registration = running.event, running.registrations[0]
    match = Match.objects.get(round=running.round, participants__registration=registration)
    response = client_for(judge).post(
        player_url("player_penalty", event, registration),
        {
            "penalty-kind": "game_loss",
            "penalty-infraction": "Deck problem",
            "penalty-match": str(match.pk),
        },
    )
    assert response.status_code == 302
    penalty = Penalty.objects.get(registration=registration)
    assert (penalty.kind, penalty.match, penalty.round) == ("game_loss", match, running.round)
    match.refresh_from_db()
    assert match.version == 2
    assert len(match.games) == 1
    assert match.games[0]["penalty"] == penalty.pk
    assert match.status == MatchStatus.PENDING
    entry = AuditEntry.objects.get(action="penalty.issued", object_id=penalty.pk)
    assert entry.before["match"]["version"] == 1
    assert entry.after["match_result"]["version"] == 2


def test_staff_disqualification_drops_the_player(client_for, running, judge):
    event, registration = running.event, running.registrations[0]
    match = Match.objects.get(round=running.round, participants__registration=registration)
    response = client_for(judge).post(
        player_url("player_penalty", event, registration),
        {"penalty-kind": "disqualification", "penalty-infraction": "Cheating"},
        follow=True,
    )
    assert messages_of(response) == ["player001 is disqualified and dropped from the next pairing."]
    registration.refresh_from_db()
    assert (registration.status, registration.dropped_after_round) == ("disqualified", 1)
    match.refresh_from_db()
    assert match.status == MatchStatus.FINAL
    entry = AuditEntry.objects.get(action="penalty.issued")
    assert entry.before["status"] == "registered"
    assert entry.after["status"] == "disqualified"


def test_staff_game_loss_without_match_is_refused(client_for, running, judge):
    event, registration = running.event, running.registrations[0]
    response = client_for(judge).post(
        player_url("player_penalty", event, registration),
        {"penalty-kind": "game_loss", "penalty-infraction": "Deck problem"},
    )
    assert response.status_code == 200
    body = text_of(response)
    assert (
        '<ul class="errorlist" id="id_penalty-match_error"><li>A game loss or a match loss '
        "needs the match it applies to.</li></ul>" in body
    )
    assert not Penalty.objects.exists()
    assert not AuditEntry.objects.filter(action="penalty.issued").exists()


def test_staff_penalty_on_a_match_of_another_player_is_refused(client_for, running, judge):
    event, registration = running.event, running.registrations[0]
    other = Match.objects.filter(round=running.round).exclude(
        participants__registration=registration
    )[0]
    response = client_for(judge).post(
        player_url("player_penalty", event, registration),
        {
            "penalty-kind": "match_loss",
            "penalty-infraction": "x",
            "penalty-match": str(other.pk),
        },
    )
    assert response.status_code == 200
    assert 'id="id_penalty-match_error"><li>Select a valid choice.' in text_of(response)
    assert not Penalty.objects.exists()
    other.refresh_from_db()
    assert other.version == 1


def test_staff_penalty_without_infraction_is_refused(client_for, running, judge):
    response = client_for(judge).post(
        player_url("player_penalty", running.event, running.registrations[0]),
        {"penalty-kind": "warning", "penalty-infraction": "  "},
    )
    assert 'id="id_penalty-infraction_error"><li>This field is required.' in text_of(response)
    assert not Penalty.objects.exists()


STAFF_POSTS = {
    "player_drop": {"drop-reason": "x"},
    "player_reenter": {"reenter-reason": "x"},
    "player_decklist": {"deck-decklist": OTHER_DECK, "deck-reason": "x"},
    "player_penalty": {"penalty-kind": "warning", "penalty-infraction": "x"},
}


@pytest.mark.parametrize("name", sorted(STAFF_POSTS))
def test_staff_posts_refused_to_outsider_players_and_anonymous(
    client_for, after_round_1, outsider, name
):
    fixture = after_round_1()
    event = fixture.event
    # the dropped player for re-entry, an active one otherwise
    target = fixture.registrations[3 if name == "player_reenter" else 1]
    url = player_url(name, event, target)
    data = STAFF_POSTS[name]
    entries = AuditEntry.objects.count()
    before = snapshot(target)
    assert client_for(outsider).post(url, data).status_code == 403
    assert client_for(fixture.players[0]).post(url, data).status_code == 403  # another player
    assert client_for(target.player).post(url, data).status_code == 403  # the player themself
    anonymous = client_for().post(url, data)
    assert anonymous.status_code == 302
    assert anonymous["Location"] == f"/accounts/login/?next={url}"
    assert client_for(fixture.players[0]).get(url).status_code == 405
    assert snapshot(target) == before
    assert AuditEntry.objects.count() == entries
    assert not Penalty.objects.exists()


# --- staff: late entry ------------------------------------------------------------------


@pytest.fixture
def late(organizer, judge, crossover, make_players):
    """Capacity 5: four players registered and a fifth on the waitlist (with a legal list)
    once a sixth is turned away; round 1 published."""
    event = staffed(open_event(organizer, crossover, capacity=5), organizer, judge)
    players = make_players(4)
    registrations = register_all(event, players)
    services.start_event(event, actor=organizer)
    services.publish_round(services.generate_round(event, actor=organizer), actor=organizer)
    event.refresh_from_db()
    return SimpleNamespace(event=event, players=players, registrations=registrations)


def test_late_entry_page_shows_the_policy_and_round(client_for, late, judge):
    url = reverse("tournaments:late_entry", args=[late.event.pk])
    body = text_of(client_for(judge).get(url))
    assert "<h1>Add a late entry</h1>" in body
    assert "<dt>Plays from</dt><dd>round 2 (the next pairing)</dd>" in body
    assert "<dt>Missed rounds</dt><dd>A loss for every missed round</dd>" in body
    assert "Add the late entry" in body
    services.update_event(late.event, actor=late.event.organizer, late_entry_policy="nothing")
    body = text_of(client_for(judge).get(url))
    assert "<dt>Missed rounds</dt><dd>Nothing for missed rounds</dd>" in body


def test_late_entry_adds_the_player(client_for, late, judge):
    newcomer = UserFactory(username="newcomer")
    url = reverse("tournaments:late_entry", args=[late.event.pk])
    client = client_for(judge)
    response = client.post(
        url, {"username": "newcomer", "decklist": LEGAL_DECK, "reason": "Bus was late"}
    )
    registration = Registration.objects.get(event=late.event, player=newcomer)
    assert response["Location"] == player_url("player_detail", late.event, registration)
    assert (registration.status, registration.late_entry_round, registration.locked) == (
        "registered",
        2,
        True,
    )
    # Stored as pasted, as every decklist field keeps it (one reader, #24).
    assert registration.deck_text == LEGAL_DECK
    entry = AuditEntry.objects.get(action="registration.late_entry", object_id=registration.pk)
    assert (entry.actor, entry.reason, entry.before) == (judge, "Bus was late", None)
    assert entry.after == {
        "player": newcomer.pk,
        "status": "registered",
        "late_entry_round": 2,
        "late_entry_policy": "losses",
    }
    body = text_of(client.get(response["Location"]))
    assert "newcomer entered late and plays from round 2." in body
    assert "<dt>Late entry</dt><dd>plays from round 2</dd>" in body


def test_late_entry_of_waitlisted_player_keeps_their_decklist(
    client_for, organizer, judge, crossover, make_players
):
    event = staffed(open_event(organizer, crossover, capacity=2), organizer, judge)
    players = make_players(3)
    registrations = register_all(event, players)
    assert registrations[2].status == "waitlisted"
    services.start_event(event, actor=organizer)
    services.drop_player(registrations[0], actor=players[0])  # frees a seat
    response = client_for(judge).post(
        reverse("tournaments:late_entry", args=[event.pk]), {"username": "player003"}
    )
    assert response.status_code == 302
    registration = registrations[2]
    registration.refresh_from_db()
    assert (registration.status, registration.late_entry_round) == ("registered", 1)
    assert registration.deck_text == LEGAL_DECK
    entry = AuditEntry.objects.get(action="registration.late_entry")
    assert entry.before == {"status": "waitlisted", "dropped_after_round": None}


def test_player_who_withdrew_before_round_1_comes_back_as_late_entry(
    client_for, organizer, judge, crossover, make_players
):
    event = staffed(open_event(organizer, crossover), organizer, judge)
    players = make_players(3)
    registrations = register_all(event, players)
    services.drop_player(registrations[2], actor=players[2])  # withdraws
    services.start_event(event, actor=organizer)
    withdrawn = registrations[2]
    me = text_of(
        client_for(players[2]).get(reverse("tournaments:my_registration", args=[event.pk]))
    )
    assert "You withdrew before round 1: ask a judge to add you as a late entry." in me
    assert "Re-enter the event" not in me
    page = text_of(client_for(judge).get(player_url("player_detail", event, withdrawn)))
    assert "The player withdrew before round 1: add them as a late entry instead." in page
    assert reverse("tournaments:late_entry", args=[event.pk]) in page
    response = client_for(judge).post(
        reverse("tournaments:late_entry", args=[event.pk]), {"username": "player003"}
    )
    assert response["Location"] == player_url("player_detail", event, withdrawn)
    withdrawn.refresh_from_db()
    assert (withdrawn.status, withdrawn.dropped_after_round, withdrawn.late_entry_round) == (
        "registered",
        None,
        1,
    )
    entry = AuditEntry.objects.get(action="registration.late_entry")
    assert entry.before == {"status": "dropped", "dropped_after_round": 0}


def test_late_entry_refusals(client_for, late, judge, make_players):
    url = reverse("tournaments:late_entry", args=[late.event.pk])
    client = client_for(judge)
    entries = AuditEntry.objects.count()

    body = text_of(client.post(url, {"username": "player001", "decklist": LEGAL_DECK}))
    assert (
        '<ul class="errorlist" id="id_username_error"><li>This player is already playing in '
        "this event.</li></ul>" in body
    )
    body = text_of(client.post(url, {"username": "nobody", "decklist": LEGAL_DECK}))
    assert "No user has the username “nobody”." in body
    UserFactory(username="newcomer")
    body = text_of(client.post(url, {"username": "newcomer"}))
    assert "The player has no legal decklist yet: paste one." in body
    body = text_of(client.post(url, {"username": "newcomer", "decklist": ILLEGAL_DECK}))
    assert "The decklist is not legal for this event: nothing was saved." in body
    assert '<div class="verdict illegal">' in body
    body = text_of(client.post(url, {"username": "judge", "decklist": LEGAL_DECK}))
    assert "The event&#x27;s staff cannot play in it." in body

    # capacity 5: one more fits, then the event is full
    client.post(url, {"username": "newcomer", "decklist": LEGAL_DECK})
    UserFactory(username="latecomer")
    response = client.post(url, {"username": "latecomer", "decklist": LEGAL_DECK})
    assert response.status_code == 200
    assert '<ul class="errors"><li>All seats of the event are taken.</li></ul>' in text_of(response)
    assert list(
        Registration.objects.filter(event=late.event).values_list("player__username", flat=True)
    ) == ["player001", "player002", "player003", "player004", "newcomer"]
    assert AuditEntry.objects.count() == entries + 1


def test_late_entry_refused_to_outsider_player_and_anonymous(client_for, late, outsider):
    url = reverse("tournaments:late_entry", args=[late.event.pk])
    UserFactory(username="newcomer")
    data = {"username": "newcomer", "decklist": LEGAL_DECK}
    entries = AuditEntry.objects.count()
    for user in (outsider, late.players[0]):
        assert client_for(user).get(url).status_code == 403
        assert client_for(user).post(url, data).status_code == 403
    anonymous = client_for().post(url, data)
    assert anonymous["Location"] == f"/accounts/login/?next={url}"
    assert AuditEntry.objects.count() == entries
    assert not Registration.objects.filter(player__username="newcomer").exists()


def test_late_entry_before_the_event_runs_is_refused(client_for, staffed_event, judge):
    UserFactory(username="newcomer")
    url = reverse("tournaments:late_entry", args=[staffed_event.pk])
    assert "Late entries are possible only while the Swiss rounds run." in text_of(
        client_for(judge).get(url)
    )
    body = text_of(client_for(judge).post(url, {"username": "newcomer", "decklist": LEGAL_DECK}))
    assert "The event is not in its Swiss rounds." in body
    assert not Registration.objects.filter(player__username="newcomer").exists()


# --- dashboard panels -------------------------------------------------------------------


def test_dashboard_players_and_penalties_panels(client_for, event_after_round_3):
    fixture = event_after_round_3
    event = fixture.event
    body = text_of(client_for(fixture.judge).get(reverse("tournaments:dashboard", args=[event.pk])))
    for registration in fixture.registrations:
        assert player_url("player_detail", event, registration) in body
    # a quick drop for the seven active players, none for the dropped one
    assert body.count('<input type="hidden" name="next" value="dashboard">') == 7
    assert f'action="{player_url("player_drop", event, fixture.dropped)}"' not in body
    assert reverse("tournaments:late_entry", args=[event.pk]) in body
    assert "To issue a penalty, open the player’s page" in body
    assert "<td>player001</td><td>Warning</td><td>Slow play</td>\n    <td>—</td>" in body


# --- query counts -----------------------------------------------------------------------


def _populated_event(organizer, judge, crossover, make_players, count, prefix):
    """``count`` players, round 1 played, one warning and one dropped player."""
    event = staffed(open_event(organizer, crossover, name=prefix), organizer, judge)
    players = make_players(count, prefix=prefix)
    registrations = register_all(event, players)
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    for registration in registrations[:-1]:
        services.issue_penalty(registration, actor=judge, kind="warning", infraction="Slow")
    services.drop_player(registrations[-1], actor=judge, reason="Left")
    if count > 2:
        play_round(event, organizer)
        services.submit_decklist(registrations[0], actor=judge, deck_text=OTHER_DECK, reason="Typo")
    return event, registrations


def test_player_page_and_dashboard_query_counts_are_the_same_small_and_large(
    client_for, organizer, judge, crossover, make_players
):
    counts = {"player": [], "dashboard": []}
    for count, prefix in ((2, "small"), (8, "large")):
        event, registrations = _populated_event(
            organizer, judge, crossover, make_players, count, prefix
        )
        client = client_for(judge)
        urls = {
            "player": player_url("player_detail", event, registrations[0]),
            "dashboard": reverse("tournaments:dashboard", args=[event.pk]),
        }
        for name, url in urls.items():
            client.get(url)  # warm the session
            with CaptureQueriesContext(connection) as captured:
                assert client.get(url).status_code == 200
            counts[name].append(len(captured.captured_queries))
    # session, user, event, staff row, registration; then the player, their matches,
    # penalties, deck checks and audit entries
    assert counts["player"] == [11, 11]
    assert counts["dashboard"] == [11, 11]  # + the player list's count (it is paged)
