"""Reading ``swiss-event/1`` files and writing ``swiss-pairing/1`` files.

These are the exchange formats of the shared pairing benchmark (its README describes
them): an event after some completed Swiss rounds, and the pairings of the next round.
Reading is one ``json.load`` followed by a single pass over players and matches that
checks exactly the fields it uses; a problem raises :class:`EventFileError` naming the
file and the field (``players[12].id``, ``matches[40].result``).
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import EngineError
from .swiss import (
    BYE_POINTS,
    DRAW_POINTS,
    LOSS_POINTS,
    WIN_POINTS,
    RoundPairing,
    SwissPlayer,
    pair_round,
)

EVENT_SCHEMA = "swiss-event/1"
PAIRING_SCHEMA = "swiss-pairing/1"
PEER_NAME = "crossover-tournaments"


class EventFileError(EngineError):
    """A ``swiss-event/1`` file cannot be used; ``field`` says where."""

    def __init__(self, path: str | Path, field: str, message: str) -> None:
        super().__init__("bad_event_file", f"{path}: {field}: {message}")
        self.path = str(path)
        self.field = field


@dataclass(frozen=True, slots=True)
class SwissEvent:
    """What the pairer needs from an event file: the pool of the next round."""

    path: str
    next_round: int
    seed: int | str
    players: tuple[SwissPlayer, ...]


def _int_field(path, field, value, *, minimum=None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EventFileError(path, field, f"expected a whole number, got {value!r}")
    if minimum is not None and value < minimum:
        raise EventFileError(path, field, f"must be at least {minimum}, got {value}")
    return value


def read_swiss_event(path: str | Path) -> SwissEvent:
    """Read an event file; points, opponents and byes are recomputed from its matches."""
    try:
        with open(path, "rb") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise EventFileError(path, "(file)", f"cannot read: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise EventFileError(path, "(file)", f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise EventFileError(path, "(top level)", "expected a JSON object")
    if data.get("schema", EVENT_SCHEMA) != EVENT_SCHEMA:
        raise EventFileError(path, "schema", f"expected {EVENT_SCHEMA!r}, got {data['schema']!r}")
    meta = data.get("meta")
    if not isinstance(meta, dict):
        raise EventFileError(path, "meta", "missing or not an object")
    next_round = _int_field(path, "meta.next_round", meta.get("next_round"), minimum=1)
    seed = meta.get("seed", 0)
    if not isinstance(seed, int | str) or isinstance(seed, bool):
        raise EventFileError(path, "meta.seed", f"expected a number or text, got {seed!r}")
    scoring = {"win": WIN_POINTS, "draw": DRAW_POINTS, "loss": LOSS_POINTS, "bye": BYE_POINTS}
    given = meta.get("scoring", {})
    if not isinstance(given, dict):
        raise EventFileError(path, "meta.scoring", "expected an object")
    for key in scoring:
        if key in given:
            scoring[key] = _int_field(path, f"meta.scoring.{key}", given[key], minimum=0)
    win, draw, loss, bye_points = scoring["win"], scoring["draw"], scoring["loss"], scoring["bye"]

    raw_players = data.get("players")
    if not isinstance(raw_players, list):
        raise EventFileError(path, "players", "missing or not a list")
    raw_matches = data.get("matches")
    if not isinstance(raw_matches, list):
        raise EventFileError(path, "matches", "missing or not a list")

    ids: list = []
    active: list[bool] = []
    stated_points: list = []
    index: dict = {}
    for k, row in enumerate(raw_players):
        try:
            pid = row["id"]
        except (KeyError, TypeError):
            raise EventFileError(path, f"players[{k}].id", "missing") from None
        if not isinstance(pid, int | str) or isinstance(pid, bool):
            raise EventFileError(path, f"players[{k}].id", f"expected a number or text: {pid!r}")
        if pid in index:
            raise EventFileError(path, f"players[{k}].id", f"duplicate id {pid!r}")
        is_active = row.get("active", True)
        if not isinstance(is_active, bool):
            raise EventFileError(
                path, f"players[{k}].active", f"expected true/false: {is_active!r}"
            )
        index[pid] = k
        ids.append(pid)
        active.append(is_active)
        stated_points.append(row.get("match_points"))

    count = len(ids)
    points = [0] * count
    opponents: list[list] = [[] for _ in range(count)]
    had_bye = [False] * count
    for k, row in enumerate(raw_matches):
        try:
            a, b, result = row["p1"], row["p2"], row["result"]
        except (KeyError, TypeError) as exc:
            raise EventFileError(path, f"matches[{k}]", f"missing field {exc}") from None
        ia = index.get(a)
        if ia is None:
            raise EventFileError(path, f"matches[{k}].p1", f"unknown player {a!r}")
        if b is None or result == "bye":
            if b is not None or result != "bye":
                raise EventFileError(path, f"matches[{k}]", "a bye needs p2 null and result 'bye'")
            points[ia] += bye_points
            had_bye[ia] = True
            continue
        ib = index.get(b)
        if ib is None:
            raise EventFileError(path, f"matches[{k}].p2", f"unknown player {b!r}")
        if ia == ib:
            raise EventFileError(path, f"matches[{k}]", f"player {a!r} paired with itself")
        opponents[ia].append(b)
        opponents[ib].append(a)
        if result == "p1":
            points[ia] += win
            points[ib] += loss
        elif result == "p2":
            points[ib] += win
            points[ia] += loss
        elif result == "draw":
            points[ia] += draw
            points[ib] += draw
        else:
            raise EventFileError(
                path, f"matches[{k}].result", f"expected p1, p2, draw or bye, got {result!r}"
            )
    players = []
    for k in range(count):
        stated = stated_points[k]
        if stated is not None and stated != points[k]:
            raise EventFileError(
                path,
                f"players[{k}].match_points",
                f"{stated!r} but the matches give {points[k]}",
            )
        if active[k]:
            players.append(SwissPlayer(ids[k], points[k], frozenset(opponents[k]), had_bye[k]))
    return SwissEvent(path=str(path), next_round=next_round, seed=seed, players=tuple(players))


@contextmanager
def _cyclic_gc_paused():
    """Pause the cyclic garbage collector (it is re-enabled if it was on).

    Reading a large event allocates hundreds of thousands of small containers, none of
    them cyclic garbage; in a process that already holds a big heap (Django loaded) the
    collector's full passes over that heap cost a third of the time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_and_pair(path: str | Path) -> tuple[SwissEvent, RoundPairing, float]:
    """Read an event file and pair its next round; returns the seconds both took."""
    started = time.perf_counter()
    with _cyclic_gc_paused():
        event = read_swiss_event(path)
        pairing = pair_round(event.players, round_number=event.next_round, seed=event.seed)
    return event, pairing, time.perf_counter() - started


