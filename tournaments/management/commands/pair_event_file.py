"""``manage.py pair_event_file EVENT.json OUT.json``: pair the next round of an event file.

Reads a ``swiss-event/1`` file (the shared pairing benchmark's format), pairs its next round
with the engine and writes ``swiss-pairing/1``. ``pair_seconds`` is the time to read the
file and pair; ``total_seconds`` is the whole command as seen by the operating system
(process start to the written file, Django start-up included) where /proc tells the
process start time, otherwise from the start of the command's own work.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.engine.errors import EngineError
from tournaments.engine.eventfile import (
    PEER_NAME,
    EventFileError,
    describe_objective,
    pairing_document,
    read_and_pair,
    write_pairing_file,
)


def _process_age_seconds() -> float | None:
    """Seconds since this process started, from /proc (Linux); None elsewhere."""
    try:
        with open(f"/proc/{os.getpid()}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of stat(5); two fields precede this slice
        ticks_per_second = os.sysconf("SC_CLK_TCK")
        return time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / ticks_per_second
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class Command(BaseCommand):
    help = (
        "Pair the next Swiss round of a swiss-event/1 JSON file and write it as "
        "swiss-pairing/1 JSON (the shared pairing benchmark's formats)."
    )

    def add_arguments(self, parser):
        parser.add_argument("event", type=Path, help="swiss-event/1 file to read")
        parser.add_argument("output", type=Path, help="swiss-pairing/1 file to write")

    def handle(self, *args, event: Path, output: Path, **options):
        started = time.perf_counter()
        age_at_start = _process_age_seconds()
        try:
            swiss_event, pairing, pair_seconds = read_and_pair(event)
        except EventFileError as exc:
            raise CommandError(exc.message) from None
        except EngineError as exc:
            raise CommandError(f"{event}: cannot pair: {exc.message}") from None
        document = pairing_document(
            swiss_event,
            pairing,
            pair_seconds=pair_seconds,
            total_seconds=0.0,
            notes=describe_objective(pairing),
        )
        try:
            write_pairing_file(output, document)
            elapsed = time.perf_counter() - started
            total = elapsed + age_at_start if age_at_start is not None else elapsed
            document["total_seconds"] = round(total, 6)
            write_pairing_file(output, document)
        except OSError as exc:
            raise CommandError(f"{output}: cannot write: {exc.strerror}") from None
        objective = pairing.objective
        self.stdout.write(
            f"{event.name}: round {pairing.round_number}, {len(swiss_event.players)} players, "
            f"{len(pairing.tables)} tables"
            + (f", bye {pairing.bye!r}" if pairing.bye is not None else "")
            + f"; rematches {objective.rematches}, floats {objective.floats}, "
            f"score-gap sum {objective.score_gap_sum} ({pairing.proof}); "
            f"pair {pair_seconds:.3f} s; wrote {output} as {PEER_NAME}"
        )
