"""Replay an event file (``crossover-event/1``, docs/event-file.md) and check that every
result, standing and pairing in it is what the engine gives.

    python -m tournaments.engine.replay event.json

Plain Python: no Django, no database (a test checks that importing this module imports
no Django), so anyone can run it on a file downloaded from the event's page. Per round,
in order:

1. **Results.** Every match with a record is re-adjudicated from its games
   (``games.py``: the game's end rules from ``format.game.end_rules``, the Swiss or
   top-cut time-out policy, a winner required in the top cut). The games must give the
   record in the file; a record entered without games (a judge's record, a one-tap
   report) is read as it is, and one entered over game-loss penalty games must include
   those games (``check_fixed_games``). A bye must be a 2-0 win. The record must give the
   file's outcome.
2. **Pairings** (Swiss rounds). The pool is the players of the round's matches; their
   points, opponents and byes come from the re-adjudicated results of the closed Swiss
   rounds before it. Nobody may play twice, and the pairing's objective (``swiss.py``:
   rematches, second byes, score groups skipped by the bye, floats, score gaps) is
   compared with the optimum the pairer finds for that pool: a rematch the optimum
   avoids, a second bye or a bye above the lowest eligible group the optimum avoids, or
   any worse term is a disagreement. The score-gap difference is always printed.
   Pairings and standings read the file's records (the pairer was given those): a record
   its games do not give is reported once, at its match.
3. **Standings** after every closed Swiss round, with the event's tiebreak profile
   (``standings.py``) and the site's tie order (docs/event-file.md, "Replaying"); the
   first top-cut round's seeds must be the final Swiss standings' order.

Output: one line per round and a verdict line. Exit status 0 when everything agrees,
1 when something disagrees (each disagreement is printed with its round and table),
2 when the file cannot be read as an event file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import astuple, dataclass, field

from .errors import EngineError
from .explain import explain_round
from .games import (
    BYE_RECORD,
    GameEnd,
    GameEndRules,
    GameOutcome,
    GameReport,
    MatchRecord,
    TimeoutPolicy,
    adjudicate_game,
    adjudicate_match,
    check_fixed_games,
)
from .standings import MISSED_ROUND_LOSS, ReportedMatch, compute_standings
from .swiss import PastMatch, SwissResult, swiss_players_from_history

SCHEMA = "crossover-event/1"
EXIT_OK, EXIT_DISAGREES, EXIT_UNREADABLE = 0, 1, 2
_SWISS_OUTCOME = {"player1": SwissResult.PLAYER1, "player2": SwissResult.PLAYER2}


class UnreadableFile(Exception):
    """The file is not an event file this verifier can replay; ``where`` is a JSON path."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


# --- reading -------------------------------------------------------------------------------


