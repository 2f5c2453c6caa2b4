"""Standings from the stored results: the Swiss standings computed by the engine
(``engine.standings``) and, once a top cut has been played, the final placings
(``engine.placings``: the bracket first, then the Swiss standings).

Two queries whatever the size of the event: the registrations and the results of the
closed rounds (Swiss and top cut). Only closed rounds count: a round's close (and a
judge's correction after it) bumps the standings revision the cached pages are keyed by,
so the placings change exactly when the cached standings do. Dropped players keep their
place (their matches count for their opponents); disqualified players are computed with
everyone (their results stand for their opponents) and then left out of the ranking,
everyone below moving up (IPG 1.1). Players still tied on every figure are ordered by a
random order seeded per event.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from django.utils.translation import gettext_lazy

from ..engine.games import MatchRecord
from ..engine.placings import CHAMPION, CutMatch, final_placings
from ..engine.standings import MISSED_ROUND_LOSS, ReportedMatch, StandingExplanation, Standings
from ..engine.standings import compute_standings as engine_standings
from ..models import (
    Event,
    LateEntryPolicy,
    Match,
    MatchOutcome,
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
    # The final placing (engine.placings): the Swiss rank until a top cut is played.
    placing: int = 0
    # How far the player went in the top cut ("champion", "finalist", "semifinal", …).
    top_cut_result: str | None = None


@dataclass(frozen=True, slots=True)
class TopCutState:
    """What the closed top-cut rounds decided."""

    size: int
    rounds: int  # rounds the cut plays (top 8: 3)
    closed: int  # of which closed
    champion: int | None  # registration id, once the final is closed

    @property
    def complete(self) -> bool:
        """Every round of the cut is closed (the champion may still be None: a winner
        disqualified afterwards is left out of the standings, and nobody is champion)."""
        return self.closed >= self.rounds


@dataclass
class EventStandings:
    event: Event
    profile: str
    tiebreak_names: tuple[str, ...]
    rounds: int  # closed Swiss rounds counted
    rows: list[StandingLine]  # by final placing (the Swiss order until a top cut is played)
    engine: Standings = field(repr=False)
    registrations: dict[int, Registration] = field(repr=False)
    swiss_rows: list[StandingLine] = field(default_factory=list, repr=False)  # by Swiss rank
    top_cut: TopCutState | None = None  # None: no top-cut round closed yet

    @property
    def missed_rounds_are_losses(self) -> bool:
        return self.event.late_entry_policy == LateEntryPolicy.LOSSES

    def order(self) -> list[int]:
        """Registration ids by final placing (disqualified players left out)."""
        return [line.registration.pk for line in self.rows]

    def swiss_order(self) -> list[int]:
        """Registration ids by Swiss standing, best first (the top cut's seeding)."""
        return [line.registration.pk for line in self.swiss_rows]

    def explain(self, registration_id: int) -> StandingExplanation:
        """The engine's working for one player: opponents (registration ids), their
        records, the floors or caps applied and each tiebreaker."""
        return self.engine.explain(registration_id)


def _tie_order(event: Event, ids: list[int]) -> list[int]:
    ordered = sorted(ids)
    random.Random(f"standings:{event.pairing_seed}").shuffle(ordered)
    return ordered


def _winner(outcome: str, player1: int, player2: int | None) -> int | None:
    if player2 is None:
        return player1
    if outcome == MatchOutcome.PLAYER1:
        return player1
    if outcome == MatchOutcome.PLAYER2:
        return player2
    return None


def compute_standings(event: Event, *, through_round: int | None = None) -> EventStandings:
    """The Swiss standings after the closed Swiss rounds (up to ``through_round``) and
    the final placings after the closed top-cut rounds.

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
    matches = Match.objects.filter(round__event=event, round__status=RoundStatus.CLOSED)
    if through_round is not None:
        matches = matches.filter(round__number__lte=through_round)
    reported = []
    cut = []  # (round number, player 1, player 2, winner) of the closed top-cut matches
    played = set()
    last_round = 0
    for number, stage, player1, player2, wins, losses, draws, outcome in matches.values_list(
        "round__number",
        "round__stage",
        "player1_id",
        "player2_id",
        "wins",
        "losses",
        "draws",
        "outcome",
    ):
        if stage == RoundStage.TOP_CUT:
            cut.append((number, player1, player2, _winner(outcome, player1, player2)))
            continue
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
                placing=rank,
            )
        )
    final_rows, top_cut = _placed(event, rows, cut)
    return EventStandings(
        event=event,
        profile=event.tiebreak_profile,
        tiebreak_names=standings.tiebreak_names,
        rounds=last_round,
        rows=final_rows,
        engine=standings,
        registrations=registrations,
        swiss_rows=rows,
        top_cut=top_cut,
    )


def _placed(
    event: Event, swiss_rows: list[StandingLine], cut: list[tuple]
) -> tuple[list[StandingLine], TopCutState | None]:
    """The lines by final placing and what the top cut decided (engine.placings)."""
    if not cut:
        return swiss_rows, None
    first = min(number for number, *_ in cut)
    matches = [
        CutMatch(number - first + 1, player1, player2, winner)
        for number, player1, player2, winner in cut
    ]
    placings = final_placings([(line.registration.pk, line.rank) for line in swiss_rows], matches)
    lines = {line.registration.pk: line for line in swiss_rows}
    placed = [
        replace(
            lines[placing.player],
            placing=placing.placing,
            top_cut_result=placing.top_cut_result,
        )
        for placing in placings
    ]
    size = 2 * sum(1 for match in matches if match.round_number == 1)
    rounds = size.bit_length() - 1
    champion = next((p.player for p in placings if p.top_cut_result == CHAMPION), None)
    closed = max(match.round_number for match in matches)
    return placed, TopCutState(size=size, rounds=rounds, closed=closed, champion=champion)
