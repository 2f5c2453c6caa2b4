"""Pair every shared benchmark event and score the result like ``check_pairing.py``.

Run: ``.venv/bin/python bench/pairing.py [--events DIR]``

``DIR`` defaults to ``../shared/bench/pairing/events`` next to the repository. For each
``*.json`` event the engine reads the file and pairs the next round in this process
(``pair s`` = read + pair, as ``manage.py pair_event_file`` reports it); the pairing is then
scored by ``check_pairing.check`` imported from the folder above the events, and compared
with ``best_peer.json`` there. Exit status: 0 if every event is valid and no worse than the
best peer, 1 otherwise, 2 if the events folder is missing.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tournaments.engine.eventfile import pairing_document, read_and_pair  # noqa: E402

DEFAULT_EVENTS = REPO.parent / "shared" / "bench" / "pairing" / "events"
TIME_TARGET_SECONDS = 1.0


def _player_count(path: Path) -> tuple[int, str]:
    match = re.match(r"n(\d+)_", path.name)
    return (int(match.group(1)) if match else 0, path.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=Path, default=DEFAULT_EVENTS)
    args = parser.parse_args(argv)
    events_dir: Path = args.events
    if not events_dir.is_dir():
        print(f"events folder not found: {events_dir}", file=sys.stderr)
        return 2
    tools_dir = events_dir.parent
    if not (tools_dir / "check_pairing.py").is_file():
        print(f"check_pairing.py not found in {tools_dir}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(tools_dir))
    check_pairing = importlib.import_module("check_pairing")
    eventlib = importlib.import_module("eventlib")
    best_path = tools_dir / "best_peer.json"
    best_peer = json.loads(best_path.read_text()) if best_path.is_file() else {}

    events = sorted(events_dir.glob("*.json"), key=_player_count)
    if not events:
        print(f"no *.json events in {events_dir}", file=sys.stderr)
        return 2
    print(f"events: {events_dir}")
    print()
    print(
        "| event | players | pair s | rematches | bye ok | score-gap sum | best peer's "
        "gap sum | floats (bound) | proof | verdict |"
    )
    print("|---|---:|---:|---:|---|---:|---:|---:|---|---|")
    failures = 0
    for path in events:
        name = path.stem
        event, pairing, seconds = read_and_pair(path)
        document = pairing_document(event, pairing, pair_seconds=seconds, total_seconds=seconds)
        score = check_pairing.check(eventlib.load_event(str(path)), document)
        best = best_peer.get(name)
        problems = []
        if not score["valid"]:
            problems.append("INVALID")
        if best is not None and score["score_diff_sum"] > best:
            problems.append("worse than peer")
        if len(event.players) >= 16_384 and seconds > TIME_TARGET_SECONDS:
            problems.append("over 1 s")
        failures += bool(problems)
        proof = pairing.proof + (
            f" ({pairing.solver_vertices} v.)" if pairing.solver_vertices else ""
        )
        print(
            f"| {name} | {score['n_active']:,} | {seconds:.3f} | {score['rematches']} | "
            f"{'yes' if score['bye_ok'] else 'NO'} | {score['score_diff_sum']} | "
            f"{best if best is not None else '–'} | {pairing.objective.floats} "
            f"({pairing.lower_bound.floats}) | {proof} | {', '.join(problems) or 'ok'} |"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
