"""``manage.py export_event EVENT OUT.json [--private]``: write an event file.

``EVENT`` is the event's id or its uid. The file is ``crossover-event/1``
(docs/event-file.md); ``--private`` adds the users' e-mail addresses.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.event_file import export_event
from tournaments.models import Event


def find_event(reference: str) -> Event:
    try:
        lookup = {"uid": uuid.UUID(reference)} if "-" in reference else {"pk": int(reference)}
    except ValueError:
        raise CommandError(f"{reference!r} is neither an event id nor an event uid") from None
    event = Event.objects.filter(**lookup).first()
    if event is None:
        raise CommandError(f"There is no event {reference}.")
    return event


class Command(BaseCommand):
    help = "Write an event as a crossover-event/1 JSON file (docs/event-file.md)."

    def add_arguments(self, parser):
        parser.add_argument("event", help="the event's id or uid")
        parser.add_argument("out", help="the JSON file to write ('-' for standard output)")
        parser.add_argument(
            "--private", action="store_true", help="include the users' e-mail addresses"
        )
        parser.add_argument(
            "--indent",
            type=int,
            default=None,
            help="indent the JSON by this many spaces (default: compact, about half the size)",
        )

    def handle(self, *args, event, out, private, indent, **options):
        document = export_event(find_event(event), include_private=private)
        separators = (",", ":") if indent is None else None
        text = json.dumps(document, ensure_ascii=False, indent=indent, separators=separators)
        text += "\n"
        if out == "-":
            self.stdout.write(text, ending="")
            return
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{out}: cannot write: {exc.strerror}") from None
        self.stdout.write(
            f"Wrote {out}: {len(document['registrations'])} registrations, "
            f"{len(document['rounds'])} rounds, {len(text.encode()):,} bytes."
        )