def _get(obj, key: str, where: str, kinds: type | tuple):
    if not isinstance(obj, dict):
        raise UnreadableFile(where, "expected an object")
    if key not in obj:
        raise UnreadableFile(f"{where}.{key}" if where else key, "missing")
    value = obj[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
        names = "/".join(k.__name__ for k in _tuple(kinds))
        raise UnreadableFile(f"{where}.{key}" if where else key, f"expected {names}: {value!r}")
    return value


def _tuple(kinds) -> tuple:
    return kinds if isinstance(kinds, tuple) else (kinds,)


@dataclass
class Match:
    round_number: int
    table: int
    player1: int
    player2: int | None
    games: list
    record: str | None
    outcome: str | None
    where: str
    seeds: tuple = (None, None)  # top cut: the Swiss standings places of the players
    result: MatchRecord | None = None  # the verifier's own record, once adjudicated


@dataclass
class RoundData:
    number: int
    stage: str
    status: str
    info: dict
    matches: list[Match]
    where: str


@dataclass
class EventData:
    name: str
    usernames: list[str]  # registration order: player n is usernames[n - 1]
    number_of: dict[str, int]
    status: dict[int, str]
    dropped_after: dict[int, int | None]
    late_entry: dict[int, int | None]
    rules: GameEndRules
    swiss_policy: TimeoutPolicy
    cut_policy: TimeoutPolicy
    late_losses: bool
    profile: str
    tie_order_seed: str
    top_cut_size: int
    rounds: list[RoundData] = field(default_factory=list)


def read_event(document) -> EventData:
    """The parts of an event file the replay uses; raises UnreadableFile naming the field."""
    if not isinstance(document, dict):
        raise UnreadableFile("(top level)", "expected a JSON object")
    schema = document.get("schema")
    if schema != SCHEMA:
        raise UnreadableFile("schema", f"expected {SCHEMA!r}, got {schema!r}")
    event = _get(document, "event", "", dict)
    name = _get(event, "name", "event", str)
    policies = []
    for key in ("swiss_timeout_policy", "top_cut_timeout_policy"):
        value = event.get(key, "draw" if key.startswith("swiss") else "more_hp_wins")
        try:
            policies.append(TimeoutPolicy(value))
        except ValueError:
            raise UnreadableFile(f"event.{key}", f"unknown policy {value!r}") from None
    tiebreakers = _get(event, "tiebreakers", "event", dict)
    profile = _get(tiebreakers, "profile", "event.tiebreakers", str)
    if profile not in ("mtr", "pokemon"):
        raise UnreadableFile("event.tiebreakers.profile", f"unknown profile {profile!r}")
    tie_order_seed = _get(tiebreakers, "tie_order_seed", "event.tiebreakers", str)
    game = _get(_get(document, "format", "", dict), "game", "format", dict)
    end_rules = _get(game, "end_rules", "format.game", dict)
    try:
        rules = GameEndRules(**end_rules)
    except (TypeError, ValueError) as exc:
        raise UnreadableFile("format.game.end_rules", str(exc)) from None

    registrations = _get(document, "registrations", "", list)
    usernames: list[str] = []
    number_of: dict[str, int] = {}
    status: dict[int, str] = {}
    dropped_after: dict[int, int | None] = {}
    late_entry: dict[int, int | None] = {}
    for k, row in enumerate(registrations):
        where = f"registrations[{k}]"
        player = _get(row, "player", where, str)
        if player in number_of:
            raise UnreadableFile(f"{where}.player", f"{player!r} is registered twice")
        number = len(usernames) + 1
        usernames.append(player)
        number_of[player] = number
        status[number] = _get(row, "status", where, str)
        dropped_after[number] = _get(row, "dropped_after_round", where, (int, type(None)))
        late_entry[number] = _get(row, "late_entry_round", where, (int, type(None)))

    data = EventData(
        name=name,
        usernames=usernames,
        number_of=number_of,
        status=status,
        dropped_after=dropped_after,
        late_entry=late_entry,
        rules=rules,
        swiss_policy=policies[0],
        cut_policy=policies[1],
        late_losses=event.get("late_entry_policy", "losses") == "losses",
        profile=profile,
        tie_order_seed=tie_order_seed,
        top_cut_size=event.get("top_cut_size") or 0,
    )
    seen_numbers = set()
    for k, raw in enumerate(_get(document, "rounds", "", list)):
        where = f"rounds[{k}]"
        number = _get(raw, "number", where, int)
        if number in seen_numbers:
            raise UnreadableFile(f"{where}.number", f"round {number} appears twice")
        seen_numbers.add(number)
        stage = _get(raw, "stage", where, str)
        if stage not in ("swiss", "top_cut"):
            raise UnreadableFile(f"{where}.stage", f"unknown stage {stage!r}")
        pairing = raw.get("pairing") or {}
        info = pairing.get("info") if isinstance(pairing, dict) else None
        matches = []
        for t, m in enumerate(_get(raw, "matches", where, list)):
            at = f"{where}.matches[{t}]"
            player1 = _player(m, "player1", at, number_of)
            player2 = _player(m, "player2", at, number_of, optional=True)
            matches.append(
                Match(
                    round_number=number,
                    table=_get(m, "table", at, int),
                    player1=player1,
                    player2=player2,
                    games=_get(m, "games", at, list),
                    record=_get(m, "record", at, (str, type(None))),
                    outcome=_get(m, "outcome", at, (str, type(None))),
                    where=at,
                    seeds=(m.get("seed1"), m.get("seed2")),
                )
            )
        data.rounds.append(
            RoundData(
                number=number,
                stage=stage,
                status=_get(raw, "status", where, str),
                info=info if isinstance(info, dict) else {},
                matches=sorted(matches, key=lambda match: match.table),
                where=where,
            )
        )
    data.rounds.sort(key=lambda r: r.number)
    return data


def _player(match, key, where, number_of, *, optional=False) -> int | None:
    value = _get(match, key, where, (str, type(None)) if optional else str)
    if value is None:
        return None
    if value not in number_of:
        raise UnreadableFile(f"{where}.{key}", f"{value!r} is not registered for the event")
    return number_of[value]


def _game_report(game, where: str) -> GameReport:
    if not isinstance(game, dict):
        raise UnreadableFile(where, "a game must be an object")

    def pair(key, kind, empty):
        value = game.get(key)
        if value is None:
            return (empty, empty)
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all((item is None and kind is int) or (isinstance(item, kind)) for item in value)
        ):
            raise UnreadableFile(f"{where}.{key}", f"expected a pair: {value!r}")
        return tuple(value)

    end = game.get("end")
    if end is not None and end not in GameEnd._value2member_map_:
        raise UnreadableFile(f"{where}.end", f"unknown ending {end!r}")
    return GameReport(
        end=GameEnd(end) if end is not None else None,
        hp=pair("hp", int, None),
        deck=pair("deck", int, None),
        conceded=pair("conceded", bool, False),
        penalized=pair("penalized", bool, False),
    )


