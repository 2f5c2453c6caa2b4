"""Template helpers of the round clock: a table's end, the server's now and the time
left as the clock shows it (``{% load clock %}``; ``_match_clock.html``, ``_clock.html``).
The browser then counts down from them (``static/js/live.js``)."""

from __future__ import annotations

import datetime as dt

from django import template
from django.utils import timezone

from ..selectors import revision_of
from ..services.clock import minutes_left_text

register = template.Library()


@register.filter
def plus_minutes(moment: dt.datetime | None, minutes) -> dt.datetime | None:
    """``moment`` plus ``minutes`` (a round's end plus a table's extension)."""
    if moment is None:
        return None
    return moment + dt.timedelta(minutes=int(minutes or 0))


@register.filter
def iso(moment: dt.datetime | None) -> str:
    """ISO 8601 with the offset, as ``data-ends-at`` and ``data-server-now`` carry it."""
    return "" if moment is None else moment.isoformat()


@register.simple_tag
def server_now() -> str:
    return timezone.now().isoformat()


@register.simple_tag
def time_left(ends_at: dt.datetime | None) -> str:
    """Time left until ``ends_at`` now ("12 min", "1:05"); "" without an end."""
    if ends_at is None:
        return ""
    return minutes_left_text((ends_at - timezone.now()).total_seconds())


@register.filter
def revision(event) -> int:
    """The event's revision number as loaded with it: a live part's ``data-revision``,
    so that live.js knows what its page shows and a change made before its first poll
    is not missed."""
    return revision_of(event).number
