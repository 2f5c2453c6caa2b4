"""Swiss standings from the stored results, computed by the engine (``engine.standings``).

Two queries whatever the size of the event: the registrations and the results of the
closed Swiss rounds. Dropped players keep their place (their matches count for their
opponents); disqualified players are computed with everyone (their results stand for
their opponents) and then left out of the ranking, everyone below moving up (IPG 1.1).
Players still tied on every figure are ordered by a random order seeded per event.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy

from ..engine.games import MatchRecord
from ..engine.standings import MISSED_ROUND_LOSS, ReportedMatch, StandingExplanation, Standings
from ..engine.standings import compute_standings as engine_standings
from ..models import (
    Event,
    LateEntryPolicy,
    Match,
    Registration,
    RegistrationStatus,
    RoundStage,
    RoundStatus,
)

# The tiebreakers as the pages and exports name them.
TIEBREAK_LABELS = {
    "opponents_match_win_pct": gettext_lazy("OMW%"),
    "game_win_pct": gettext_lazy("GW%"),
    "opponents_game_win_pct": gettext_lazy("OGW%"),
    "opponents_win_pct": gettext_lazy("OWP"),
    "opponents_opponents_win_pct": gettext_lazy("OOWP"),
}


@dataclass(frozen=True, slots=True)
class StandingLine:
    rank: int
    registration: Registration
    match_points: int
    wins: int
    losses: int
    draws: int
    byes: int
    dropped: bool
    tiebreakers: dict[str, float]
    # Rounds a late entry missed. With the event's late-entry policy "losses" they are
    # in the record and the player's own figures as 0-2 losses (not in opponents' ones).
    missed_rounds: int = 0


@dataclass
class EventStandings:
    event: Event
    profile: str
    tiebreak_names: tuple[str, ...]
    rounds: int  # closed Swiss rounds counted
    rows: list[StandingLine]
    engine: Standings = field(repr=False)
    registrations: dict[int, Registration] = field(repr=False)

    @property
    def missed_rounds_are_losses(self) -> bool:
        return self.event.late_entry_policy == LateEntryPolicy.LOSSES

    def order(self) -> list[int]:
        """Registration ids, best first (disqualified players left out)."""
        return [line.registration.pk for line in self.rows]

    def explain(self, registration_id: int) -> StandingExplanation:
        """The engine's working for one player: opponents (registration ids), their
        records, the floors or caps applied and each tiebreaker."""
        return self.engine.explain(registration_id)


def _tie_order(event: Event, ids: list[int]) -> list[int]:
    ordered = sorted(ids)
    random.Random(f"standings:{event.pairing_seed}").shuffle(ordered)
    return ordered


def compute_standings(event: Event, *, through_round: int | None = None) -> EventStandings:
    """The Swiss standings after the closed Swiss rounds (up to ``through_round``).

    Read only: no side effects. Two queries.
    """
    registrations = {
        r.pk: r
        for r in Registration.objects.filter(event=event)
        .exclude(status=RegistrationStatus.WAITLISTED)
        .select_related("player")
        # Decklists and their reports are most of a registration's bytes; standings
        # never read them (4,096 players: 216 ms → ~150 ms for this query).
        .defer("deck_text", "deck_report")
    }
    matches = Match.objects.filter(
        round__event=event, round__stage=RoundStage.SWISS, round__status=RoundStatus.CLOSED
    )
    if through_round is not None:
        matches = matches.filter(round__number__lte=through_round)
    reported = []
    played = set()
    last_round = 0
    for number, player1, player2, wins, losses, draws in matches.values_list(
        "round__number", "player1_id", "player2_id", "wins", "losses", "draws"
    ):
        last_round = max(last_round, number)
        played.add(player1)
        if player2 is None:
            reported.append(ReportedMatch(number, player1, None))
            continue
        played.add(player2)
        reported.append(ReportedMatch(number, player1, player2, MatchRecord(wins, losses, draws)))
    if event.late_entry_policy == LateEntryPolicy.LOSSES:
        for pk, registration in registrations.items():
            for number in range(1, min((registration.late_entry_round or 1) - 1, last_round) + 1):
                reported.append(ReportedMatch(number, pk, None, MISSED_ROUND_LOSS))
                played.add(pk)
    # Players who withdrew before round 1 are not in the finish order (MTR 2.10).
    ids = [
        pk
        for pk, r in registrations.items()
        if r.status == RegistrationStatus.REGISTERED or pk in played
    ]
    out = {
        pk
        for pk in ids
        if registrations[pk].status in (RegistrationStatus.DROPPED, RegistrationStatus.DISQUALIFIED)
    }
    standings = engine_standings(
        _tie_order(event, ids), reported, dropped=out, profile=event.tiebreak_profile
    )
    rows = []
    previous_engine_rank = None
    for row in standings.rows:
        registration = registrations[row.player]
        if registration.status == RegistrationStatus.DISQUALIFIED:
            continue
        if row.rank != previous_engine_rank:
            rank = len(rows) + 1
            previous_engine_rank = row.rank
        missed = 0
        if registration.late_entry_round:
            missed = min(registration.late_entry_round - 1, last_round)
        rows.append(
            StandingLine(
                rank=rank,
                registration=registration,
                match_points=row.match_points,
                wins=row.wins,
                losses=row.losses,
                draws=row.draws,
                byes=row.byes,
                dropped=row.dropped,
                tiebreakers=dict(zip(standings.tiebreak_names, row.tiebreakers, strict=True)),
                missed_rounds=missed,
            )
        )
    return EventStandings(
        event=event,
        profile=event.tiebreak_profile,
        tiebreak_names=standings.tiebreak_names,
        rounds=last_round,
        rows=rows,
        engine=standings,
        registrations=registrations,
    )
