"""A large played event, built fast for the query-count tests of the standings.

Pairing a thousand players round by round through the services takes minutes (the
engine proves every pairing optimal), so this builder writes the players, their
registrations and the closed Swiss rounds with ``bulk_create``. The data is what the
services would have written: the event is created, opened and started, and one player
dropped, through the services; every registration carries a decklist and the legality
report of a real check; the rounds are paired by points without rematches (a bye for the
lowest player without one), every match has its games, record, outcome and both
participant rows, and is confirmed (a bye is final).
"""

from __future__ import annotations

import datetime as dt
from itertools import cycle

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.utils import timezone

from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import games_for, open_event
from tournaments import services
from tournaments.models import (
    Match,
    MatchOutcome,
    MatchParticipant,
    MatchStatus,
    Registration,
    RegistrationStatus,
    Round,
    RoundStage,
    RoundStatus,
)

# Records from player 1's side, taken in turn: wins both ways, a three-game match, a draw.
RECORDS = ("2-0", "2-1", "0-2", "1-2", "1-1-1", "2-0", "1-0-1", "0-2")
POINTS = {MatchOutcome.PLAYER1: (3, 0), MatchOutcome.PLAYER2: (0, 3), MatchOutcome.DRAW: (1, 1)}


def _outcome(wins: int, losses: int) -> str:
    if wins > losses:
        return MatchOutcome.PLAYER1
    if losses > wins:
        return MatchOutcome.PLAYER2
    return MatchOutcome.DRAW


def _pair(order: list[int], met: set[frozenset], had_bye: set[int]):
    """Adjacent players by standing, skipping rematches; the bye (odd count) goes to the
    lowest player who has not had one."""
    pool = list(order)
    bye = None
    if len(pool) % 2:
        bye = next(p for p in reversed(pool) if p not in had_bye)
        pool.remove(bye)
    pairs = []
    while pool:
        first = pool.pop(0)
        index = next((i for i, p in enumerate(pool) if frozenset((first, p)) not in met), 0)
        pairs.append((first, pool.pop(index)))
    return pairs, bye


def played_event(organizer, fmt, *, players: int, rounds: int = 3, name: str = "Big Open"):
    """An event of ``players`` players after ``rounds`` closed Swiss rounds; the last
    player dropped after round ``rounds - 1``. Returns the event."""
    event = open_event(organizer, fmt, name=name, capacity=max(players, 2), swiss_rounds=rounds + 1)
    user_model = get_user_model()
    password = make_password("pw")
    prefix = f"e{event.pk}p"
    users = user_model.objects.bulk_create(
        user_model(username=f"{prefix}{n:04d}", password=password) for n in range(1, players + 1)
    )
    checked = services.check_decklist(event, player=users[0], deck_text=LEGAL_DECK)
    start = timezone.now() - dt.timedelta(days=1)
    registrations = Registration.objects.bulk_create(
        Registration(
            event=event,
            player=user,
            status=RegistrationStatus.REGISTERED,
            registered_at=start + dt.timedelta(seconds=n),
            deck_text=checked.text,
            deck_report=checked.report,
            deck_submitted_at=start + dt.timedelta(seconds=n),
        )
        for n, user in enumerate(users)
    )
    services.start_event(event, actor=organizer)
    ids = [r.pk for r in registrations]
    points = dict.fromkeys(ids, 0)
    met: set[frozenset] = set()
    had_bye: set[int] = set()
    active = list(ids)
    records = cycle(RECORDS)
    for number in range(1, rounds + 1):
        if number == rounds and players > 2:
            services.drop_player(registrations[-1], actor=organizer)
            active.remove(registrations[-1].pk)
        began = start + dt.timedelta(hours=number)
        round_ = Round.objects.create(
            event=event,
            number=number,
            stage=RoundStage.SWISS,
            status=RoundStatus.CLOSED,
            published_at=began,
            started_at=began,
            closed_at=began + dt.timedelta(minutes=50),
        )
        order = sorted(active, key=lambda pk: (-points[pk], pk))
        pairs, bye = _pair(order, met, had_bye)
        matches = []
        for table, (player1, player2) in enumerate(pairs, start=1):
            record = next(records)
            wins, losses, draws = (int(x) for x in (record + "-0").split("-")[:3])
            outcome = _outcome(wins, losses)
            matches.append(
                Match(
                    round=round_,
                    table=table,
                    player1_id=player1,
                    player2_id=player2,
                    games=games_for(record),
                    wins=wins,
                    losses=losses,
                    draws=draws,
                    outcome=outcome,
                    status=MatchStatus.CONFIRMED,
                    reported_by_id=player1,
                    version=3,
                )
            )
            first, second = POINTS[outcome]
            points[player1] += first
            points[player2] += second
            met.add(frozenset((player1, player2)))
        if bye is not None:
            matches.append(
                Match(
                    round=round_,
                    table=len(pairs) + 1,
                    player1_id=bye,
                    player2_id=None,
                    wins=2,
                    losses=0,
                    draws=0,
                    outcome=MatchOutcome.PLAYER1,
                    status=MatchStatus.FINAL,
                )
            )
            points[bye] += 3
            had_bye.add(bye)
        matches = Match.objects.bulk_create(matches)
        MatchParticipant.objects.bulk_create(
            MatchParticipant(match=m, round=round_, registration_id=pk, seat=seat)
            for m in matches
            for seat, pk in ((1, m.player1_id), (2, m.player2_id))
            if pk is not None
        )
    event.refresh_from_db()
    return event
