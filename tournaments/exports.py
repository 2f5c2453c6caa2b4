"""Exports of standings, pairings and decklists as CSV, JSON and XLSX (STYLE habit 7).

Three layers, each usable alone:

* **Builders** (:func:`standings_table`, :func:`pairings_table`, :func:`decklists_table`)
  read through ``tournaments.selectors`` / ``tournaments.policy`` *as the requesting
  user* and return a :class:`Table`: columns plus rows of plain values (``str``, ``int``,
  ``Decimal``, ``bool``, ``None``). A user gets exactly what the pages show them: a
  hidden event or round is a 404, decklists are only those the policy lets them see.
* **Writers** (:func:`to_csv`, :func:`to_json`, :func:`to_xlsx`) turn a table into bytes.
* **Requests** (:func:`export`, :func:`run_export_job`): a small export is built in the
  request; one with more than ``settings.EXPORT_SYNC_LIMIT`` rows (default 2,000) becomes
  an :class:`~tournaments.models.ExportJob` built by a Celery task, with progress.

Spreadsheet formula injection (OWASP "CSV injection"): a spreadsheet program evaluates a
cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, after a tab or carriage return,
what follows), so a player named ``=HYPERLINK(...)`` could run a formula on the organiser's
machine. The CSV and XLSX writers therefore prefix every *text* cell starting with one of
those characters with ``'``, the quote spreadsheets use for "this is text". Number cells
are written as numbers and never touched (``-3`` stays the number -3). The XLSX writer
also writes strings only with ``write_string`` and turns off XlsxWriter's guessing
(``strings_to_formulas`` and friends), so nothing becomes a formula or a link.

Values for people, values for programs: CSV and XLSX are read by people, so every coded
value in them (a match's status, a top-cut result, a decklist's section, yes/no) is
written in the reader's language (the request's, or the one an :class:`ExportJob` stored)
through :class:`Coded`; in English they read as the codes themselves (``confirmed``,
``main``, ``true``). JSON always carries the stable codes (and real booleans).

JSON keeps every value unchanged on purpose: it is data for programs, not a sheet. No
JSON reader evaluates formulas, and a prefixed name would be a wrong name for every
program that reads it. A program that copies JSON values into a spreadsheet must
neutralise them itself, as these writers do.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import xlsxwriter
from django.conf import settings
from django.db.models import IntegerField, Sum, Value
from django.db.models.functions import Length, Replace
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext, pgettext_lazy

from config.jobs import TRANSIENT_DB_ERRORS, retry_transient
from decks.metagame_data import resolve_decklists

from . import policy, selectors
from .models import (
    Event,
    ExportFormat,
    ExportJob,
    ExportKind,
    RegistrationStatus,
    Round,
)
from .policy import EventAccess
from .services.standings import TIEBREAK_LABELS

logger = logging.getLogger(__name__)

DEFAULT_SYNC_LIMIT = 2_000
# A worker reports its progress every so many rows (one UPDATE each time).
PROGRESS_EVERY = 200
# An unfinished job asked for again within this time is reused, not started twice.
REUSE_UNFINISHED = dt.timedelta(minutes=15)

# Text cells starting with one of these are formulas (or become one) in a spreadsheet.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# Not translated: "BYE" is what pairings show in every language, and JSON readers rely on it.
BYE = "BYE"

CONTENT_TYPES = {
    ExportFormat.CSV: "text/csv; charset=utf-8",
    ExportFormat.JSON: "application/json",
    ExportFormat.XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

Progress = Callable[[int], None]


# --- tables ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    key: str  # JSON key: stable, never translated
    label: str  # header of CSV and XLSX, in the requester's language
    decimals: int | None = None  # numbers shown with this many decimals in XLSX


@dataclass(frozen=True, slots=True)
class Coded:
    """A coded value: ``code`` in JSON, ``label`` (translated when written) in CSV/XLSX."""

    code: str
    label: object

    def __str__(self) -> str:
        return str(self.label)


# English reads as the codes; other languages translate them (context "export value").
BOOLEAN_LABELS = {
    True: pgettext_lazy("export value", "true"),
    False: pgettext_lazy("export value", "false"),
}
MATCH_STATUS_LABELS = {
    "pending": pgettext_lazy("export value", "pending"),
    "reported": pgettext_lazy("export value", "reported"),
    "confirmed": pgettext_lazy("export value", "confirmed"),
    "disputed": pgettext_lazy("export value", "disputed"),
    "final": pgettext_lazy("export value", "final"),
}
SECTION_LABELS = {
    "main": pgettext_lazy("export value", "main"),
    "side": pgettext_lazy("export value", "side"),
}
TOP_CUT_LABELS = {
    "champion": pgettext_lazy("export value", "champion"),
    "finalist": pgettext_lazy("export value", "finalist"),
    "semifinal": pgettext_lazy("export value", "semifinal"),
    "quarterfinal": pgettext_lazy("export value", "quarterfinal"),
}


def coded(code: str | None, labels: dict) -> Coded | None:
    """``code`` with its label (a code without one is its own label)."""
    if code is None or code == "":
        return None
    return Coded(code, labels.get(code, code))


def top_cut_value(code: str | None) -> Coded | None:
    if code and code not in TOP_CUT_LABELS and code.startswith("round_of_"):
        players = code.removeprefix("round_of_")
        if players.isdecimal():
            return Coded(
                code, pgettext("export value", "round_of_%(players)s") % {"players": players}
            )
    return coded(code, TOP_CUT_LABELS)


def bool_label(value: bool) -> str:
    return str(BOOLEAN_LABELS[bool(value)])


@dataclass
class Table:
    kind: str
    columns: list[Column]
    rows: list[list]
    # The JSON shape when it is not one object per row (decklists nest per player).
    records: list[dict] | None = None


def percent(value) -> Decimal | None:
    """A tiebreak fraction as a percentage with two decimals, rounded as the standings
    page rounds it (the page shows ``66.67%``; the export the number ``66.67``)."""
    return None if value is None else Decimal(f"{float(value) * 100:.2f}")


def standings_table(user, event: Event, access: EventAccess | None = None) -> Table:
    """Placing, top-cut result, Swiss rank, player, points, record W-L-D, each tiebreak
    (percent) and the dropped flag, by placing: the order of the standings page and API
    (after a top cut the bracket's players first, the champion at the top). The top-cut
    result is the API's key in JSON (``champion``, ``finalist``, ``semifinal``, …; empty
    outside the cut) and its label in the reader's language in CSV/XLSX. Two queries
    (the standings selector's)."""

    standings = selectors.standings(user, event, access)
    if standings is None:
        raise Http404
    columns = [
        Column("placing", pgettext_lazy("standings", "Place")),
        Column("top_cut_result", pgettext_lazy("standings column", "Top-cut result")),
        Column("rank", _("Swiss rank")),
        Column("player", _("Player")),
        Column("points", _("Points")),
        Column("record", _("Record")),
        *(
            Column(name, TIEBREAK_LABELS.get(name, name), decimals=2)
            for name in standings.tiebreak_names
        ),
        Column("dropped", _("Dropped")),
    ]
    rows = [
        [
            line.placing,
            top_cut_value(line.top_cut_result),
            line.rank,
            selectors.display_name(line.registration),
            line.match_points,
            f"{line.wins}-{line.losses}-{line.draws}",
            *(percent(line.tiebreakers[name]) for name in standings.tiebreak_names),
            line.dropped,
        ]
        for line in standings.rows
    ]
    return Table(ExportKind.STANDINGS, columns, rows)


def pairings_table(user, round_: Round, access: EventAccess | None = None) -> Table:
    """Table, both players ("BYE" for a bye), the record from player 1's side and the
    match status. One query."""
    columns = [
        Column("table", _("Table")),
        Column("player1", _("Player 1")),
        Column("player2", _("Player 2")),
        Column("result", _("Result")),
        Column("status", _("Status")),
    ]
    rows = [
        [
            match.table,
            selectors.display_name(match.player1),
            selectors.display_name(match.player2) or BYE,
            match.record_text,
            coded(match.status, MATCH_STATUS_LABELS),
        ]
        for match in selectors.pairings(user, round_, access)
    ]
    return Table(ExportKind.PAIRINGS, columns, rows)


def decklists_table(user, event: Event, access: EventAccess | None = None) -> Table:
    """One row per card of every decklist the user may see, counted: the card's official
    name (not the text the player typed: ``『桜庭ひかる』`` is 桜庭ひかる), its English name
    where the card pool has one, the printing's set and card number (the printing the
    player named, else the newest one), the copies (two lines of one card and printing
    add up) and the section. A line naming no known card keeps its typed text, with empty
    set and number, and "known" false. In JSON one object per player with the legality
    status and the cards. Three queries (the decklists, then the cards and printings they
    name)."""
    columns = [
        Column("player", _("Player")),
        Column("card", pgettext_lazy("export column", "Card name (Japanese)")),
        Column("card_en", pgettext_lazy("export column", "Card name (English)")),
        Column("set", pgettext_lazy("export column", "Set")),
        Column("number", _("Card number")),
        Column("count", _("Count")),
        Column("section", pgettext_lazy("decklist", "Section")),
        Column("known", pgettext_lazy("export column", "Known card")),
    ]
    registrations = list(selectors.decklist_list(user, event, access))
    resolved = resolve_decklists(
        [registration.deck_text for registration in registrations], format_id=event.format_id
    )
    rows: list[list] = []
    records: list[dict] = []
    for registration, lines in zip(registrations, resolved, strict=True):
        name = selectors.display_name(registration)
        counted: dict[tuple, dict] = {}
        for line in lines:
            identity = (line.card_id or ("?", line.name), line.set_code, line.section)
            if identity in counted:
                counted[identity]["count"] += line.count
                continue
            counted[identity] = {
                "card": line.name,
                "card_en": line.name_en,
                "set": line.set_code,
                "number": line.number,
                "count": line.count,
                "section": line.section,
                "known": line.card_id is not None,
            }
        cards = list(counted.values())
        rows.extend(
            [
                name,
                card["card"],
                card["card_en"],
                card["set"],
                card["number"],
                card["count"],
                coded(card["section"], SECTION_LABELS),
                card["known"],
            ]
            for card in cards
        )
        report = registration.deck_report or {}
        records.append(
            {
                "player": name,
                "legal": report.get("legal"),
                "main_count": report.get("main_count"),
                "sideboard_count": report.get("sideboard_count"),
                "cards": cards,
            }
        )
    return Table(ExportKind.DECKLISTS, columns, rows, records)


def build_table(
    kind: str, user, event: Event, access: EventAccess, round_: Round | None = None
) -> Table:
    if kind == ExportKind.STANDINGS:
        return standings_table(user, event, access)
    if kind == ExportKind.PAIRINGS:
        return pairings_table(user, round_, access)
    if kind == ExportKind.DECKLISTS:
        return decklists_table(user, event, access)
    raise ValueError(f"unknown export {kind!r}")


def count_rows(
    kind: str, user, event: Event, access: EventAccess, round_: Round | None = None
) -> int:
    """How many rows the export will have, at most, in one query (no rows loaded).
    Decklists count their lines (an upper bound: headings and blank lines count too)."""
    if kind == ExportKind.STANDINGS:
        return (
            policy.registrations_visible_to(user, event, access)
            .exclude(status=RegistrationStatus.WAITLISTED)
            .count()
        )
    if kind == ExportKind.PAIRINGS:
        return selectors.pairings(user, round_, access).count()
    newlines = Length("deck_text") - Length(Replace("deck_text", Value("\n"), Value("")))
    lines = (
        selectors.decklist_list(user, event, access)
        .order_by()
        .aggregate(lines=Sum(newlines + Value(1), output_field=IntegerField()))["lines"]
    )
    return lines or 0


def visible_round(user, event: Event, number: int, access: EventAccess) -> Round:
    """The round the user may see (published, or any for staff), else 404."""
    round_ = get_object_or_404(policy.rounds_visible_to(user, event, access), number=number)
    round_.event = event
    return round_


# --- writers ---------------------------------------------------------------------------


def neutralise(text: str) -> str:
    """``text`` as a spreadsheet shows it and never evaluates it (see the module doc)."""
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def _ticker(progress: Progress | None) -> Callable[[int], None]:
    def tick(done: int) -> None:
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done)

    return tick


