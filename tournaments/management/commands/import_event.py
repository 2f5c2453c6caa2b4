"""``manage.py import_event FILE``: recreate an event from its event file.

Refuses a file with problems (all of them listed, each with its JSON path; exit status 1)
and then writes nothing: NUL (U+0000) anywhere in it too, as on the pages and the API.
A file whose event uid exists here replaces that event's contents (docs/event-file.md,
"Importing").
"""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError

from tournaments.event_file import EventFileRejected, import_event, read_document
from tournaments.event_file.limits import file_size_problem


class Command(BaseCommand):
    help = "Create (or update) an event from a crossover-event/1 JSON file."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the event file")

    def handle(self, *args, file, **options):
        try:
            with open(file, "rb") as handle:
                # Refused by its size before it is read (event_file/limits.py).
                problem = file_size_problem(os.fstat(handle.fileno()).st_size)
                if problem is not None:
                    raise CommandError(f"{file}: refused, nothing imported: {problem}")
                raw = handle.read()
        except OSError as exc:
            raise CommandError(f"{file}: cannot read: {exc.strerror}") from None
        # The pages' and the API's reading: UTF-8, no NUL byte (its line and column), JSON.
        document, problems = read_document(raw)
        if problems:
            raise CommandError(f"{file}: not valid JSON: {problems[0]}") from None
        try:
            outcome = import_event(document)
        except EventFileRejected as exc:
            lines = [f"{file}: refused, nothing imported ({len(exc.problems)} problems):"]
            lines += [f"  {problem}" for problem in exc.problems]
            raise CommandError("\n".join(lines)) from None
        event = outcome.event
        verb = "Created" if outcome.created else "Replaced"
        counts = ", ".join(f"{name.replace('_', ' ')} {n}" for name, n in outcome.counts.items())
        self.stdout.write(f"{verb} event {event.pk} ({event.name}, uid {event.uid}): {counts}.")
        if outcome.users_created:
            self.stdout.write(
                f"{len(outcome.users_created)} inactive placeholder accounts were created "
                "(a site administrator activates one when its player claims it)."
            )
