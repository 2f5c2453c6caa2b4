"""What the pairings page shows beside the pairs, cached like the pairs themselves: the
event's rounds (for the previous/next links and the current round), each player's points
and record as they enter a round, and the tables a judge gave extra time.

Each is plain data built from one or two queries and kept in the page cache under the
event's revision (``EventRevision.number`` for the rounds and the extensions, which audited
changes move; ``standings`` for the records, which only closed Swiss rounds change), so a
warm pairings page costs no query for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Exists, OuterRef

from . import pagecache, policy, snapshots
from .models import Event, Match, Round, RoundStage, RoundStatus
from .services.standings import compute_standings


@dataclass(frozen=True, slots=True)
class RoundInfo:
    id: int
    number: int
    stage: str
    status: str
    extended: bool  # some table of the round has extra time


def rounds(event: Event, *, wanted: int | None = None) -> tuple[RoundInfo, ...]:
    """Every round of the event (drafts too: callers filter by :func:`visible`), by
    number; one query per revision. Asked for round ``wanted`` that does not exist, the
    list is not kept (as ``snapshots.round_of``): made-up round numbers in URLs must not
    fill the cache."""
    key = pagecache.key("rounds", event.pk, snapshots.revision_of(event).number)
    found = cache.get(key)
    if found is not None:
        return found
    extended = Match.objects.filter(round=OuterRef("pk"), extra_minutes__gt=0)
    rows = (
        Round.objects.filter(event=event)
        .order_by("number")
        .annotate(extended=Exists(extended))
        .values_list("id", "number", "stage", "status", "extended")
    )
    found = tuple(RoundInfo(*row) for row in rows)
    if wanted is None or any(info.number == wanted for info in found):
        cache.set(key, found, pagecache.TIMEOUT)
    return found


def visible(infos, access: policy.EventAccess) -> list[RoundInfo]:
    """The rounds ``access`` may see (``policy.can_view_round``'s rule)."""
    if policy.can_view_unpublished_rounds(access):
        return list(infos)
    return [info for info in infos if info.status != RoundStatus.DRAFT]


def as_round(event: Event, info: RoundInfo) -> Round:
    """A Round instance for the policy and templates (number, stage and status only)."""
    return Round(id=info.id, event=event, number=info.number, stage=info.stage, status=info.status)


def extensions(event: Event, info: RoundInfo) -> dict[int, int]:
    """Extra minutes by match id for the round's extended tables ({} without a query
    when no table has any)."""
    if not info.extended:
        return {}

    def build() -> dict[int, int]:
        return dict(
            Match.objects.filter(
                round__event=event, round__number=info.number, extra_minutes__gt=0
            ).values_list("id", "extra_minutes")
        )

    key = pagecache.key("extensions", event.pk, snapshots.revision_of(event).number, info.number)
    return pagecache.get_or_build(key, build)


def records_before(event: Event, info: RoundInfo, infos) -> dict[int, tuple[int, str]]:
    """Each player's (match points, "W-L-D") as they enter round ``info``: the Swiss
    standings after the closed Swiss rounds before it (after all of them for a top-cut
    round). The current round reuses the standings page's snapshot; an earlier round's
    are computed (two queries) and cached per standings revision."""
    closed = sum(
        1 for other in infos if other.stage == RoundStage.SWISS and other.status == "closed"
    )
    if closed == 0 or (info.stage == RoundStage.SWISS and info.number == 1):
        return {}  # round 1: everybody enters with nothing
    if info.stage != RoundStage.SWISS or info.number - 1 >= closed:
        return {
            row.registration_id: (row.match_points, row.record)
            for row in snapshots.standings(event).rows
        }

    def build() -> dict[int, tuple[int, str]]:
        table = compute_standings(event, through_round=info.number - 1)
        return {
            line.registration.pk: (line.match_points, f"{line.wins}-{line.losses}-{line.draws}")
            for line in table.rows
        }

    key = pagecache.key("records", event.pk, snapshots.revision_of(event).standings, info.number)
    return pagecache.get_or_build(key, build)
