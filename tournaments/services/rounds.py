"""Rounds: generate Swiss pairings (engine), review and edit, re-pair, publish, start the
clock, close.

Round generation is single-flight: it runs under the event row's lock and refuses unless
the previous round is closed, so a double click or two organizers at once create one
round; ``UniqueConstraint(event, number)`` is the backstop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict

from django.db import IntegrityError, transaction
from django.utils import timezone

from .. import policy
from ..engine.errors import EngineError
from ..engine.swiss import PastMatch, SwissResult, pair_round, swiss_players_from_history
from ..models import (
    SETTLED_MATCH_STATUSES,
    Event,
    EventState,
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
from . import audit
from ._common import Actor, lock, require_reason, require_state, save
from .errors import Conflict, InvalidInput, InvalidState

# (table, player 1 registration id, player 2 registration id or None for a bye)
TableRow = tuple[int, int, int | None]

_OUTCOME_TO_SWISS = {
    MatchOutcome.PLAYER1: SwissResult.PLAYER1,
    MatchOutcome.PLAYER2: SwissResult.PLAYER2,
    MatchOutcome.DRAW: SwissResult.DRAW,
}


def swiss_history(event: Event) -> list[PastMatch]:
    """Every result of the event's closed Swiss rounds, for the pairer (one query)."""
    rows = Match.objects.filter(
        round__event=event, round__stage=RoundStage.SWISS, round__status=RoundStatus.CLOSED
    ).values_list("round__number", "player1_id", "player2_id", "outcome")
    history = []
    for number, player1, player2, outcome in rows:
        result = SwissResult.BYE if player2 is None else _OUTCOME_TO_SWISS[outcome]
        history.append(PastMatch(number, player1, player2, result))
    return history


def active_registration_ids(event: Event) -> list[int]:
    return list(
        Registration.objects.filter(event=event, status=RegistrationStatus.REGISTERED)
        .order_by("id")
        .values_list("id", flat=True)
    )


def _pair(event: Event, number: int, attempt: int) -> tuple[list[TableRow], dict]:
    pool = active_registration_ids(event)
    if len(pool) < 2:
        raise InvalidState("not_enough_players", f"{len(pool)} active players; 2 needed")
    seed = event.pairing_seed if attempt == 0 else f"{event.pairing_seed}/{attempt}"
    players = swiss_players_from_history(pool, swiss_history(event))
    try:
        pairing = pair_round(players, round_number=number, seed=seed)
    except EngineError as exc:  # the engine's inputs come from our own rows: a bug
        raise InvalidState("pairing_failed", exc.message, engine_code=exc.code) from exc
    rows: list[TableRow] = [(t.number, t.player1, t.player2) for t in pairing.tables]
    if pairing.bye is not None:
        rows.append((len(rows) + 1, pairing.bye, None))
    info = {
        "seed_attempt": attempt,
        "proof": pairing.proof,
        "objective": asdict(pairing.objective),
        "lower_bound": asdict(pairing.lower_bound),
    }
    return rows, info


def _bye_fields() -> dict:
    return {
        "status": MatchStatus.FINAL,
        "wins": 2,
        "losses": 0,
        "draws": 0,
        "outcome": MatchOutcome.PLAYER1,
    }


def create_matches(
    round_: Round, rows: Sequence[TableRow], extra: Mapping[int, dict] | None = None
) -> list[Match]:
    """Insert the matches (``extra``: more fields per table) and their participant rows,
    two queries. A bye is a final 2-0 win. Internal: the caller holds the event lock and
    writes the audit entry."""
    matches = []
    for table, player1, player2 in rows:
        fields = _bye_fields() if player2 is None else {}
        fields.update((extra or {}).get(table, {}))
        matches.append(
            Match(round=round_, table=table, player1_id=player1, player2_id=player2, **fields)
        )
    matches = Match.objects.bulk_create(matches)
    MatchParticipant.objects.bulk_create(_participants(round_, matches))
    return matches


def _participants(round_: Round, matches: Sequence[Match]) -> list[MatchParticipant]:
    seats = []
    for match in matches:
        seats.append(
            MatchParticipant(match=match, round=round_, registration_id=match.player1_id, seat=1)
        )
        if match.player2_id is not None:
            seats.append(
                MatchParticipant(
                    match=match, round=round_, registration_id=match.player2_id, seat=2
                )
            )
    return seats


