"""Penalties: warning, game loss, match loss, disqualification (IPG).

A game loss becomes a game of the match record: a game with ending ``penalty`` (engine
``GameEnd.PENALTY``) that comes before the games the players report. A match loss, and
the current match of a disqualified player, become a final 0-2 for the penalised player.
A disqualification also drops the player from the next pairing on.

The infraction is picked from the event's game's list (:class:`~tournaments.models.Infraction`):
the penalty then defaults to the one the list suggests for this player (its default,
upgraded for a repeat, ``tournaments.infractions``), and a judge who issues another one
must say why in the note. A free-text infraction (no list, or an older client) is still
accepted with an explicit penalty.
"""

from __future__ import annotations

from django.db import transaction

from .. import infractions, policy
from ..engine.games import GameEnd, GameReport
from ..models import (
    SETTLED_MATCH_STATUSES,
    DeckCheck,
    Event,
    EventState,
    Infraction,
    Match,
    MatchStatus,
    Penalty,
    PenaltyKind,
    Registration,
    RegistrationStatus,
    ReportKind,
    Round,
)
from . import audit
from ._common import Actor, lock, require_state
from .errors import InvalidInput, InvalidState
from .events import leave_event
from .results import (
    OPEN_ROUND,
    adjudicate,
    game_data,
    parse_games,
    record_fields,
    result_snapshot,
    swap,
)


def _penalty_game(seat: int, penalty_id: int) -> dict:
    penalized = (seat == 1, seat == 2)
    return game_data(GameReport(end=GameEnd.PENALTY, penalized=penalized), penalty=penalty_id)


def _seat(match: Match, registration: Registration) -> int:
    if match.player1_id == registration.pk:
        return 1
    if match.player2_id == registration.pk:
        return 2
    raise InvalidInput("not_in_match", "the player does not play in this match")


def _current_match(registration: Registration) -> Match | None:
    """The player's match in a published or running round, if it has no final result."""
    return (
        Match.objects.filter(participants__registration=registration, round__status__in=OPEN_ROUND)
        .exclude(status__in=SETTLED_MATCH_STATUSES)
        .order_by("-round__number")
        .first()
    )


