"""Match results: a player reports the games, the opponent confirms or disputes, the staff
enter or override. The engine (``engine.games``) turns the games into the match record.

Every change of a match goes from ``version`` v to v + 1 with a compare-and-swap
``UPDATE … WHERE id = … AND version = v`` inside ``transaction.atomic()``, after
``select_for_update`` of the row. The caller passes the version it saw
(``expected_version``); when another submission got there first the caller gets
:class:`~.errors.Conflict` (``stale_version``) and nothing is written. So of any number
of concurrent submissions for one version exactly one is stored, with one
:class:`~tournaments.models.ResultReport` and one audit entry (the database refuses a
second of either for the same version).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from cardpool.models import Game
from decks.models import Format

from .. import policy
from ..engine.errors import EngineError
from ..engine.games import (
    GameEnd,
    GameEndRules,
    GameOutcome,
    GameReport,
    MatchRecord,
    TimeoutPolicy,
    adjudicate_game,
    adjudicate_match,
    check_fixed_games,
    match_result,
    record_for_seat,
)
from ..models import (
    SETTLED_MATCH_STATUSES,
    Event,
    EventState,
    Match,
    MatchStatus,
    ReportKind,
    ResultReport,
    Round,
    RoundStage,
    RoundStatus,
)
from . import audit
from ._common import Actor, require_reason
from .errors import Conflict, InvalidInput, InvalidResult, InvalidState

GAME_KEYS = frozenset({"end", "hp", "deck", "conceded", "penalized"})
OPEN_ROUND = (RoundStatus.PUBLISHED, RoundStatus.RUNNING)
MAX_GAMES_READ = 10


# --- games: plain data ↔ engine reports ----------------------------------------------


def _pair(value, kind, name: str, number: int) -> tuple:
    if value is None:
        return (None, None) if kind is int else (False, False)
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise InvalidInput("games_malformed", f"game {number}: {name} must be a pair")
    if kind is bool:
        if not all(isinstance(item, bool) for item in value):
            raise InvalidInput("games_malformed", f"game {number}: {name} must be true/false")
        return tuple(value)
    for item in value:
        if item is not None and (isinstance(item, bool) or not isinstance(item, int)):
            raise InvalidInput("games_malformed", f"game {number}: {name} must be whole numbers")
    return tuple(value)


def parse_games(games: Iterable) -> list[GameReport]:
    """Read games given as engine ``GameReport``s or as plain dicts with the keys
    ``end``, ``hp``, ``deck``, ``conceded``, ``penalized`` (pairs: player 1, player 2).
    Raises InvalidInput (``games_malformed``) for data that is not shaped like a game;
    whether the games make sense is the engine's call (see :func:`adjudicate`)."""
    if isinstance(games, str | bytes | Mapping) or not isinstance(games, Iterable):
        raise InvalidInput("games_malformed", "games must be a list")
    reports = []
    for number, game in enumerate(games, 1):
        if number > MAX_GAMES_READ:  # the engine refuses more than three; stop reading here
            raise InvalidInput("games_malformed", "far too many games")
        if isinstance(game, GameReport):
            reports.append(game)
            continue
        if not isinstance(game, Mapping):
            raise InvalidInput("games_malformed", f"game {number}: expected an object")
        extra = set(game) - GAME_KEYS - {"penalty"}
        if extra:
            raise InvalidInput("games_malformed", f"game {number}: unknown keys {sorted(extra)}")
        end = game.get("end")
        if end is not None and end not in GameEnd._value2member_map_:
            raise InvalidInput("games_malformed", f"game {number}: unknown ending {end!r}")
        reports.append(
            GameReport(
                end=GameEnd(end) if end is not None else None,
                hp=_pair(game.get("hp"), int, "hp", number),
                deck=_pair(game.get("deck"), int, "deck", number),
                conceded=_pair(game.get("conceded"), bool, "conceded", number),
                penalized=_pair(game.get("penalized"), bool, "penalized", number),
            )
        )

    return reports