def _tables(round_: Round) -> dict[int, list]:
    return {
        table: [player1, player2]
        for table, player1, player2 in round_.matches.order_by("table").values_list(
            "table", "player1_id", "player2_id"
        )
    }


def generate_round(event: Event, *, actor: Actor) -> Round:
    """Pair the next Swiss round with the engine (manager); the round starts unpublished.

    The pool is every registered (not dropped, disqualified or waitlisted) player; the
    history is every result of the closed Swiss rounds. Side effects: the round, its
    matches (a bye is already final) and participant rows, audit entry
    ``round.generated``. Raises NotAllowed, InvalidState (``event_not_running``,
    ``previous_round_open``, ``swiss_complete``, ``not_enough_players``) or Conflict
    (``round_exists``, when the database backstop fires).
    """
    access = policy.access_for(actor, event)
    policy.require(policy.can_run_rounds(access), "not_manager")
    try:
        with transaction.atomic():
            event = lock(Event, event.pk)
            require_state(event.state, (EventState.RUNNING,), "event_not_running", "the event")
            latest = Round.objects.filter(event=event).order_by("-number").first()
            if latest is not None and latest.status != RoundStatus.CLOSED:
                raise InvalidState(
                    "previous_round_open",
                    f"round {latest.number} is not closed",
                    round=latest.number,
                )
            number = (latest.number if latest else 0) + 1
            if event.swiss_rounds is not None and number > event.swiss_rounds:
                raise InvalidState(
                    "swiss_complete", f"all {event.swiss_rounds} Swiss rounds are paired"
                )
            rows, info = _pair(event, number, attempt=0)
            round_ = Round.objects.create(
                event=event, number=number, stage=RoundStage.SWISS, pairing_info=info
            )
            create_matches(round_, rows)
            audit.record(
                event,
                actor=actor,
                action="round.generated",
                obj=round_,
                after={"number": number, "tables": _tables(round_), **info},
            )
    except IntegrityError as exc:
        raise Conflict("round_exists", "this round was generated by another request") from exc
    return round_


def _open_draft(round_: Round, actor) -> tuple[Event, Round]:
    """Lock the event and the round; the round must be an unpublished Swiss round."""
    event = lock(Event, round_.event_id)
    round_ = lock(Round, round_.pk)
    require_state(round_.status, (RoundStatus.DRAFT,), "round_not_draft", "the round")
    if round_.stage != RoundStage.SWISS:
        raise InvalidState("top_cut_fixed", "top-cut pairings follow the seeds")
    return event, round_


def repair_round(round_: Round, *, actor: Actor, reason: str = "") -> Round:
    """Pair an unpublished Swiss round again from the current pool (manager): after
    drops or late entries, or to discard edits. Each re-pairing uses another random order,
    so an unchanged pool may get other, equally good, pairs.

    Side effects: the round's matches replaced, ``pairing_attempt`` + 1, audit entry
    ``round.repaired`` (tables before and after). Raises NotAllowed or InvalidState
    (``round_not_draft``, ``top_cut_fixed``, ``not_enough_players``).
    """
    access = policy.access_for(actor, round_.event)
    policy.require(policy.can_run_rounds(access), "not_manager")
    with transaction.atomic():
        event, round_ = _open_draft(round_, actor)
        before = {"tables": _tables(round_), **round_.pairing_info}
        round_.pairing_attempt += 1
        rows, info = _pair(event, round_.number, attempt=round_.pairing_attempt)
        round_.matches.all().delete()
        round_.pairing_info = info
        save(round_, "pairing_attempt", "pairing_info")
        create_matches(round_, rows)
        audit.record(
            event,
            actor=actor,
            action="round.repaired",
            obj=round_,
            reason=reason,
            before=before,
            after={"tables": _tables(round_), **info},
        )
    return round_


def apply_table_changes(
    current: Mapping[int, tuple[int, int | None]],
    changes: Mapping[int, tuple[int, int | None] | None],
) -> dict[int, tuple[int, int | None]]:
    """The round's tables after ``changes`` (a table → its players, or None to remove
    it), as :func:`edit_pairing` applies them. Pure."""
    result = dict(current)
    for table, players in changes.items():
        if players is None:
            result.pop(table, None)
        else:
            result[table] = players
    return result


MAX_TABLE = 32_767  # the table column's range on every database