def _csv_cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return bool_label(value)
    if isinstance(value, Coded):
        return neutralise(str(value))
    if isinstance(value, str):
        return neutralise(value)
    return str(value)  # int, Decimal: a number, never prefixed


def to_csv(table: Table, progress: Progress | None = None) -> bytes:
    """RFC 4180 CSV (CRLF line ends, fields quoted when needed, quotes doubled), UTF-8
    with a byte order mark so that Excel reads Japanese correctly."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([neutralise(str(column.label)) for column in table.columns])
    tick = _ticker(progress)
    for done, row in enumerate(table.rows, start=1):
        writer.writerow([_csv_cell(value) for value in row])
        tick(done)
    if progress is not None:
        progress(len(table.rows))
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def _json_default(value):
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Coded):
        return value.code
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def to_json(table: Table, progress: Progress | None = None) -> bytes:
    """A list of objects (keys: the columns' stable keys), UTF-8, non-ASCII kept as is.
    Values are not neutralised (see the module doc)."""
    if table.records is not None:
        records = table.records
    else:
        keys = [column.key for column in table.columns]
        records = [dict(zip(keys, row, strict=True)) for row in table.rows]
    text = json.dumps(records, ensure_ascii=False, indent=2, default=_json_default)
    if progress is not None:
        progress(len(table.rows))
    return (text + "\n").encode("utf-8")


SHEET_NAME_FORBIDDEN = str.maketrans(dict.fromkeys("[]:*?/\\", " "))


def to_xlsx(table: Table, progress: Progress | None = None) -> bytes:
    """One sheet, bold and frozen header row. Written in XlsxWriter's constant-memory
    mode: each row goes to a temporary file as soon as it is complete, so a large export
    does not hold the whole sheet in memory."""
    output = io.BytesIO()
    workbook = xlsxwriter.Workbook(
        output,
        {
            "constant_memory": True,
            # Never guess: text stays text (cells are written with write_string anyway).
            "strings_to_formulas": False,
            "strings_to_urls": False,
            "strings_to_numbers": False,
        },
    )
    sheet_name = str(ExportKind(table.kind).label).translate(SHEET_NAME_FORBIDDEN)[:31]
    sheet = workbook.add_worksheet(sheet_name)
    bold = workbook.add_format({"bold": True})
    number_formats = {
        index: workbook.add_format({"num_format": "0." + "0" * column.decimals})
        for index, column in enumerate(table.columns)
        if column.decimals
    }
    for index, column in enumerate(table.columns):
        sheet.set_column(index, index, max(10, len(str(column.label)) + 2))
        sheet.write_string(0, index, neutralise(str(column.label)), bold)
    sheet.freeze_panes(1, 0)
    tick = _ticker(progress)
    for done, row in enumerate(table.rows, start=1):
        for index, value in enumerate(row):
            if value is None:
                continue
            if isinstance(value, bool):
                label = bool_label(value)
                if label == ("true" if value else "false"):
                    sheet.write_boolean(done, index, value)  # English: a real boolean
                else:
                    sheet.write_string(done, index, label)  # はい / いいえ
            elif isinstance(value, int | float | Decimal):
                sheet.write_number(done, index, float(value), number_formats.get(index))
            else:
                sheet.write_string(done, index, neutralise(str(value)))
        tick(done)
    workbook.close()
    if progress is not None:
        progress(len(table.rows))
    return output.getvalue()


WRITERS: dict[str, Callable[[Table, Progress | None], bytes]] = {
    ExportFormat.CSV: to_csv,
    ExportFormat.JSON: to_json,
    ExportFormat.XLSX: to_xlsx,
}


# --- requests --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExportFile:
    filename: str
    content_type: str
    content: bytes
    rows: int


def filename_for(event_id: int, kind: str, file_format: str, round_number: int | None) -> str:
    if kind == ExportKind.PAIRINGS:
        return f"event-{event_id}-round-{round_number}-pairings.{file_format}"
    return f"event-{event_id}-{kind}.{file_format}"


def sync_limit() -> int:
    return int(getattr(settings, "EXPORT_SYNC_LIMIT", DEFAULT_SYNC_LIMIT))


def build_file(
    kind: str,
    file_format: str,
    user,
    event: Event,
    access: EventAccess,
    round_: Round | None = None,
    progress: Progress | None = None,
    on_rows: Callable[[int], None] | None = None,
) -> ExportFile:
    """Build the export now. ``on_rows(count)`` is called once the rows are known."""
    table = build_table(kind, user, event, access, round_)
    if on_rows is not None:
        on_rows(len(table.rows))
    content = WRITERS[file_format](table, progress)
    return ExportFile(
        filename=filename_for(event.pk, kind, file_format, round_.number if round_ else None),
        content_type=CONTENT_TYPES[file_format],
        content=content,
        rows=len(table.rows),
    )


def export(
    user,
    event: Event,
    *,
    kind: str,
    file_format: str,
    round_number: int | None = None,
    access: EventAccess | None = None,
) -> ExportFile | ExportJob:
    """The export of ``kind`` as ``file_format`` for ``user`` (who may see ``event``):
    the file itself, or, beyond :func:`sync_limit` rows, the :class:`ExportJob` that will
    build it (queued once the current transaction commits; see :func:`start_export_job`).

    A fixed number of queries whatever the size. Raises Http404 (a round the user may not
    see) or NotAllowed ``login_required`` (a background export needs a signed-in
    requester: only they may fetch the file).
    """
    access = access or policy.access_for(user, event)
    round_ = None
    if kind == ExportKind.PAIRINGS:
        round_ = visible_round(user, event, round_number, access)
    rows = count_rows(kind, user, event, access, round_)
    if rows > sync_limit():
        policy.require(
            user is not None and user.is_authenticated,
            "login_required",
            f"sign in to export more than {sync_limit()} rows",
        )
        return start_export_job(
            user,
            event,
            kind=kind,
            file_format=file_format,
            round_number=round_.number if round_ else None,
            estimated_rows=rows,
        )
    return build_file(kind, file_format, user, event, access, round_)


def start_export_job(
    user,
    event: Event,
    *,
    kind: str,
    file_format: str,
    round_number: int | None = None,
    estimated_rows: int = 0,
) -> ExportJob:
    """Create the job and queue its task once this transaction commits (without a broker
    the task runs right then, in-process). The same export asked for again while the
    user's job is still unfinished returns that job instead of starting another.

    Side effects: an ExportJob row; a ``tournaments.build_export`` task.
    """
    from .tasks import build_export

    unfinished = (
        export_jobs_visible_to(user)
        .filter(
            event=event,
            created_by=user,
            kind=kind,
            file_format=file_format,
            round_number=round_number,
            status__in=(ExportJob.Status.PENDING, ExportJob.Status.RUNNING),
            created_at__gte=timezone.now() - REUSE_UNFINISHED,
        )
        .first()
    )
    if unfinished is not None:
        return unfinished
    job = ExportJob.objects.create(
        event=event,
        kind=kind,
        file_format=file_format,
        round_number=round_number,
        language=translation.get_language() or settings.LANGUAGE_CODE,
        filename=filename_for(event.pk, kind, file_format, round_number),
        total=estimated_rows,
        created_by=user,
    )
    build_export.delay_on_commit(job_id=job.pk)
    return job


def run_export_job(job_id: int) -> ExportJob | None:
    """Build a job's file as its requester may see the data *now* (the policy decides
    again in the worker), recording progress and the outcome on the job.

    Exactly once: building only reads (beating the job's heartbeat every
    ``PROGRESS_EVERY`` rows), and the file is stored with the job's outcome in one
    transaction (:meth:`~config.jobs.TrackedJob.finish`). A worker that dies mid-way
    stores nothing; the next delivery of the task builds the file again, and a delivery
    after the job finished does nothing (returns ``None``). Side effects: the job's
    status, progress, file and error.
    """
    what = f"export job {job_id}"
    if not retry_transient(lambda: ExportJob.claim(job_id), what=what):
        logger.info("export job %s is finished, gone or another worker's", job_id)
        return None
    job = retry_transient(
        lambda: ExportJob.objects.select_related("created_by").defer("content").get(pk=job_id),
        what=what,
    )

    def attempt() -> None:
        user = job.created_by
        event = policy.events_visible_to(user).filter(pk=job.event_id).first()
        if event is None:
            raise Http404("the event is no longer visible to the requester")
        access = policy.access_for(user, event)
        round_ = None
        if job.kind == ExportKind.PAIRINGS:
            round_ = visible_round(user, event, job.round_number, access)
        with translation.override(job.language or settings.LANGUAGE_CODE):
            built = build_file(
                job.kind,
                job.file_format,
                user,
                event,
                access,
                round_,
                progress=lambda done: ExportJob.report_progress(job_id, done),
                on_rows=lambda rows: ExportJob.report_progress(job_id, 0, rows),
            )
        job.finish(
            ExportJob.Status.DONE,
            content=built.content,
            filename=built.filename,
            done=built.rows,
            total=built.rows,
            error="",
        )

    try:
        # A database error that is not the data's is tried again (the file is built
        # anew), and one that persists gives the job back to the watchdog.
        retry_transient(attempt, what=what)
    except TRANSIENT_DB_ERRORS as exc:
        logger.exception("export job %s: the database failed on every try", job_id)
        job.release(exc)
    except Http404 as exc:
        job.finish(ExportJob.Status.FAILED, error=f"not visible: {exc}")
    except Exception as exc:
        # Not the data's fault (a bug, a database error that is not a blip): the job must
        # not stay "running" for ever, so it ends failed with the reason kept for the admin.
        logger.exception("export job %s crashed", job_id)
        job.finish(ExportJob.Status.FAILED, error=f"internal error: {exc!r}")
    return job


def export_jobs_visible_to(user):
    """Jobs the user may see and download: their own, of events they may still see;
    superusers every job. Without the file's bytes (load them only to download)."""
    jobs = ExportJob.objects.defer("content")
    if user is None or not user.is_authenticated:
        return jobs.none()
    if user.is_superuser:
        return jobs
    return jobs.filter(created_by=user, event__in=policy.events_visible_to(user))


def job_file(job: ExportJob) -> ExportFile:
    """The finished job's file (one query for the bytes)."""
    content = ExportJob.objects.filter(pk=job.pk).values_list("content", flat=True).get()
    return ExportFile(
        filename=job.filename,
        content_type=CONTENT_TYPES[job.file_format],
        content=bytes(content or b""),
        rows=job.total,
    )
