"""What a phone polls to know that an event changed, and the projector's clock.

``live``: a tiny JSON document with the event's revision, the server's clock and each
visible round's status and clock end. ``static/js/live.js`` polls it every 15–30 s with
``If-None-Match``: an unchanged event is a 304 after one query (the event with its
revision and the viewer's access); a changed one is built once per revision from one more
query and cached. On a new revision the script fetches the page again and swaps its
``[data-live]`` parts.

``projector``: one or two events' current round clocks side by side, in big type, for a
screen in the hall (``/events/clock/?events=12,15`` or ``/events/12/clock/?with=15``).
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from . import pagecache, policy, selectors, snapshots, views_public
from .models import Round, RoundStatus
from .services.clock import clock_state


def poll_seconds() -> float:
    """How often live.js polls (settings.LIVE_POLL_SECONDS; the answer says so)."""
    return settings.LIVE_POLL_SECONDS


# The most events one projector page shows (two side by side; four still fit a screen).
MAX_PROJECTED = 4
ROUND_COLUMNS = ("id", "number", "stage", "status", "started_at")


def _visible_rounds(event, access) -> list[Round]:
    """The rounds ``access`` may see (drafts only for the staff), by number: one query."""
    rounds = Round.objects.filter(event=event).order_by("number").only(*ROUND_COLUMNS)
    if not policy.can_view_unpublished_rounds(access):
        rounds = rounds.exclude(status=RoundStatus.DRAFT)
    found = list(rounds)
    for round_ in found:
        round_.event = event
    return found


def _iso(moment) -> str | None:
    return None if moment is None else moment.isoformat()


def _round_data(event, round_: Round) -> dict:
    ends_at = round_.ends_at(event.round_minutes)
    return {
        "number": round_.number,
        "stage": round_.stage,
        "status": round_.status,
        "started_at": _iso(round_.started_at),
        "ends_at": _iso(ends_at) if round_.status == RoundStatus.RUNNING else None,
    }


def _live_payload(event, access) -> dict:
    rounds = [_round_data(event, round_) for round_ in _visible_rounds(event, access)]
    return {
        "event": event.pk,
        "state": event.state,
        "round_minutes": event.round_minutes,
        "current_round": rounds[-1] if rounds else None,
        "rounds": rounds,
    }


@require_safe
def live(request, pk: int):
    """The event's revision, ``now`` and the visible rounds' clocks (see the module)."""
    event, access = selectors.viewed_event(request.user, pk)
    revision = snapshots.revision_of(event)
    staff = policy.can_view_unpublished_rounds(access)
    tag = pagecache.etag(request, "live", event.pk, revision.number, staff)
    if (answer := pagecache.not_modified(request, tag, weak=True)) is not None:
        return answer
    payload = pagecache.get_or_build(
        pagecache.key("live", event.pk, revision.number, staff),
        lambda: _live_payload(event, access),
    )
    response = JsonResponse(
        {
            "revision": revision.number,
            "standings": revision.standings,
            "now": timezone.now().isoformat(),
            "poll": poll_seconds(),
            **payload,
        }
    )
    # Weak: ``now`` differs from one answer to the next, what it says of the event not.
    return pagecache.finish(response, tag, weak=True)


# --- the projector ----------------------------------------------------------------------


def _event_ids(request, pk: int | None) -> list[int]:
    """The events asked for, in order, without repeats: ``pk`` and ``?with=`` or
    ``?events=12,15``. Anything that is not a list of ids is a 404."""
    raw = []
    if pk is not None:
        raw.append(str(pk))
        raw.extend(request.GET.get("with", "").split(","))
    else:
        raw.extend(request.GET.get("events", "").split(","))
    ids = []
    for value in raw:
        value = value.strip()
        if not value:
            continue
        # 18 digits at most: beyond a 64-bit id the database cannot even look it up
        if not (value.isdecimal() and value.isascii()) or len(value) > 18:
            raise Http404
        if int(value) not in ids:
            ids.append(int(value))
    if not ids or len(ids) > MAX_PROJECTED:
        raise Http404
    return ids


def projected_clock(request, event, access, now) -> dict:
    """One event's panel on the projector: its current (latest published) round's clock.
    The projector is a public screen: a round the staff generated but did not publish yet
    is not shown, even when a staff member's browser shows it."""
    rounds = [r for r in _visible_rounds(event, access) if r.status != RoundStatus.DRAFT]
    current = rounds[-1] if rounds else None
    clock = None
    if current is not None:
        clock = clock_state(current, event.round_minutes, now=now)
    return {
        "event": event,
        "round": current,
        "clock": clock,
        "live_url": reverse("tournaments:live", args=[event.pk]),
        "pairings_url": reverse("tournaments:pairings", args=[event.pk, current.number])
        if current is not None
        else None,
    }


@require_safe
def projector(request, pk: int | None = None):
    """The current round clocks of up to :data:`MAX_PROJECTED` events, big, for a
    screen (two queries per event). Public like the clock: an event the viewer may not
    see is a 404 for the whole page."""
    now = timezone.now()
    panels = []
    for event_id in _event_ids(request, pk):
        event, access = selectors.viewed_event(request.user, event_id)
        panels.append(projected_clock(request, event, access, now))
    return render(
        request,
        "tournaments/projector.html",
        {"panels": panels, "now": now, "server_now": now.isoformat()},
    )


urlpatterns = [
    path("<int:pk>/live/", live, name="live"),
    # The latest round's pairings, wherever the event is (QR codes and posters lead here).
    path("<int:pk>/pairings/", views_public.pairings, name="current_pairings"),
    path("clock/", projector, name="projector"),
    path("<int:pk>/clock/", projector, name="event_clock"),
]