def game_data(report: GameReport, **extra) -> dict:
    """An engine report as the plain dict stored in ``Match.games``."""
    return {
        "end": str(report.end) if report.end is not None else None,
        "hp": list(report.hp),
        "deck": list(report.deck),
        "conceded": list(report.conceded),
        "penalized": list(report.penalized),
        **extra,
    }


def penalty_games(match: Match) -> list[dict]:
    """The games of ``match`` that game-loss penalties decided (they come first)."""
    return [game for game in match.games if "penalty" in game]


def timeout_policy(event: Event, round_: Round) -> TimeoutPolicy:
    """The event's time-out policy for this round's stage (Swiss or top cut)."""
    if round_.stage == RoundStage.TOP_CUT:
        return TimeoutPolicy(event.top_cut_timeout_policy)
    return TimeoutPolicy(event.swiss_timeout_policy)


def game_end_rules(event: Event) -> GameEndRules:
    """How games of the event's game end (HP and its maximum, losing conditions, time-out
    tiebreak), from its ``cardpool.Game``: one query unless the event's format and game
    are loaded already."""
    format_field = Event._meta.get_field("format")
    if format_field.is_cached(event) and Format._meta.get_field("game").is_cached(event.format):
        game = event.format.game
    else:
        game = Game.objects.get(formats__events=event)
    return GameEndRules(**game.end_rules_data())


def adjudicate(
    event: Event,
    round_: Round,
    games: Sequence[GameReport],
    *,
    rules: GameEndRules | None = None,
) -> MatchRecord:
    """The match record of ``games`` under the round's rules and the event's game's end
    rules (:func:`game_end_rules`): Swiss rounds use the event's Swiss time-out policy and
    may end drawn; top-cut rounds use the top-cut policy and need a winner. Raises
    InvalidResult with the engine's code."""
    top_cut = round_.stage == RoundStage.TOP_CUT
    try:
        return adjudicate_match(
            games,
            timeout_policy=timeout_policy(event, round_),
            winner_required=top_cut,
            rules=rules or game_end_rules(event),
        )
    except EngineError as exc:
        raise InvalidResult(exc) from exc


def preview_result(
    event: Event, round_: Round, games: Iterable
) -> tuple[list[GameOutcome], MatchRecord]:
    """What ``games`` would make of a match of ``round_``: each game's outcome and the
    match record, decided exactly as :func:`report_result` would, without saving
    anything (the report form shows it while the player fills it in). Raises
    InvalidInput (``games_malformed``) or InvalidResult."""
    reports = parse_games(games)
    rules = game_end_rules(event)
    record = adjudicate(event, round_, reports, rules=rules)
    timeout = timeout_policy(event, round_)
    outcomes = [adjudicate_game(report, timeout_policy=timeout, rules=rules) for report in reports]
    return outcomes, record


def _record_from_text(round_: Round, text: str, seat: int = 1) -> MatchRecord:
    """The record ``text`` (``"2-1"``, or a MatchRecord) gives from ``seat``'s side, as
    player 1's record, checked by rule 4−1−1 and, in a top cut, for a winner."""
    try:
        record = record_for_seat(text, seat)
        match_result(record, winner_required=round_.stage == RoundStage.TOP_CUT)
    except EngineError as exc:
        raise InvalidResult(exc) from exc
    return record


def _parse_record(record) -> MatchRecord:
    """Read a record early (before any lock): unreadable text is an InvalidResult."""
    if isinstance(record, MatchRecord):
        return record
    if not isinstance(record, str):
        raise InvalidInput("record_malformed", 'record must be text such as "2-1"')
    try:
        return MatchRecord.parse(record)
    except EngineError as exc:
        raise InvalidResult(exc) from exc


def _seat_of(access, match: Match) -> int:
    return 1 if access.registration_id == match.player1_id else 2


def _record_with_fixed_games(record: MatchRecord, fixed: list[dict], event: Event) -> None:
    """A record given instead of games must include the games penalties decided (read
    under the event's game's end rules)."""
    if not fixed:
        return
    rules = game_end_rules(event)
    outcomes = [adjudicate_game(game, rules=rules) for game in parse_games(fixed)]
    try:
        check_fixed_games(record, outcomes)
    except EngineError as exc:
        raise InvalidResult(exc) from exc