def issue_penalty(
    registration: Registration,
    *,
    actor: Actor,
    kind: str | None = None,
    infraction: str | Infraction = "",
    note: str = "",
    match: Match | None = None,
    deck_check: DeckCheck | None = None,
) -> Penalty:
    """Record a penalty issued by a judge (any of the event's staff).

    * ``warning``: recorded only.
    * ``game_loss``: needs ``match`` (in a published or running round, still waiting for
      its result); the game loss becomes a game of the match, ahead of the reported ones.
      Issue it on the player's next match when their match is over (IPG).
    * ``match_loss``: needs ``match`` (not yet confirmed or final); the match becomes a
      final 0-2 for the player.
    * ``disqualification``: the player is disqualified (dropped from the next pairing, left
      out of the standings); their unfinished match of the current round is lost 0-2.

    ``infraction`` is an :class:`Infraction` of the event's game (active), or a text.
    With an Infraction, ``kind`` may be left empty: the suggested penalty (the default,
    upgraded for the player's earlier penalties in the event) is issued; another ``kind``
    needs a ``note`` saying why. The suggestion is stored with the penalty.

    ``deck_check``: the deck check (of this player) the penalty is issued for; the penalty
    and its audit entry refer to it (``services.deck_checks.issue_deck_check_penalty``
    checks it failed and has no penalty yet).

    Side effects: the Penalty, the match (version + 1 and a ResultReport of kind
    ``penalty`` when the record changes), the registration for a disqualification, audit
    entry ``penalty.issued``. Raises NotAllowed (``not_staff``), InvalidInput
    (``invalid_kind``, ``infraction_required``, ``match_required``, ``not_in_match``,
    ``wrong_event``, ``wrong_deck_check``), InvalidState (``event_not_running``, ``not_active``,
    ``round_not_open``, ``bye``, ``match_has_result``) or InvalidResult.
    """
    event = registration.event
    access = policy.access_for(actor, event)
    policy.require(policy.can_judge(access), "not_staff")
    listed = infraction if isinstance(infraction, Infraction) else None
    kind = kind or ""
    if (kind and kind not in PenaltyKind.values) or (not kind and listed is None):
        raise InvalidInput("invalid_kind", f"expected one of {PenaltyKind.values}")
    note = (note or "").strip()
    if listed is not None:
        if listed.game_id != event.format.game_id:
            raise InvalidInput("wrong_game", "the infraction belongs to another game's list")
        if not listed.active:
            raise InvalidInput("infraction_inactive", "the infraction is no longer offered")
        infraction = listed.name
    infraction = (infraction or "").strip()
    if not infraction:
        raise InvalidInput("infraction_required", "name the infraction")
    if deck_check is not None and deck_check.registration_id != registration.pk:
        raise InvalidInput("wrong_deck_check", "the deck check is of another player")
    with transaction.atomic():
        event = lock(Event, event.pk)
        registration = lock(Registration, registration.pk)
        suggested = ""
        if listed is not None:
            # Counted under the registration's lock: two judges penalising the same
            # player at once see each other's penalty.
            suggested = str(infractions.suggest_for(registration, listed).kind)
            if kind and kind != suggested and not note:
                raise InvalidInput(
                    "override_note_required",
                    f"the list suggests {suggested}: say in the note why {kind} instead",
                )
            kind = kind or suggested
        if kind in (PenaltyKind.GAME_LOSS, PenaltyKind.MATCH_LOSS) and match is None:
            raise InvalidInput("match_required", "a game or match loss applies to a match")
        require_state(
            event.state,
            (EventState.REGISTRATION_OPEN, EventState.RUNNING, EventState.TOP_CUT),
            "event_not_running",
            "the event",
        )
        require_state(
            registration.status,
            (RegistrationStatus.REGISTERED, RegistrationStatus.DROPPED),
            "not_active",
            "the registration",
        )
        if kind == PenaltyKind.DISQUALIFICATION and match is None:
            match = _current_match(registration)
        round_ = None
        if match is not None:
            match = Match.objects.select_for_update(no_key=True).get(pk=match.pk)
            round_ = Round.objects.get(pk=match.round_id)
            if round_.event_id != event.pk:
                raise InvalidInput("wrong_event", "the match belongs to another event")
            seat = _seat(match, registration)
        penalty = Penalty.objects.create(
            event=event,
            registration=registration,
            kind=kind,
            infraction=infraction,
            infraction_ref=listed,
            suggested_kind=suggested,
            judge=actor,
            note=note,
            round=round_,
            match=match,
            deck_check=deck_check,
        )
        after = {
            "registration": registration.pk,
            "kind": kind,
            "infraction": infraction,
            "note": note,
            "match": match.pk if match else None,
        }
        if listed is not None:
            after["infraction_code"] = listed.code
            after["suggested_kind"] = suggested
        if deck_check is not None:
            after["deck_check"] = deck_check.pk
        before = {}
        if kind in (PenaltyKind.GAME_LOSS, PenaltyKind.MATCH_LOSS) or (
            kind == PenaltyKind.DISQUALIFICATION
            and match is not None
            and round_.status in OPEN_ROUND
            and match.player2_id is not None
            and match.status not in SETTLED_MATCH_STATUSES
        ):
            before["match"] = result_snapshot(match)
            _apply_to_match(event, round_, match, seat, penalty, actor)
            after["match_result"] = result_snapshot(match)
        if kind == PenaltyKind.DISQUALIFICATION:
            before["status"] = registration.status
            before["dropped_after_round"] = registration.dropped_after_round
            after.update(leave_event(event, registration, RegistrationStatus.DISQUALIFIED))
        audit.record(
            event,
            actor=actor,
            action="penalty.issued",
            obj=penalty,
            reason=note,
            before=before or None,
            after=after,
        )
    return penalty


def _apply_to_match(event, round_, match, seat, penalty, actor) -> None:
    if round_.status not in OPEN_ROUND:
        raise InvalidState("round_not_open", f"the round is {round_.status}")
    if match.player2_id is None:
        raise InvalidState("bye", "a bye cannot be lost")
    if penalty.kind == PenaltyKind.GAME_LOSS:
        if match.status != MatchStatus.PENDING:
            raise InvalidState(
                "match_has_result",
                "the match already has a result: apply the game loss to the next match",
            )
        games = [*match.games, _penalty_game(seat, penalty.pk)]
        record = adjudicate(event, round_, parse_games(games))
        # Only penalty games so far: the match still waits for the players' report.
        changes = {"games": games, **record_fields(record)}
    else:
        if match.status in SETTLED_MATCH_STATUSES:
            raise InvalidState("match_has_result", "the match already has a final result")
        games = [_penalty_game(seat, penalty.pk), _penalty_game(seat, penalty.pk)]
        record = adjudicate(event, round_, parse_games(games))
        changes = {"games": games, "status": MatchStatus.FINAL, **record_fields(record)}
    swap(
        match,
        expected_version=match.version,
        actor=actor,
        kind=ReportKind.PENALTY,
        report_games=games,
        reason=f"{penalty.get_kind_display()}: {penalty.infraction}",
        changes=changes,
    )
