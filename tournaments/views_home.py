"""The player's hub: the home page (live and upcoming events; for a signed-in user the
events they play in, with their current match and one tap to it, and the events they
run), and the words for a player's own match that the event page shares.

A fixed number of queries whatever the number of events: the events (one), and for a
signed-in user their registrations with each one's latest match id (one), those matches
(one) and the events they run (one).
"""

from __future__ import annotations

from django.shortcuts import render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from . import selectors
from .engine.games import MatchRecord, record_for_seat
from .models import (
    EventState,
    Match,
    MatchOutcome,
    MatchStatus,
    Registration,
    RegistrationStatus,
    RoundStatus,
)

# The state badges' looks (the text says it too: colour is never the only signal).
STATE_BADGES = {
    EventState.DRAFT: "badge--muted",
    EventState.REGISTRATION_OPEN: "badge--info",
    EventState.RUNNING: "badge--ok",
    EventState.TOP_CUT: "badge--ok",
    EventState.FINISHED: "badge--muted",
}
REGISTRATION_BADGES = {
    RegistrationStatus.REGISTERED: "badge--ok",
    RegistrationStatus.WAITLISTED: "badge--warn",
    RegistrationStatus.DROPPED: "badge--muted",
    RegistrationStatus.DISQUALIFIED: "badge--bad",
}
OPEN_ROUND_STATUSES = (RoundStatus.PUBLISHED, RoundStatus.RUNNING)


def record_from(match: Match, registration_id: int) -> str:
    """The match record from this player's side: wins-losses, and -draws when there are
    any ("2-1", "1-1-1")."""
    if match.wins is None:
        return ""
    seat = 2 if match.player2_id == registration_id else 1
    own = record_for_seat(MatchRecord(match.wins, match.losses, match.draws or 0), seat)
    if own.draws:
        return f"{own.wins}-{own.losses}-{own.draws}"
    return f"{own.wins}-{own.losses}"


def _result_text(match: Match, registration_id: int) -> tuple[str, str]:
    """What the match's result is to this player, and the badge look that goes with it."""
    record = record_from(match, registration_id)
    if match.status == MatchStatus.PENDING:
        return _("No result yet"), "badge--info"
    if match.status == MatchStatus.REPORTED:
        if match.reported_by_id == registration_id:
            return (
                _("You reported %(record)s: waiting for your opponent") % {"record": record},
                "badge--info",
            )
        return (
            _("Your opponent reported %(record)s: confirm or dispute it") % {"record": record},
            "badge--warn",
        )
    if match.status == MatchStatus.DISPUTED:
        return _("Disputed: a judge will decide"), "badge--bad"
    mine = MatchOutcome.PLAYER1 if match.player1_id == registration_id else MatchOutcome.PLAYER2
    if match.outcome == MatchOutcome.DRAW:
        return _("Draw %(record)s") % {"record": record}, "badge--muted"
    if match.outcome == mine:
        return _("You won %(record)s") % {"record": record}, "badge--ok"
    return _("You lost %(record)s") % {"record": record}, "badge--muted"


def registration_closed(event, now) -> str | None:
    """Why nobody can register now, or None while registration is open. Depends on the
    event's state and the clock only (no queries)."""
    if event.state == EventState.DRAFT:
        return _("Registration has not opened yet.")
    if event.state in (EventState.RUNNING, EventState.TOP_CUT):
        return _("Registration is closed: the event has started.")
    if event.state == EventState.FINISHED:
        return _("Registration is closed: the event is over.")
    if event.registration_deadline and now > event.registration_deadline:
        return _("Registration closed at %(when)s.") % {
            "when": date_format(localtime(event.registration_deadline), "Y-m-d H:i")
        }
    return None


def match_summary(event, match: Match | None, registration_id: int) -> dict | None:
    """A player's current match as the hub and the event page show it: round, table,
    opponent, the result from the player's side and the one button that matters now
    (report, answer the opponent's report, or open "my match"). Pure: no queries (the
    match's round and players are loaded)."""
    if match is None:
        return None
    first = match.player1_id == registration_id
    opponent = match.player2 if first else match.player1
    summary = {
        "match": match,
        "round": match.round.number,
        "table": match.table,
        "bye": match.is_bye,
        "opponent": selectors.display_name(opponent),
        "round_open": match.round.status in OPEN_ROUND_STATUSES,
        "action_url": reverse("tournaments:my_match", args=[event.pk]),
        "action": _("My match"),
        "primary": False,
    }
    if match.is_bye:
        summary["result"], summary["badge"] = _("Bye: you win this round"), "badge--ok"
        return summary
    summary["result"], summary["badge"] = _result_text(match, registration_id)
    if summary["round_open"]:
        action = None
        if match.status == MatchStatus.PENDING:
            action = _("Report result")
        elif match.status == MatchStatus.REPORTED and match.reported_by_id != registration_id:
            action = _("Confirm or dispute")
        if action is not None:
            summary["action"] = action
            summary["action_url"] = reverse("tournaments:match", args=[event.pk, match.pk])
            summary["primary"] = True
    return summary


def _my_event(registration: Registration) -> dict:
    event = registration.event
    return {
        "event": event,
        "registration": registration,
        "status_badge": REGISTRATION_BADGES.get(registration.status, "badge--muted"),
        "state_badge": STATE_BADGES.get(event.state, "badge--muted"),
        "current": match_summary(event, registration.current_match, registration.pk),
    }


@require_safe
def home(request):
    """The home page: the viewer's own events first (signed in), then the live and
    upcoming events, and the way to the deck check, the cards and the rules."""
    user = request.user
    mine = [_my_event(r) for r in selectors.my_current_registrations(user)]
    running = selectors.my_staff_events(user)
    events = selectors.home_events(user)
    return render(
        request,
        "home.html",
        {
            "my_events": mine,
            "staff_events": [
                {"event": e, "state_badge": STATE_BADGES.get(e.state, "badge--muted")}
                for e in running
            ],
            "live_events": [
                {"event": e, "state_badge": STATE_BADGES[e.state]}
                for e in events
                if e.state in selectors.LIVE_EVENT_STATES
            ],
            "upcoming_events": [
                {"event": e, "state_badge": STATE_BADGES[e.state]}
                for e in events
                if e.state not in selectors.LIVE_EVENT_STATES
            ],
        },
    )
