"""Which printing of a card is the newest (rulebook 1−2−1).

A card whose name was reprinted with changed text is played with the text of the newest
set *or promotional card* (1−2−1), among the printings released on or before the day asked
about. Sets carry a release date and a release order (1 = first released), either of which
may be unknown; promotional cards come with dates rather than a place in the order, and for
most sets of this game the dates are not known at all. So:

0. a printing dated after the day asked about is not out yet and does not count;
1. a known release date decides first: the later date is newer;
2. a printing whose date is unknown but whose set comes later in the release order than a
   dated one is at least as new as that date (it was released after it);
3. an undated printing that nothing dates (rule 2) is compared with a dated one by the
   release order; a dated promotional card (no place in the order) is newer only when its
   date is after a dated set that comes later in the order than the undated one (so the
   undated one is older than that date): a date alone does not make it newer than a set
   whose release day is unknown (issue #24);
4. then the higher release order is newer;
5. then the printing that was recorded last (two printings in one set, or nothing known);
6. a printing with neither a date nor an order sorts oldest.

The functions are plain Python so that they can be tested without a database.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cmp_to_key
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


def _bounds(keys: list[ReleaseKey]) -> list[tuple[dt.date | None, dt.date | None]]:
    """For each key, (the date it is at least as new as, the date it is older than): a
    known date is both; an undated key with a known order gets the latest date of the dated
    keys earlier in the order (rule 2) and the earliest of those later in it; None where
    nothing says."""
    dated = [k for k in keys if k.date_known and k.order_known]
    found = []
    for key in keys:
        if key.date_known:
            found.append((key.release_date, key.release_date))
            continue
        if not key.order_known:
            found.append((None, None))
            continue
        before = [k.release_date for k in dated if k.release_order < key.release_order]
        after = [k.release_date for k in dated if k.release_order > key.release_order]
        found.append((max(before) if before else None, min(after) if after else None))
    return found


def _compare(a, b) -> tuple[int, str]:
    """(1 if ``a`` is newer, -1 if ``b`` is, 0 if nothing tells; the reason). ``a`` and
    ``b`` are (key, lower bound, upper bound)."""
    (key_a, low_a, _), (key_b, low_b, _) = a, b
    known_a = key_a.date_known or key_a.order_known
    known_b = key_b.date_known or key_b.order_known
    if known_a != known_b:
        # Rule 6: a printing with neither date nor order sorts oldest.
        other = key_a if known_a else key_b
        return (1 if known_a else -1), (BY_DATE if not other.order_known else BY_ORDER)
    if low_a is not None and low_b is not None:
        if low_a != low_b:
            return (1 if low_a > low_b else -1), BY_DATE
    elif low_a is not None or low_b is not None:
        # Rule 3: one is dated (or at least as new as a date), the other nothing dates.
        dated, undated, sign = (a, b, 1) if low_a is not None else (b, a, -1)
        if undated[0].order_known:
            if dated[0].order_known:
                # Both in the order: the later set is newer (the dated one when they tie:
                # an undated printing of a dated set's place in the order).
                if dated[0].release_order >= undated[0].release_order:
                    return sign, BY_DATE
                return -sign, BY_ORDER
            # A dated promotional card: newer only when provably after the undated set.
            older_than = undated[2]
            if older_than is not None and dated[1] > older_than:
                return sign, BY_DATE
            return -sign, BY_ORDER
    if key_a.release_order != key_b.release_order:
        return (1 if key_a.release_order > key_b.release_order else -1), BY_ORDER
    if key_a.recorded != key_b.recorded:
        return (1 if key_a.recorded > key_b.recorded else -1), BY_RECORDED
    return 0, BY_RECORDED


def newest_with_reason(
    items: Iterable[T], key: Callable[[T], ReleaseKey], as_of: dt.date | None = None
) -> tuple[T, str] | tuple[None, None]:
    """The newest of ``items`` under ``key`` released on or before ``as_of`` (any day when
    None) and why it is (ONLY, BY_DATE, BY_ORDER or BY_RECORDED); ``(None, None)`` when
    there are none."""
    items = list(items)
    raw = [key(item) for item in items]
    kept = [
        index
        for index, found in enumerate(raw)
        if as_of is None or not found.date_known or found.release_date <= as_of
    ]
    if not kept:
        return None, None
    keys = [raw[index] for index in kept]
    ranked = sorted(
        zip(keys, _bounds(keys), kept, strict=True),
        key=cmp_to_key(lambda a, b: _compare((a[0], *a[1]), (b[0], *b[1]))[0]),
        reverse=True,
    )
    best = ranked[0]
    if len(ranked) == 1:
        return items[best[2]], ONLY
    runner_up = ranked[1]
    reason = _compare((best[0], *best[1]), (runner_up[0], *runner_up[1]))[1]
    return items[best[2]], reason


def newest(
    items: Iterable[T], key: Callable[[T], ReleaseKey], as_of: dt.date | None = None
) -> T | None:
    """The newest of ``items`` under ``key`` (a function returning a :class:`ReleaseKey`)
    released on or before ``as_of``."""
    return newest_with_reason(items, key, as_of)[0]
