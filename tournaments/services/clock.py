"""The round clock: how much time a round (and one table of it) has left, and the time
extensions a judge gives a table.

The clock is the round's ``started_at`` plus the event's ``round_minutes``; a table's
clock adds its ``Match.extra_minutes``. Pages show the end time and the server's now, and
the browser counts down from them (``static/js/live.js``): nothing here runs per second.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext

from .. import policy
from ..models import Event, Match, Round, RoundStatus
from . import audit
from ._common import Actor, lock, require_reason, require_state, save
from .errors import InvalidInput

# One extension is at most this long, and a table gets at most MAX_TOTAL in all: more is
# not a deck check but a round of its own.
MAX_EXTENSION_MINUTES = 30
MAX_TOTAL_EXTRA_MINUTES = 120


def minutes_left_text(seconds: float) -> str:
    """Time left as the clock shows it: whole minutes, rounded up (a table with 30 s
    left still has "1 min"); an hour or more as H:MM. Mirrors live.js's ``format``."""
    minutes = max(0, math.ceil(seconds / 60))
    if minutes >= 60:
        return f"{minutes // 60}:{minutes % 60:02d}"
    return gettext("%(minutes)s min") % {"minutes": minutes}


@dataclass(frozen=True, slots=True)
class ClockState:
    """What a clock shows at ``now``. ``state``: ``waiting`` (published, clock not
    started), ``running``, ``over`` (time is up, results still coming) or ``closed``."""

    state: str
    now: dt.datetime
    ends_at: dt.datetime | None
    seconds_left: int | None

    @property
    def text(self) -> str:
        return "" if self.seconds_left is None else minutes_left_text(self.seconds_left)


def clock_state(
    round_: Round, round_minutes: int, *, now: dt.datetime, extra_minutes: int = 0
) -> ClockState:
    """The clock of ``round_`` (or of one of its tables, with its ``extra_minutes``) at
    ``now``. Pure: no query, no clock read."""
    ends_at = round_.ends_at(round_minutes)
    if ends_at is not None:
        ends_at += dt.timedelta(minutes=extra_minutes)
    if round_.status == RoundStatus.CLOSED:
        return ClockState("closed", now, ends_at, None)
    if round_.status != RoundStatus.RUNNING or ends_at is None:
        return ClockState("waiting", now, None, None)
    seconds = max(0, int((ends_at - now).total_seconds()))
    return ClockState("running" if seconds else "over", now, ends_at, seconds)


def extend_match_time(match: Match, *, actor: Actor, minutes: int, reason: str) -> Match:
    """Give one table ``minutes`` more (judges and managers), with a reason: a deck
    check, a long ruling. Extensions add up (``Match.extra_minutes``), at most
    :data:`MAX_EXTENSION_MINUTES` at a time and :data:`MAX_TOTAL_EXTRA_MINUTES` in all,
    while the round is published or running.

    Side effects: ``extra_minutes`` saved, audit entry ``match.time_extended`` (the
    minutes before and after, the reason), the event's revision bumped (pages and the
    live endpoint show it). Raises NotAllowed (``not_staff``), InvalidInput
    (``reason_required``, ``invalid_minutes``, ``too_much_time``, ``bye``) or
    InvalidState (``round_not_open``).
    """
    event = match.round.event
    access = policy.access_for(actor, event)
    policy.require(policy.can_judge(access), "not_staff")
    reason = require_reason(reason)
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, int)
        or not 1 <= minutes <= MAX_EXTENSION_MINUTES
    ):
        raise InvalidInput(
            "invalid_minutes", f"an extension is 1 to {MAX_EXTENSION_MINUTES} minutes"
        )
    with transaction.atomic():
        event = lock(Event, event.pk)
        round_ = lock(Round, match.round_id)
        require_state(
            round_.status,
            (RoundStatus.PUBLISHED, RoundStatus.RUNNING),
            "round_not_open",
            "the round",
        )
        match = lock(Match, match.pk)
        if match.is_bye:
            raise InvalidInput("bye", "a bye has no clock")
        before = match.extra_minutes
        if before + minutes > MAX_TOTAL_EXTRA_MINUTES:
            raise InvalidInput(
                "too_much_time",
                f"a table gets at most {MAX_TOTAL_EXTRA_MINUTES} extra minutes",
                current=before,
            )
        match.extra_minutes = before + minutes
        save(match, "extra_minutes")
        audit.record(
            event,
            actor=actor,
            action="match.time_extended",
            obj=match,
            reason=reason,
            before={"extra_minutes": before},
            after={"extra_minutes": match.extra_minutes, "added": minutes},
        )
    round_.event = event
    match.round = round_
    return match