def record_fields(record: MatchRecord | None) -> dict:
    if record is None:
        return {"wins": None, "losses": None, "draws": None, "outcome": ""}
    return {
        "wins": record.wins,
        "losses": record.losses,
        "draws": record.draws,
        "outcome": str(record.outcome),
    }


def result_snapshot(match: Match) -> dict:
    return {
        "status": match.status,
        "record": match.record_text,
        "outcome": match.outcome,
        "reported_by": match.reported_by_id,
        "games": match.games,
        "version": match.version,
    }


# --- the compare-and-swap ---------------------------------------------------------------


def _locked_match(match: Match, expected_version: int) -> tuple[Match, Round, Event]:
    """Lock the match row and check the caller's version; load its round and event."""
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise InvalidInput("version_required", "pass the version of the match you saw")
    locked = Match.objects.select_for_update(no_key=True).get(pk=match.pk)
    if locked.version != expected_version:
        raise Conflict(
            "stale_version",
            f"the match changed (version {locked.version}, you saw {expected_version}); reload it",
            current_version=locked.version,
        )
    round_ = Round.objects.select_related("event").get(pk=locked.round_id)
    return locked, round_, round_.event


def swap(
    match: Match,
    *,
    expected_version: int,
    actor: Actor,
    kind: str,
    changes: dict,
    report_games: list | None = None,
    report_record: str | None = None,
    reason: str = "",
) -> Match:
    """Write ``changes`` to the match if it is still at ``expected_version``, with its
    ResultReport (whose record is ``report_record`` when the submission claims another
    record than the match's, as a dispute may). Internal: the caller holds the row lock
    inside ``transaction.atomic`` and writes the audit entry (with
    ``version=match.version`` afterwards)."""
    updated = Match.objects.filter(pk=match.pk, version=expected_version).update(
        **changes, version=F("version") + 1, updated_at=timezone.now()
    )
    if updated != 1:
        raise Conflict("stale_version", "another submission changed the match first")
    for name, value in changes.items():
        setattr(match, name, value)
    match.version = expected_version + 1
    # No savepoint around the inserts: a refused insert raises out of the caller's
    # transaction, which rolls the whole change back.
    try:
        ResultReport.objects.create(
            match=match,
            reporter=actor,
            kind=kind,
            games=report_games if report_games is not None else [],
            record=match.record_text if report_record is None else report_record,
            reason=reason,
            match_version=match.version,
        )
    except IntegrityError as exc:  # a second change for one version: never store it
        raise Conflict("stale_version", "another submission changed the match first") from exc
    return match


def _require_open_round(round_: Round) -> None:
    if round_.status not in OPEN_ROUND:
        code = "round_not_published" if round_.status == RoundStatus.DRAFT else "round_closed"
        raise InvalidState(code, f"the round is {round_.status}", current=round_.status)


def _require_not_bye(match: Match) -> None:
    if match.player2_id is None:
        raise InvalidState("bye", "a bye has no result to report")


def _audit(event, match, *, actor, action, before, reason="") -> None:
    try:
        audit.record(
            event,
            actor=actor,
            action=action,
            obj=match,
            reason=reason,
            before=before,
            after=result_snapshot(match),
            version=match.version,
        )
    except IntegrityError as exc:  # an entry for this version exists: another change won
        raise Conflict("stale_version", "another submission changed the match first") from exc


# --- the state changes ----------------------------------------------------------------