# --- checking ------------------------------------------------------------------------------


@dataclass
class RoundReport:
    number: int
    stage: str
    text: str
    problems: list[str]
    seconds: float


def _label(event: EventData, number: int | None) -> str:
    return "—" if number is None else event.usernames[number - 1]


def adjudicate(event: EventData, rnd: RoundData, match: Match, problems: list[str]) -> str:
    """Re-adjudicate one match; sets ``match.result``. Returns how it was decided."""
    table = f"table {match.table}"
    stored = None
    if match.record is not None:
        try:
            stored = MatchRecord.parse(match.record)
        except EngineError as exc:
            raise UnreadableFile(f"{match.where}.record", exc.message) from None
    if match.player2 is None:
        if stored is not None and stored != BYE_RECORD:
            problems.append(f"{table}: a bye is a 2-0-0 win, the file says {match.record}")
        if match.outcome not in (None, "player1"):
            problems.append(f"{table}: a bye is won by its player, the file says {match.outcome}")
        match.result = BYE_RECORD
        return "bye"
    if stored is None:
        return "pending"
    top_cut = rnd.stage == "top_cut"
    policy = event.cut_policy if top_cut else event.swiss_policy
    reports = [_game_report(g, f"{match.where}.games[{k}]") for k, g in enumerate(match.games)]
    how = "from games"
    if not reports:
        result, how = stored, "record only"
    else:
        try:
            result = adjudicate_match(
                reports, timeout_policy=policy, winner_required=top_cut, rules=event.rules
            )
        except EngineError as exc:
            problems.append(f"{table}: its games cannot be adjudicated: {exc.message}")
            result = stored
        if result != stored:
            only_penalties = all(isinstance(g, dict) and "penalty" in g for g in match.games)
            outcomes: Sequence[GameOutcome] = []
            try:
                outcomes = [
                    adjudicate_game(r, timeout_policy=policy, rules=event.rules) for r in reports
                ]
                if only_penalties:
                    check_fixed_games(stored, outcomes)
                    result, how = stored, "record over penalty games"
            except EngineError:
                only_penalties = False
            if not only_penalties:
                problems.append(
                    f"{table} ({_label(event, match.player1)} v {_label(event, match.player2)}):"
                    f" the games give {result}, the file says {stored}"
                )
    if match.outcome is not None and stored.outcome.value != match.outcome:
        problems.append(
            f"{table}: record {stored} is a {stored.outcome.value} result, the file "
            f"says {match.outcome}"
        )
    if top_cut and result.outcome.value == "draw":
        problems.append(f"{table}: a top-cut match needs a winner, {result} is a draw")
    # Later checks read the file's record: the pairings were made from it, so a record its
    # games do not give is reported once, here, not again in every later round.
    match.result = stored
    return how


def _history(event: EventData, before: int) -> list[PastMatch]:
    history = []
    for rnd in event.rounds:
        if rnd.number >= before or rnd.stage != "swiss" or rnd.status != "closed":
            continue
        for m in rnd.matches:
            if m.player2 is None:
                history.append(PastMatch(rnd.number, m.player1, None, SwissResult.BYE))
            elif m.result is not None:
                outcome = m.result.outcome.value
                history.append(
                    PastMatch(
                        rnd.number,
                        m.player1,
                        m.player2,
                        _SWISS_OUTCOME.get(outcome, SwissResult.DRAW),
                    )
                )
    return history


_TERMS = (
    ("rematches", "rematches"),
    ("second_byes", "second byes"),
    ("bye_groups_skipped", "score groups skipped by the bye"),
    ("floats", "floats"),
    ("score_gap_sum", "score gap"),
)


