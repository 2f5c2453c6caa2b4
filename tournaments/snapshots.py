"""What the public pages show of an event, computed once per revision and cached.

A snapshot is plain data (no model instances): the standings rows after the closed Swiss
rounds (by final placing once a top cut has been played), or one round's pairings, with
the players' display names resolved. The pages and the API slice them into pages of
about 200 rows, search them for a name or a table, and find the viewer's own row, all
without touching the database again. Snapshots are keyed by the event's revision
(``EventRevision.standings`` for standings, ``number`` for the rest), so a change is
seen by the next request that starts after its commit.
"""

from __future__ import annotations

import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass

from django.core.cache import cache

from . import pagecache
from .models import Event, EventState, Match, Round
from .selectors import display_name, name_of, revision_of
from .services.standings import EventStandings, compute_standings

# Rows per page of the standings and pairings (pages and API).
PAGE_SIZE = 200
# The standings snapshot's cache name; a new one when its shape changes (a shared cache
# may still hold the old shape under the same revision).
STANDINGS_KIND = "standings-v2"


def champion(event: Event) -> str | None:
    """The display name of the event's winner; None before there is one.

    With a top cut: the winner of the final as soon as the final's round is closed (its
    result confirmed or final, and the round closed by the organizer: the moment the
    placings and the bracket show it too); "Finish" is not waited for, it only ends the
    event. Without a top cut: the first of the standings once the event is finished.
    Cached per standings revision (a small entry of its own: the event page, which shows
    the banner, does not unpickle the whole standings); no query once cached.
    """
    if event.state not in (EventState.TOP_CUT, EventState.FINISHED):
        return None

    def build() -> str:
        snapshot = standings(event)
        if snapshot.top_cut is not None:
            return snapshot.top_cut.champion or ""
        if event.state == EventState.FINISHED and snapshot.rounds and snapshot.rows:
            return snapshot.rows[0].name
        return ""

    key = pagecache.key("champion", event.pk, revision_of(event).standings)
    return _loaded(event, key, lambda: pagecache.get_or_build(key, build)) or None


def fold(text: str) -> str:
    """Search form of a name: full- and half-width alike, case and spaces ignored."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


# --- standings ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int
    registration_id: int
    name: str
    match_points: int
    wins: int
    losses: int
    draws: int
    byes: int
    dropped: bool
    missed_rounds: int
    tiebreakers: tuple[float, ...]
    placing: int  # the Swiss rank until a top cut is played
    top_cut_result: str | None  # "champion", "finalist", "semifinal", …; None: not in the cut

    @property
    def record(self) -> str:
        return f"{self.wins}-{self.losses}-{self.draws}"


@dataclass(frozen=True, slots=True)
class TopCutSummary:
    size: int
    rounds: int  # rounds the cut plays
    closed: int  # of which closed
    champion: str | None  # the winner's name once the final is closed

    @property
    def complete(self) -> bool:
        """Every round of the cut is closed (the champion may still be None: a winner
        disqualified afterwards is left out of the standings, and nobody is champion)."""
        return self.closed >= self.rounds


@dataclass(frozen=True, slots=True)
class StandingsSnapshot:
    profile: str
    tiebreak_names: tuple[str, ...]
    rounds: int
    rows: tuple[StandingRow, ...]  # by placing
    search_names: tuple[str, ...]  # fold(name) per row
    top_cut: TopCutSummary | None = None  # None: no top-cut round closed yet

    def position_of(self, registration_id: int) -> int | None:
        for position, row in enumerate(self.rows):
            if row.registration_id == registration_id:
                return position
        return None

    def search(self, query: str) -> list[StandingRow]:
        """Rows whose player name contains ``query`` (folded), best first."""
        needle = fold(query)
        if not needle:
            return []
        names = zip(self.rows, self.search_names, strict=True)
        return [row for row, name in names if needle in name]


# The engine's standings of the last events computed in this process, by (event,
# standings revision): a player's tiebreak working needs the engine's explanation, which
# the cached snapshot does not carry. Each web worker computes an event's standings at
# most once per revision, not once per player opening their working.
_ENGINE_MEMO: OrderedDict[tuple[int, int], EventStandings] = OrderedDict()
_ENGINE_MEMO_SIZE = 2
_ENGINE_MEMO_LOCK = threading.Lock()


def forget_engine_standings() -> None:
    """Empty this process's memo (tests: event ids and revisions repeat after a rollback)."""
    with _ENGINE_MEMO_LOCK:
        _ENGINE_MEMO.clear()


def engine_standings(event: Event) -> EventStandings:
    """The event's standings as the engine computed them (with each player's working),
    at its current standings revision; computed once per revision in this process."""
    memo_key = (event.pk, revision_of(event).standings)
    with _ENGINE_MEMO_LOCK:
        table = _ENGINE_MEMO.get(memo_key)
        if table is not None:
            _ENGINE_MEMO.move_to_end(memo_key)
            return table
    table = compute_standings(event)
    with _ENGINE_MEMO_LOCK:
        _ENGINE_MEMO[memo_key] = table
        while len(_ENGINE_MEMO) > _ENGINE_MEMO_SIZE:
            _ENGINE_MEMO.popitem(last=False)
    return table