def report_result(
    match: Match,
    *,
    actor: Actor,
    expected_version: int,
    games: Iterable | None = None,
    record: str | MatchRecord | None = None,
) -> Match:
    """A player of the match reports its result: either the ``games`` (the engine
    decides the record) or the ``record`` from the reporter's own side (``"2-1"``: the
    reporter won two games to one; one tap at the table).

    The match keeps the record from player 1's side. A record replaces the reported games:
    the match keeps only the games a game-loss penalty decided, which the record must
    include (``record_below_fixed_games``). Allowed while the match waits for a result,
    and for the reporter to correct their own report until the opponent answers. Side
    effects: the match (status ``reported``, games, record, ``reported_by``, version + 1),
    a ResultReport, audit entry ``match.reported``. Raises NotAllowed
    (``not_participant``), Conflict (``stale_version``), InvalidState
    (``round_not_published``, ``round_closed``, ``bye``, ``already_reported``,
    ``disputed``, ``result_final``), InvalidInput (``games_or_record``,
    ``games_malformed``, ``record_malformed``) or InvalidResult (the engine's code, e.g.
    ``winner_required`` for a drawn record in a top cut).
    """
    access = policy.access_for(actor, _event_of(match))
    policy.require(policy.can_report(access, match), "not_participant")
    if (games is None) == (record is None):
        raise InvalidInput("games_or_record", "give either the games or the record")
    played = parse_games(games) if games is not None else None
    claimed = _parse_record(record) if record is not None else None
    with transaction.atomic():
        match, round_, event = _locked_match(match, expected_version)
        policy.require(policy.can_report(access, match), "not_participant")
        _require_open_round(round_)
        _require_not_bye(match)
        if match.status == MatchStatus.REPORTED and match.reported_by_id != access.registration_id:
            raise InvalidState("already_reported", "your opponent reported: confirm or dispute")
        if match.status == MatchStatus.DISPUTED:
            raise InvalidState("disputed", "the result is disputed: a judge will decide")
        if match.status in SETTLED_MATCH_STATUSES:
            raise InvalidState("result_final", "the result is already confirmed")
        before = result_snapshot(match)
        fixed = penalty_games(match)
        if played is not None:
            result = adjudicate(event, round_, [*parse_games(fixed), *played])
            stored = [*fixed, *(game_data(game) for game in played)]
            report_games = [game_data(game) for game in played]
        else:
            result = _record_from_text(round_, claimed, _seat_of(access, match))
            _record_with_fixed_games(result, fixed, event)
            stored = fixed
            report_games = []
        swap(
            match,
            expected_version=expected_version,
            actor=actor,
            kind=ReportKind.REPORT,
            report_games=report_games,
            changes={
                "games": stored,
                "status": MatchStatus.REPORTED,
                "reported_by_id": access.registration_id,
                **record_fields(result),
            },
        )
        _audit(event, match, actor=actor, action="match.reported", before=before)
    return match


def confirm_result(match: Match, *, actor: Actor, expected_version: int) -> Match:
    """The opponent of the reporter confirms the reported result.

    Side effects: status ``confirmed``, version + 1, a ResultReport, audit entry
    ``match.confirmed``. Raises NotAllowed (``not_participant``, ``own_report``),
    Conflict (``stale_version``) or InvalidState (``round_not_published``,
    ``round_closed``, ``not_reported``).
    """
    return _answer(match, actor=actor, expected_version=expected_version, confirm=True)


def dispute_result(
    match: Match,
    *,
    actor: Actor,
    expected_version: int,
    reason: str,
    games: Iterable | None = None,
    record: str | MatchRecord | None = None,
) -> Match:
    """The opponent of the reporter disputes the reported result, with a reason and
    optionally their own account: the games, or the record from their own side. Their
    account is kept in the ResultReport (its ``record``: theirs, from player 1's side);
    the match keeps the reported record until a judge decides with
    :func:`override_result`.

    Side effects: status ``disputed``, version + 1, a ResultReport, audit entry
    ``match.disputed``. Raises as :func:`confirm_result`, plus InvalidInput
    (``reason_required``, ``games_or_record``, ``games_malformed``,
    ``record_malformed``) or InvalidResult for their games or record.
    """
    reason = require_reason(reason)
    if games is not None and record is not None:
        raise InvalidInput("games_or_record", "give either the games or the record")
    return _answer(
        match,
        actor=actor,
        expected_version=expected_version,
        confirm=False,
        reason=reason,
        games=None if games is None else parse_games(games),
        record=None if record is None else _parse_record(record),
    )


