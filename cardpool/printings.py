"""Which printing of a card is the newest (rulebook 1−2−1).

A card whose name was reprinted with changed text is played with the text of the newest
set or promotional printing. Sets carry a release order (1 = first released) and a
release date, either of which may be unknown; for most sets of this game the dates are not
known at all, so the order is what decides:

1. the higher release order is newer; an unknown order counts as older than any known one;
2. on equal order, the later release date (unknown counting as oldest);
3. then the printing that was recorded last.

The function is plain Python so that it can be tested without a database.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True, order=True)
class ReleaseKey:
    release_order: int
    release_date: dt.date
    recorded: int


def release_key(
    release_date: dt.date | None, release_order: int | None, recorded: int
) -> ReleaseKey:
    return ReleaseKey(
        release_order=release_order if release_order is not None else -1,
        release_date=release_date or dt.date.min,
        recorded=recorded,
    )


def newest(items: Iterable[T], key) -> T | None:
    """The newest of ``items`` under ``key`` (a function returning a :class:`ReleaseKey`)."""
    return max(items, key=key, default=None)