def _build_standings(event: Event) -> StandingsSnapshot:
    table = engine_standings(event)
    rows = tuple(
        StandingRow(
            rank=line.rank,
            registration_id=line.registration.pk,
            name=display_name(line.registration),
            match_points=line.match_points,
            wins=line.wins,
            losses=line.losses,
            draws=line.draws,
            byes=line.byes,
            dropped=line.dropped,
            missed_rounds=line.missed_rounds,
            tiebreakers=tuple(float(line.tiebreakers[name]) for name in table.tiebreak_names),
            placing=line.placing,
            top_cut_result=line.top_cut_result,
        )
        for line in table.rows
    )
    top_cut = None
    if table.top_cut is not None:
        winner = table.top_cut.champion
        top_cut = TopCutSummary(
            size=table.top_cut.size,
            rounds=table.top_cut.rounds,
            closed=table.top_cut.closed,
            champion=None if winner is None else display_name(table.registrations[winner]),
        )
    return StandingsSnapshot(
        profile=table.profile,
        tiebreak_names=tuple(table.tiebreak_names),
        rounds=table.rounds,
        rows=rows,
        search_names=tuple(fold(row.name) for row in rows),
        top_cut=top_cut,
    )


def _loaded(event: Event, key: str, load):
    """``load()`` once per event object (one request): a snapshot is read from the
    cache and unpickled once, however many parts of the page need it."""
    memo = event.__dict__.setdefault("_snapshots", {})
    if key not in memo:
        memo[key] = load()
    return memo[key]


def standings(event: Event) -> StandingsSnapshot:
    """The event's Swiss standings at its current standings revision (computed by the
    first request after a change, the others waiting for it)."""
    key = pagecache.key(STANDINGS_KIND, event.pk, revision_of(event).standings)
    return _loaded(event, key, lambda: pagecache.get_or_build(key, lambda: _build_standings(event)))


# --- pairings ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairingRow:
    match_id: int
    table: int
    player1_id: int
    player1: str
    player2_id: int | None  # None: a bye
    player2: str | None
    record: str
    status: str


@dataclass(frozen=True, slots=True)
class PairingLine:
    """One player's line of the alphabetical list."""

    name: str
    table: int
    seat: int
    opponent: str | None
    row: PairingRow

    @property
    def record(self) -> str:
        """The match record from this line's player's side (the row's is player 1's)."""
        if self.seat == 1 or not self.row.record:
            return self.row.record
        wins, losses, draws = self.row.record.split("-")
        return f"{losses}-{wins}-{draws}"


@dataclass(frozen=True, slots=True)
class PairingsSnapshot:
    rows: tuple[PairingRow, ...]  # by table

    def by_name(self) -> list[PairingLine]:
        lines = []
        for row in self.rows:
            lines.append(PairingLine(row.player1, row.table, 1, row.player2, row))
            if row.player2 is not None:
                lines.append(PairingLine(row.player2, row.table, 2, row.player1, row))
        lines.sort(key=lambda line: (line.name.casefold(), line.table, line.seat))
        return lines

    def row_of(self, registration_id: int) -> PairingRow | None:
        for row in self.rows:
            if registration_id in (row.player1_id, row.player2_id):
                return row
        return None

    def position_of_table(self, table: int) -> int | None:
        for position, row in enumerate(self.rows):
            if row.table == table:
                return position
        return None

    def search(self, query: str) -> list[PairingRow]:
        """Tables whose number is ``query`` or whose players' names contain it."""
        query = unicodedata.normalize("NFKC", query).strip()
        if query.isdecimal() and query.isascii():
            position = self.position_of_table(int(query))
            return [] if position is None else [self.rows[position]]
        needle = fold(query)
        if not needle:
            return []
        return [
            row
            for row in self.rows
            if needle in fold(row.player1) or needle in fold(row.player2 or "")
        ]


def _build_pairings(round_: Round) -> PairingsSnapshot:
    # Plain values, not model instances: 2,500 tables would otherwise build 12,500
    # objects (and decode every decklist) for a list that shows names and a record.
    columns = (
        "id",
        "table",
        "status",
        "wins",
        "losses",
        "draws",
        "player1_id",
        "player1__player__username",
        "player1__player__first_name",
        "player1__player__last_name",
        "player2_id",
        "player2__player__username",
        "player2__player__first_name",
        "player2__player__last_name",
    )
    rows = []
    for (
        match_id,
        table,
        status,
        wins,
        losses,
        draws,
        player1_id,
        username1,
        first1,
        last1,
        player2_id,
        username2,
        first2,
        last2,
    ) in Match.objects.filter(round=round_).order_by("table").values_list(*columns):
        rows.append(
            PairingRow(
                match_id=match_id,
                table=table,
                player1_id=player1_id,
                player1=name_of(username1, first1, last1),
                player2_id=player2_id,
                player2=None if player2_id is None else name_of(username2, first2, last2),
                record="" if wins is None else f"{wins}-{losses}-{draws}",
                status=status,
            )
        )
    return PairingsSnapshot(rows=tuple(rows))


# What the pairings pages and API need of a round.
ROUND_FIELDS = ("id", "number", "stage", "status")


def round_of(event: Event, number: int) -> Round | None:
    """Round ``number`` of the event (its number, stage and status only), cached per
    revision: polling a round's pairings costs no query for the round. None if there is
    no such round; whether the viewer may see it is :func:`policy.can_view_round`'s."""
    key = pagecache.key("round", event.pk, revision_of(event).number, number)
    found = cache.get(key)
    if found is None:
        found = Round.objects.filter(event=event, number=number).values(*ROUND_FIELDS).first()
        if found is None:
            return None  # not cached: made-up round numbers must not fill the cache
        cache.set(key, found, pagecache.TIMEOUT)
    return Round(event=event, **found)


def pairings(event: Event, round_: Round) -> PairingsSnapshot:
    """One round's pairings at the event's current revision."""
    key = pagecache.key("pairings", event.pk, revision_of(event).number, round_.number)
    return _loaded(event, key, lambda: pagecache.get_or_build(key, lambda: _build_pairings(round_)))