def _answer(
    match, *, actor, expected_version, confirm, reason="", games=None, record=None
) -> Match:
    access = policy.access_for(actor, _event_of(match))
    policy.require(policy.is_participant(access, match), "not_participant")
    with transaction.atomic():
        match, round_, event = _locked_match(match, expected_version)
        policy.require(policy.is_participant(access, match), "not_participant")
        _require_open_round(round_)
        if match.status != MatchStatus.REPORTED:
            raise InvalidState("not_reported", f"the match is {match.status}", current=match.status)
        policy.require(policy.can_answer_report(access, match), "own_report")
        report_games = None
        claimed = None
        fixed = penalty_games(match)
        if games is not None:
            claimed = adjudicate(event, round_, [*parse_games(fixed), *games])
            report_games = [game_data(game) for game in games]
        elif record is not None:
            claimed = _record_from_text(round_, record, _seat_of(access, match))
            _record_with_fixed_games(claimed, fixed, event)
        before = result_snapshot(match)
        status = MatchStatus.CONFIRMED if confirm else MatchStatus.DISPUTED
        swap(
            match,
            expected_version=expected_version,
            actor=actor,
            kind=ReportKind.CONFIRM if confirm else ReportKind.DISPUTE,
            report_games=report_games,
            report_record=str(claimed) if claimed is not None else None,
            reason=reason,
            changes={"status": status},
        )
        action = "match.confirmed" if confirm else "match.disputed"
        _audit(event, match, actor=actor, action=action, before=before, reason=reason)
    return match


def override_result(
    match: Match,
    *,
    actor: Actor,
    expected_version: int,
    reason: str,
    games: Iterable | None = None,
    record: str | None = None,
) -> Match:
    """The staff enter or override a result, from the games (decided by the engine) or
    as a record such as ``"2-1"`` or ``"0-0-3"`` (an intentional draw), with a reason.

    Allowed in published and running rounds, and in closed Swiss rounds while the event
    is still in its Swiss rounds (a correction changes the standings, not pairings made
    since). Side effects: status ``final``, record, games, version + 1, a ResultReport,
    audit entry ``match.overridden``. Raises NotAllowed (``not_staff``), Conflict
    (``stale_version``), InvalidState (``round_not_published``, ``round_closed``,
    ``bye``), InvalidInput (``reason_required``, ``games_or_record``,
    ``games_malformed``) or InvalidResult.
    """
    access = policy.access_for(actor, _event_of(match))
    policy.require(policy.can_judge(access), "not_staff")
    reason = require_reason(reason)
    if (games is None) == (record is None):
        raise InvalidInput("games_or_record", "give either the games or the record")
    played = parse_games(games) if games is not None else None
    with transaction.atomic():
        match, round_, event = _locked_match(match, expected_version)
        if round_.status == RoundStatus.CLOSED:
            if round_.stage != RoundStage.SWISS or event.state != EventState.RUNNING:
                raise InvalidState("round_closed", "results of this round can no longer change")
        elif round_.status == RoundStatus.DRAFT:
            raise InvalidState("round_not_published", "the round is not published")
        _require_not_bye(match)
        before = result_snapshot(match)
        fixed = penalty_games(match)
        if played is not None:
            result = adjudicate(event, round_, [*parse_games(fixed), *played])
            stored = [*fixed, *(game_data(game) for game in played)]
        else:
            result = _record_from_text(round_, record)
            stored = fixed
        swap(
            match,
            expected_version=expected_version,
            actor=actor,
            kind=ReportKind.OVERRIDE,
            report_games=[game_data(game) for game in played] if played is not None else [],
            reason=reason,
            changes={"games": stored, "status": MatchStatus.FINAL, **record_fields(result)},
        )
        _audit(event, match, actor=actor, action="match.overridden", before=before, reason=reason)
    return match


def _event_of(match: Match) -> Event:
    return Event.objects.get(rounds__matches=match)