def check_pairing(event: EventData, rnd: RoundData, problems: list[str]) -> str:
    """Check a Swiss round's pairing against the optimum for its pool; the line's text."""
    seen: dict[int, int] = {}
    for m in rnd.matches:
        for player in (m.player1, m.player2):
            if player is None:
                continue
            if player in seen:
                problems.append(
                    f"{_label(event, player)} plays twice (tables {seen[player]} and {m.table})"
                )
            seen[player] = m.table
            dropped = event.dropped_after.get(player)
            if (
                event.status.get(player) in ("dropped", "disqualified")
                and dropped is not None
                and dropped < rnd.number
            ):
                problems.append(
                    f"table {m.table}: {_label(event, player)} dropped after round {dropped}"
                )
    byes = [m for m in rnd.matches if m.player2 is None]
    if len(byes) > 1:
        problems.append(f"{len(byes)} byes in one round (tables {[m.table for m in byes]})")
    if any("plays twice" in p or "byes in one round" in p for p in problems):
        return "pairing not checked (players twice)"
    before = len(problems)
    history = _history(event, rnd.number)
    players = swiss_players_from_history(sorted(seen), history)
    rows = [(m.table, m.player1, m.player2) for m in rnd.matches]
    try:
        why = explain_round(players, rows)
    except EngineError as exc:
        problems.append(f"the pairing is not a pairing of its players: {exc.message}")
        return "pairing not checked"
    got, best = why.objective, why.optimum
    if got.rematches > best.rematches:
        for t in why.tables:
            if t.rematch:
                problems.append(
                    f"table {t.table}: avoidable rematch {_label(event, t.player1)} v "
                    f"{_label(event, t.player2)} (the optimum has {best.rematches} rematches)"
                )
    if why.bye is not None:
        bye_name = _label(event, why.bye.player)
        if got.second_byes > best.second_byes:
            earlier = [
                past.round_number
                for past in history
                if past.player2 is None and past.player1 == why.bye.player
            ]
            problems.append(
                f"bye given twice: {bye_name} already had a bye in round "
                f"{', '.join(map(str, earlier))} while others had none"
            )
        elif got.bye_groups_skipped > best.bye_groups_skipped:
            problems.append(
                f"bye to {bye_name} ({why.bye.points} pts), not to the lowest group with a "
                f"player without a bye ({why.bye.lowest_eligible_points} pts)"
            )
    if got > best and len(problems) == before:
        # Worse, and not for a reason named above: the first term where it loses.
        worse = next(label for key, label in _TERMS if getattr(got, key) != getattr(best, key))
        problems.append(
            f"the pairing is worse than the optimum on {worse}: {got.floats} floats, score gap "
            f"{got.score_gap_sum} (optimum {best.floats} floats, score gap {best.score_gap_sum})"
        )
    if got < best:  # the engine claims optimality: a better pairing is the engine's bug
        problems.append(f"the pairing beats the engine's optimum {astuple(best)}: engine bug")
    recorded = rnd.info.get("objective")
    note = ""
    if isinstance(recorded, dict) and recorded != {k: getattr(got, k) for k, _ in _TERMS}:
        note = "; edited after the engine paired it"
    return (
        f"pairing rematches {got.rematches}, floats {got.floats}, score gap {got.score_gap_sum}"
        f" (optimum {best.score_gap_sum}, difference {got.score_gap_sum - best.score_gap_sum})"
        + note
    )


def standings_after(event: EventData, through: int):
    """The engine's standings after the closed Swiss rounds up to ``through``, as the site
    computes them (docs/event-file.md, "Replaying")."""
    reported = []
    played: set[int] = set()
    last = 0
    for rnd in event.rounds:
        if rnd.stage != "swiss" or rnd.status != "closed" or rnd.number > through:
            continue
        last = max(last, rnd.number)
        for m in rnd.matches:
            played.add(m.player1)
            if m.player2 is None:
                reported.append(ReportedMatch(rnd.number, m.player1, None))
            else:
                played.add(m.player2)
                reported.append(ReportedMatch(rnd.number, m.player1, m.player2, m.result))
    if event.late_losses:
        for number, late in event.late_entry.items():
            for missed in range(1, min((late or 1) - 1, last) + 1):
                reported.append(ReportedMatch(missed, number, None, MISSED_ROUND_LOSS))
                played.add(number)
    ids = [n for n in sorted(event.status) if event.status[n] == "registered" or n in played]
    random.Random(event.tie_order_seed).shuffle(ids)
    out = {n for n in ids if event.status[n] in ("dropped", "disqualified")}
    table = compute_standings(ids, reported, dropped=out, profile=event.profile)
    rows = [row for row in table.rows if event.status[row.player] != "disqualified"]
    return rows


