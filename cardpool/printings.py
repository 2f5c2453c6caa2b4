"""Which printing of a card is the newest (rulebook 1−2−1).

A card whose name was reprinted with changed text is played with the text of the newest
set *or promotional card* (1−2−1). Sets carry a release date and a release order (1 = first
released), either of which may be unknown; promotional cards come with dates rather than
a place in the order, and for most sets of this game the dates are not known at all. So:

1. a known release date decides first: the later date is newer;
2. a printing whose date is unknown but whose set comes later in the release order than a
   dated one is at least as new as that date (it was released after it);
3. then the higher release order is newer;
4. then the printing that was recorded last (two printings in one set, or nothing known);
5. a printing with neither a date nor an order sorts oldest.

The functions are plain Python so that they can be tested without a database.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

UNKNOWN_DATE = dt.date.min
UNKNOWN_ORDER = -1

# Why a printing is the newest, for the card page.
ONLY = "only"  # the card's only printing
BY_DATE = "date"  # its release date is the latest
BY_ORDER = "order"  # its set comes latest in the release order
BY_RECORDED = "recorded"  # nothing tells them apart: the one recorded last


@dataclass(frozen=True, order=True)
class ReleaseKey:
    """A printing's release data; compared field by field, a known date decides first."""

    release_date: dt.date
    release_order: int
    recorded: int

    @property
    def date_known(self) -> bool:
        return self.release_date != UNKNOWN_DATE

    @property
    def order_known(self) -> bool:
        return self.release_order != UNKNOWN_ORDER


def release_key(
    release_date: dt.date | None, release_order: int | None, recorded: int
) -> ReleaseKey:
    return ReleaseKey(
        release_date=release_date or UNKNOWN_DATE,
        release_order=release_order if release_order is not None else UNKNOWN_ORDER,
        recorded=recorded,
    )


def printing_key(printing) -> ReleaseKey:
    """The release key of a stored printing: its own release date when it has one (a
    promotional card given out on a day), else its set's; its set's order; its id."""
    card_set = printing.set
    own_date = getattr(printing, "release_date", None)
    return release_key(own_date or card_set.release_date, card_set.release_order, printing.pk or 0)


def _effective(keys: list[ReleaseKey]) -> list[ReleaseKey]:
    """Each key with an unknown date but a known order given the latest date of the dated
    keys earlier in the order (rule 2 above); the others unchanged."""
    dated = [k for k in keys if k.date_known and k.order_known]
    if not dated:
        return keys
    found = []
    for key in keys:
        if not key.date_known and key.order_known:
            before = [k.release_date for k in dated if k.release_order < key.release_order]
            if before:
                key = ReleaseKey(max(before), key.release_order, key.recorded)
        found.append(key)
    return found


def newest_with_reason(
    items: Iterable[T], key: Callable[[T], ReleaseKey]
) -> tuple[T, str] | tuple[None, None]:
    """The newest of ``items`` under ``key`` and why it is (ONLY, BY_DATE, BY_ORDER or
    BY_RECORDED); ``(None, None)`` when there are none."""
    items = list(items)
    if not items:
        return None, None
    raw = [key(item) for item in items]
    ranked = sorted(zip(_effective(raw), raw, range(len(items)), strict=True), reverse=True)
    best, best_raw, index = ranked[0]
    if len(ranked) == 1:
        return items[index], ONLY
    runner_up = ranked[1][0]
    if best.release_date != runner_up.release_date and best_raw.date_known:
        reason = BY_DATE
    elif (best.release_date, best.release_order) != (
        runner_up.release_date,
        runner_up.release_order,
    ):
        reason = BY_ORDER
    else:
        reason = BY_RECORDED
    return items[index], reason


def newest(items: Iterable[T], key: Callable[[T], ReleaseKey]) -> T | None:
    """The newest of ``items`` under ``key`` (a function returning a :class:`ReleaseKey`)."""
    return newest_with_reason(items, key)[0]
