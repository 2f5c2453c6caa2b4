"""What an event file may cost (issue #21): the issue's 64 MB file, and the largest file
the limits accept, through the same requests as a browser or an API client.

    .venv/bin/python bench/event_file_limits.py [--base FILE] [--players 512] [--rounds 9]
        [--events 1] [--keep]

1. The issue's file: a played event's file with 8 decklists of 6.4 MB (64 MB in all),
   sent as the API's JSON body (``POST /api/v1/event-files/``), uploaded on the import
   page, and given to ``manage.py import_event``: the time to its refusal, and that
   nothing was written.
2. The largest accepted file: the same event (a new uid, its decklists public) with as
   many decklists as fit padded to the longest a decklist may be (legal, each its own:
   lines ``1 スワティ``), up to the decklist line total and the file size: imported by an
   ordinary user through the API (``--events`` times, each a new event), then the public
   event file (``GET /events/<id>/event-file/``, anonymous: its size and time), the
   event's metagame page and the format's (``/decks/formats/crossover/metagame/``),
   each built from nothing (the cache cleared first).

The base event is ``--base`` (an event file of bench/event_file.py, whose card pool this
builds too) or built here like bench/event_file.py (``--players``, ``--rounds``). The load
average is printed before and after. Database: a new SQLite file, or with
``DATABASE_URL=postgres://…`` a scratch database on that server (never the named one).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

PADDING_LINE = "1 スワティ\n"  # スワティ is unlimited in the bench pool: the list stays legal


def loadavg() -> str:
    with open("/proc/loadavg") as handle:
        return handle.read().strip()


def timed(label: str, function):
    started, cpu = time.perf_counter(), time.process_time()
    value = function()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"{label:<44} {wall:8.3f} s  (CPU {cpu:.3f} s)")
    return value


def encoded(document: dict) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def base_document(args, fmt) -> dict:
    if args.base:
        return json.loads(Path(args.base).read_text(encoding="utf-8"))
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from event_file import build_played_event, remove_event_and_people

    from tournaments.event_file import export_event

    user_model = get_user_model()
    organizer = user_model.objects.create_user("organizer")
    unusable = make_password(None)
    players = user_model.objects.bulk_create(
        user_model(username=f"player{n:04d}", password=unusable) for n in range(1, args.players + 1)
    )
    event = timed(
        f"build a {args.players}-player, {args.rounds}-round event",
        lambda: build_played_event(fmt, organizer, players, rounds=args.rounds, bulk_results=True),
    )
    document = json.loads(json.dumps(export_event(event)))
    remove_event_and_people(event)
    return document


def issue_file(document: dict) -> dict:
    """The issue's file: 64 MB, 8 decklists making up the bulk of it."""
    bad = copy.deepcopy(document)
    bad["event"]["uid"] = str(uuid.uuid4())
    each = (64_000_000 - len(encoded(bad))) // 8
    big = PADDING_LINE * (each // len(PADDING_LINE.encode()))
    for row in bad["registrations"][:8]:
        row["decklist"]["text"] = big
    return bad


def largest_file(document: dict) -> tuple[dict, int]:
    """``document`` with as many decklists as fit padded to the longest a decklist may be."""
    from tournaments.event_file.limits import DECKLIST_CHARS, DECKLIST_LINES, FILE_BYTES

    big = copy.deepcopy(document)
    big["event"]["uid"] = str(uuid.uuid4())
    big["event"]["decklists_public_from"] = "2026-01-01T00:00:00+00:00"
    size = len(encoded(big))
    lines = sum(
        row["decklist"]["text"].count("\n") + 1 for row in big["registrations"] if row["decklist"]
    )
    padded = 0
    for number, row in enumerate(big["registrations"]):
        # Each list its own (the metagame reads every distinct list), and legal.
        first = f"{number + 2} スワティ\n"
        padded_text = first + PADDING_LINE * ((DECKLIST_CHARS - len(first)) // len(PADDING_LINE))
        old = row["decklist"]["text"]
        grow = len(padded_text.encode()) - len(old.encode())
        more_lines = padded_text.count("\n") - old.count("\n")
        if size + grow > FILE_BYTES or lines + more_lines > DECKLIST_LINES:
            break
        row["decklist"]["text"] = padded_text
        size += grow
        lines += more_lines
        padded += 1
    return big, padded


def run(args) -> int:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.core.management.base import CommandError
    from django.test import Client
    from event_4096 import build_card_pool

    from tournaments.event_file.limits import DECKLIST_CHARS, DECKLIST_LINES, FILE_BYTES
    from tournaments.models import Event, Registration

    # Pages name their static files by plain name (no collectstatic manifest needed).
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    call_command("migrate", verbosity=0)
    fmt = build_card_pool()
    document = base_document(args, fmt)
    user_model = get_user_model()
    importer = user_model.objects.create_user("importer", password="bench-importer")
    client = Client()
    client.force_login(importer)
    print(f"load average before: {loadavg()}")
    print(
        f"limits: file {FILE_BYTES:,} bytes, decklist {DECKLIST_CHARS:,} characters, "
        f"{DECKLIST_LINES:,} decklist lines a file"
    )

    def written() -> tuple[int, int, int]:
        return Event.objects.count(), user_model.objects.count(), Registration.objects.count()

    # 1. The issue's file.
    raw = encoded(issue_file(document))
    print(f"the issue's file: {len(raw):,} bytes ({len(raw) / 2**20:.1f} MiB)")
    before = written()
    response = timed(
        "refused: API JSON body",
        lambda: client.post("/api/v1/event-files/", raw, content_type="application/json"),
    )
    print(f"  {response.status_code} {json.loads(response.content)}")
    response = timed(
        "refused: import page upload",
        lambda: client.post(
            "/events/import/",
            {"file": SimpleUploadedFile("event.json", raw, content_type="application/json")},
        ),
    )
    refusal = "The file is larger than" in response.content.decode()
    print(f"  {response.status_code}, the page says the file is too large: {refusal}")
    with tempfile.NamedTemporaryFile(suffix=".json") as handle:
        handle.write(raw)
        handle.flush()

        def command():
            try:
                call_command("import_event", handle.name)
            except CommandError as error:
                return str(error)
            return "imported?!"

        print("  " + timed("refused: manage.py import_event", command))
    assert written() == before, (written(), before)
    print("  nothing written")
    del raw

    # 2. The largest accepted file.
    big, padded = largest_file(document)
    raw = encoded(big)
    lines = sum(r["decklist"]["text"].count("\n") for r in big["registrations"] if r["decklist"])
    print(
        f"largest accepted file: {len(raw):,} bytes ({len(raw) / 2**20:.2f} MiB), "
        f"{len(big['registrations'])} registrations, {padded} decklists of "
        f"{DECKLIST_CHARS:,} characters, {lines:,} decklist lines"
    )
    events = []
    for number in range(args.events):
        if number:
            big["event"]["uid"] = str(uuid.uuid4())
            raw = encoded(big)
        response = timed(
            f"import #{number + 1} (API JSON body)",
            lambda raw=raw: client.post(
                "/api/v1/event-files/", raw, content_type="application/json"
            ),
        )
        body = json.loads(response.content)
        assert response.status_code == 201, (response.status_code, str(body)[:2000])
        events.append(body["event"])
        print(f"  counts {body['counts']}")
    anonymous = Client()
    event_id = events[0]
    cache.clear()
    response = timed(
        "public event file (anonymous)",
        lambda: anonymous.get(f"/events/{event_id}/event-file/"),
    )
    assert response.status_code == 200, response.status_code
    print(f"  {len(response.content):,} bytes ({len(response.content) / 2**20:.2f} MiB)")
    cache.clear()
    response = timed("event metagame page", lambda: anonymous.get(f"/events/{event_id}/metagame/"))
    assert response.status_code == 200, response.status_code
    cache.clear()
    response = timed(
        f"format metagame page ({len(events)} imported events)",
        lambda: anonymous.get("/decks/formats/crossover/metagame/"),
    )
    assert response.status_code == 200, response.status_code
    print(f"load average after: {loadavg()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="an event file of bench/event_file.py to start from")
    parser.add_argument("--players", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--events", type=int, default=1, help="imports of the largest file")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = parser.parse_args(argv)

    from event_4096 import configure_django, scratch_database

    scratch = scratch_database()
    try:
        configure_django(scratch)
        return run(args)
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep:
            print(f"kept the scratch database: {scratch.url}")
        else:
            scratch.drop()


if __name__ == "__main__":
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    sys.exit(main())