def check_seeds(event: EventData, rnd: RoundData, swiss_rows, problems: list[str]) -> str:
    order = [row.player for row in swiss_rows if event.status[row.player] == "registered"]
    agreed = 0
    for m in rnd.matches:
        for seed, player in zip(m.seeds, (m.player1, m.player2), strict=True):
            if not isinstance(seed, int) or player is None:
                continue
            if seed > len(order) or order[seed - 1] != player:
                expected = _label(event, order[seed - 1]) if seed <= len(order) else "nobody"
                problems.append(
                    f"table {m.table}: seed {seed} is {_label(event, player)}, the Swiss "
                    f"standings give {expected}"
                )
            else:
                agreed += 1
    return f"{agreed} seeds agree with the Swiss standings"


def replay(document) -> tuple[list[RoundReport], EventData]:
    """Replay the whole file; raises UnreadableFile. Pure apart from timing."""
    event = read_event(document)
    reports = []
    swiss_rows = None
    first_cut = True
    for rnd in event.rounds:
        started = time.perf_counter()
        problems: list[str] = []
        kinds: dict[str, int] = {}
        for m in rnd.matches:
            how = adjudicate(event, rnd, m, problems)
            kinds[how] = kinds.get(how, 0) + 1
        decided = ", ".join(f"{count} {how}" for how, count in sorted(kinds.items()))
        count = len(rnd.matches)
        parts = [f"{count} match{'es' if count != 1 else ''} ({decided})"]
        if rnd.stage == "swiss":
            parts.append(check_pairing(event, rnd, problems))
            if rnd.status == "closed":
                try:
                    swiss_rows = standings_after(event, rnd.number)
                except EngineError as exc:
                    problems.append(f"the standings cannot be computed: {exc.message}")
                    swiss_rows = []
                if swiss_rows:
                    top = swiss_rows[0]
                    parts.append(
                        f"leader {_label(event, top.player)} {top.match_points} pts "
                        f"({top.wins}-{top.losses}-{top.draws})"
                    )
        elif first_cut:
            first_cut = False
            if swiss_rows is None:
                try:
                    swiss_rows = standings_after(event, rnd.number)
                except EngineError as exc:
                    problems.append(f"the standings cannot be computed: {exc.message}")
                    swiss_rows = []
            parts.append(check_seeds(event, rnd, swiss_rows, problems))
        seconds = time.perf_counter() - started
        reports.append(RoundReport(rnd.number, rnd.stage, "; ".join(parts), problems, seconds))
    return reports, event


def main(argv: Sequence[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(
        prog="python -m tournaments.engine.replay",
        description="Replay a crossover-event/1 file and check its results, standings and "
        "pairings with the engine.",
    )
    parser.add_argument("file", help="the event file (JSON)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        with open(args.file, "rb") as handle:
            document = json.load(handle)
    except OSError as exc:
        print(f"{args.file}: cannot read: {exc.strerror}", file=out)
        return EXIT_UNREADABLE
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        print(f"{args.file}: not valid JSON: {exc}", file=out)
        return EXIT_UNREADABLE
    loaded = time.perf_counter()
    try:
        reports, event = replay(document)
    except UnreadableFile as exc:
        print(f"{args.file}: {exc.where}: {exc.message}", file=out)
        return EXIT_UNREADABLE
    print(
        f"{event.name}: {len(event.usernames)} players, {len(event.rounds)} rounds, "
        f"tiebreakers {event.profile} (read in {loaded - started:.2f} s)",
        file=out,
    )
    failures = 0
    for report in reports:
        stage = "swiss" if report.stage == "swiss" else "top cut"
        verdict = "OK" if not report.problems else "DISAGREES"
        print(
            f"round {report.number} {stage}: {report.text} — {verdict} ({report.seconds:.2f} s)",
            file=out,
        )
        for problem in report.problems:
            print(f"  round {report.number}: {problem}", file=out)
        failures += len(report.problems)
    total = time.perf_counter() - started
    matches = sum(len(r.matches) for r in event.rounds)
    if failures:
        print(
            f"VERDICT: {failures} disagreement{'s' if failures != 1 else ''} "
            f"({len(reports)} rounds, {matches} matches, {total:.2f} s)",
            file=out,
        )
        return EXIT_DISAGREES
    print(
        f"VERDICT: everything agrees ({len(reports)} rounds, {matches} matches, {total:.2f} s)",
        file=out,
    )
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