def pairing_document(
    event: SwissEvent,
    pairing: RoundPairing,
    *,
    pair_seconds: float,
    total_seconds: float,
    notes: str = "",
) -> dict:
    """The ``swiss-pairing/1`` document for a round (tables in order, the bye last)."""
    rows: list[dict] = [{"p1": t.player1, "p2": t.player2} for t in pairing.tables]
    if pairing.bye is not None:
        rows.append({"p1": pairing.bye, "p2": None})
    return {
        "schema": PAIRING_SCHEMA,
        "peer": PEER_NAME,
        "event": event.path,
        "round": pairing.round_number,
        "pairings": rows,
        "pair_seconds": round(pair_seconds, 6),
        "total_seconds": round(total_seconds, 6),
        "notes": notes,
    }


def describe_objective(pairing: RoundPairing) -> str:
    """One line for the ``notes`` field: the objective, the bound and the proof used."""
    o, b = pairing.objective, pairing.lower_bound
    return (
        f"objective rematches={o.rematches} second_byes={o.second_byes} "
        f"bye_groups_skipped={o.bye_groups_skipped} floats={o.floats} "
        f"score_gap_sum={o.score_gap_sum}; counting bound floats={b.floats} "
        f"score_gap_sum={b.score_gap_sum}; optimal by {pairing.proof}"
        + (f" ({pairing.solver_vertices} vertices)" if pairing.solver_vertices else "")
    )


def write_pairing_file(path: str | Path, document: dict) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, separators=(",", ":"))
        handle.write("\n")


def tables_as_pairs(pairing: RoundPairing) -> Sequence[tuple]:
    """``[(p1, p2), …]`` with ``(bye, None)`` last: handy for scoring and tests."""
    pairs = [(t.player1, t.player2) for t in pairing.tables]
    if pairing.bye is not None:
        pairs.append((pairing.bye, None))
    return pairs
