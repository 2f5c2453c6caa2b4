"""Time the standings of a synthetic 10,000-player, 10-round event (target ≤ 0.2 s).

Run: ``.venv/bin/python bench/standings.py [--players N] [--rounds R] [--seed S]``

The event is built deterministically (``random.Random(seed)``): round 1 random, later
rounds paired by match points (adjacent players of the sorted list; rematches are allowed,
they do not matter for timing), best-of-three records drawn from the valid ones, an odd
player count with a bye to the last player, and 1 % of players dropping after each round.
Only ``compute_standings`` is timed (best of 5), for both tiebreak profiles; then one
player's explanation is timed too.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.engine.games import MatchRecord
from tournaments.engine.standings import ReportedMatch, compute_standings

RECORDS = [
    (MatchRecord(2, 0), 30),
    (MatchRecord(2, 1), 25),
    (MatchRecord(0, 2), 20),
    (MatchRecord(1, 2), 15),
    (MatchRecord(1, 1, 1), 4),
    (MatchRecord(1, 0, 1), 3),
    (MatchRecord(2, 0, 1), 1),
    (MatchRecord(0, 0, 3), 2),
]


def build_event(players: int, rounds: int, seed: int):
    rng = random.Random(seed)
    ids = list(range(1, players + 1))
    points = dict.fromkeys(ids, 0)
    active = list(ids)
    dropped: set[int] = set()
    matches: list[ReportedMatch] = []
    records, weights = zip(*RECORDS, strict=True)
    for rnd in range(1, rounds + 1):
        pool = list(active)
        rng.shuffle(pool)
        if rnd > 1:
            pool.sort(key=lambda p: -points[p])
        if len(pool) % 2:
            bye = pool.pop()
            matches.append(ReportedMatch(rnd, bye, None))
            points[bye] += 3
        drawn = rng.choices(records, weights=weights, k=len(pool) // 2)
        for k in range(0, len(pool), 2):
            a, b = pool[k], pool[k + 1]
            record = drawn[k // 2]
            matches.append(ReportedMatch(rnd, a, b, record))
            pa, pb = record.match_points()
            points[a] += pa
            points[b] += pb
        for p in list(active):
            if rng.random() < 0.01:
                active.remove(p)
                dropped.add(p)
    return ids, matches, dropped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_001)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    ids, matches, dropped = build_event(args.players, args.rounds, args.seed)
    built = time.perf_counter() - started
    print(
        f"synthetic event: {len(ids):,} players, {args.rounds} rounds, {len(matches):,} "
        f"matches (incl. byes), {len(dropped)} dropped; built in {built:.2f} s"
    )
    print()
    print("| profile | best of 5 (s) | all 5 runs (s) | target | verdict |")
    print("|---|---|---|---|---|")
    for profile in ("mtr", "pokemon"):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            standings = compute_standings(ids, matches, dropped=dropped, profile=profile)
            times.append(time.perf_counter() - start)
        best = min(times)
        runs = ", ".join(f"{t:.3f}" for t in times)
        verdict = "ok" if best <= 0.2 else "SLOW"
        print(f"| {profile} | {best:.3f} | {runs} | ≤ 0.2 | {verdict} |")
        leader = standings.rows[0]
        start = time.perf_counter()
        explanation = standings.explain(leader.player)
        explain_time = time.perf_counter() - start
        figures = ", ".join(f"{name} {float(value):.4f}" for name, value in explanation.tiebreakers)
        print(
            f"|   leader {leader.player}: {leader.match_points} pts, {figures}; "
            f"explained in {explain_time * 1000:.2f} ms | | | | |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