def _registration_id(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, Registration):
        return value.pk
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidInput("invalid_pairing", f"expected a registration or its id, got {value!r}")


def edit_pairing(
    round_: Round,
    *,
    actor: Actor,
    tables: Mapping[int, tuple | None],
    reason: str,
    allow_rematch: bool = False,
    expected: Mapping[int, tuple[int, int | None]] | None = None,
) -> Round:
    """Change tables of an unpublished Swiss round (manager), with a reason.

    ``tables`` maps a table number to ``(player1, player2)`` (registrations or ids;
    ``player2`` None for a bye) or to None to remove the table; tables not named keep
    their players. The whole resulting round is checked: only registered players, nobody
    twice (double-booking), every registered player paired, at most one bye, and no
    rematch of a closed Swiss round unless ``allow_rematch`` (the rematches allowed are
    kept in the audit entry).

    Side effects: the changed matches and participant rows, audit entry
    ``round.pairing_edited`` (the changed tables before and after); nothing when the
    edit changes nothing. Raises NotAllowed, InvalidState (``round_not_draft``,
    ``top_cut_fixed``) or InvalidInput (``reason_required``, ``invalid_pairing``,
    ``player_not_active``, ``double_booked``, ``player_unpaired``, ``two_byes``,
    ``rematch``) or Conflict (``stale_version``: ``expected``, the tables as the caller
    saw them, no longer match the round's).
    """
    access = policy.access_for(actor, round_.event)
    policy.require(policy.can_run_rounds(access), "not_manager")
    reason = require_reason(reason)
    wanted: dict[int, tuple[int, int | None] | None] = {}
    for table, players in tables.items():
        if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= MAX_TABLE:
            raise InvalidInput(
                "invalid_pairing", f"table numbers go from 1 to {MAX_TABLE}: {table!r}"
            )
        if players is None:
            wanted[table] = None
            continue
        player1, player2 = players
        player1 = _registration_id(player1)
        if player1 is None:
            raise InvalidInput("invalid_pairing", f"table {table} needs a player 1")
        wanted[table] = (player1, _registration_id(player2))
    with transaction.atomic():
        event, round_ = _open_draft(round_, actor)
        current = {
            m.table: m for m in Match.objects.select_for_update(no_key=True).filter(round=round_)
        }
        result = {table: (m.player1_id, m.player2_id) for table, m in current.items()}
        if expected is not None and {t: tuple(p) for t, p in expected.items()} != result:
            raise Conflict("stale_version", "the pairings changed after they were loaded")
        result = apply_table_changes(result, wanted)
        changed = sorted(
            table
            for table in set(current) | set(wanted)
            if (
                table in current
                and result.get(table) != (current[table].player1_id, current[table].player2_id)
            )
            or (table not in current and table in result)
        )
        if not changed:
            return round_
        rematches = _check_round(event, result)
        if rematches and not allow_rematch:
            raise InvalidInput(
                "rematch",
                f"these players met before: {rematches}",
                pairs=[list(pair) for pair in rematches],
            )
        before = {table: _pair_of(current.get(table)) for table in changed}
        MatchParticipant.objects.filter(match__round=round_, match__table__in=changed).delete()
        removed = [current[t].pk for t in changed if t in current and t not in result]
        Match.objects.filter(pk__in=removed).delete()
        updated = []
        for table in changed:
            if table not in current or table not in result:
                continue
            match = current[table]
            match.player1_id, match.player2_id = result[table]
            fields = _bye_fields() if match.player2_id is None else _pending_fields()
            for name, value in fields.items():
                setattr(match, name, value)
            save(match, "player1", "player2", *fields)
            updated.append(match)
        new_rows = [(t, *result[t]) for t in changed if t not in current and t in result]
        created = []
        if new_rows:
            created = Match.objects.bulk_create(
                Match(
                    round=round_,
                    table=t,
                    player1_id=p1,
                    player2_id=p2,
                    **(_bye_fields() if p2 is None else {}),
                )
                for t, p1, p2 in new_rows
            )
        MatchParticipant.objects.bulk_create(_participants(round_, [*updated, *created]))
        after = {table: list(result[table]) if table in result else None for table in changed}
        audit.record(
            event,
            actor=actor,
            action="round.pairing_edited",
            obj=round_,
            reason=reason,
            before={"tables": before},
            after={"tables": after, "rematches_allowed": [list(p) for p in rematches]},
        )
    return round_


def _pair_of(match: Match | None) -> list | None:
    return None if match is None else [match.player1_id, match.player2_id]


def _pending_fields() -> dict:
    return {
        "status": MatchStatus.PENDING,
        "wins": None,
        "losses": None,
        "draws": None,
        "outcome": "",
        "games": [],
    }


def _check_round(event: Event, result: Mapping[int, tuple[int, int | None]]) -> list[tuple]:
    """Check a whole round's pairing; return its rematches (pairs that met before)."""
    active = set(active_registration_ids(event))
    seen: set[int] = set()
    byes = 0
    for table in sorted(result):
        player1, player2 = result[table]
        for player in (player1, player2):
            if player is None:
                continue
            if player not in active:
                raise InvalidInput(
                    "player_not_active",
                    f"table {table}: registration {player} is not a registered player",
                    registration=player,
                )
            if player in seen:
                raise InvalidInput(
                    "double_booked",
                    f"registration {player} would play twice in this round",
                    registration=player,
                )
            seen.add(player)
        byes += player2 is None
    if byes > 1:
        raise InvalidInput("two_byes", "a round has at most one bye")
    unpaired = sorted(active - seen)
    if unpaired:
        raise InvalidInput(
            "player_unpaired",
            f"registered players without a table: {unpaired}",
            registrations=unpaired,
        )
    met = {
        frozenset((past.player1, past.player2))
        for past in swiss_history(event)
        if past.player2 is not None
    }
    return [
        (player1, player2)
        for _, (player1, player2) in sorted(result.items())
        if player2 is not None and frozenset((player1, player2)) in met
    ]


def publish_round(round_: Round, *, actor: Actor) -> Round:
    """draft → published (manager): players see their table and may report.
    Audit entry ``round.published``. Raises NotAllowed or InvalidState
    (``round_not_draft``)."""
    return _round_transition(
        round_,
        actor=actor,
        allowed=(RoundStatus.DRAFT,),
        to=RoundStatus.PUBLISHED,
        code="round_not_draft",
        stamp="published_at",
        action="round.published",
    )


def start_round_clock(round_: Round, *, actor: Actor) -> Round:
    """published → running (manager): the round's time starts now.
    Audit entry ``round.clock_started``. Raises NotAllowed or InvalidState
    (``round_not_published``)."""
    return _round_transition(
        round_,
        actor=actor,
        allowed=(RoundStatus.PUBLISHED,),
        to=RoundStatus.RUNNING,
        code="round_not_published",
        stamp="started_at",
        action="round.clock_started",
    )


def close_round(round_: Round, *, actor: Actor) -> Round:
    """published/running → closed (manager), when every match is confirmed or final.
    The matches are locked while checking, so no result changes under the check.
    Audit entry ``round.closed``. Raises NotAllowed or InvalidState (``round_not_open``,
    ``results_missing`` with the tables still open)."""

    def check(round_: Round) -> None:
        statuses = list(
            Match.objects.select_for_update(no_key=True)
            .filter(round=round_)
            .order_by("table")
            .values_list("table", "status")
        )
        missing = [table for table, status in statuses if status not in SETTLED_MATCH_STATUSES]
        if missing:
            raise InvalidState(
                "results_missing", f"tables without a final result: {missing}", tables=missing
            )

    return _round_transition(
        round_,
        actor=actor,
        allowed=(RoundStatus.PUBLISHED, RoundStatus.RUNNING),
        to=RoundStatus.CLOSED,
        code="round_not_open",
        stamp="closed_at",
        action="round.closed",
        check=check,
    )


def _round_transition(round_, *, actor, allowed, to, code, stamp, action, check=None) -> Round:
    access = policy.access_for(actor, round_.event)
    policy.require(policy.can_run_rounds(access), "not_manager")
    with transaction.atomic():
        event = lock(Event, round_.event_id)
        round_ = lock(Round, round_.pk)
        require_state(round_.status, allowed, code, "the round")
        if check:
            check(round_)
        before = {"status": round_.status}
        round_.status = to
        setattr(round_, stamp, timezone.now())
        save(round_, "status", stamp)
        audit.record(
            event,
            actor=actor,
            action=action,
            obj=round_,
            before=before,
            after={"status": round_.status, stamp: getattr(round_, stamp)},
        )
    return round_
