"""Writes to the card pool. Every function here is the one way to make its change."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import gettext as _

from config.jobs import TRANSIENT_DB_ERRORS, retry_transient

from .importing import (
    CARD_FIELDS,
    PRINTING_FIELDS,
    REQUIRED,
    ImportRejected,
    RowError,
    clean_rows,
    read_table,
    set_lookup_key,
)
from .merging import written_bare
from .models import Card, CardSet, CardType, Game, ImportJob, Printing
from .names import bare_name, is_common, search_key

logger = logging.getLogger(__name__)


@dataclass
class ImportSummary:
    rows: int = 0
    cards_created: int = 0
    cards_updated: int = 0
    cards_unchanged: int = 0
    printings_created: int = 0
    printings_updated: int = 0
    printings_unchanged: int = 0
    errors: list[RowError] = field(default_factory=list)
    # Rows that were imported but that the organizer should look at (a name written
    # another way than the stored card's, a questionable "any number of copies" flag).
    notes: list[RowError] = field(default_factory=list)

    def as_dict(self) -> dict:
        data = {key: value for key, value in vars(self).items() if key not in ("errors", "notes")}
        data["errors"] = [error.as_dict() for error in self.errors]
        data["notes"] = [note.as_dict() for note in sorted(self.notes)]
        return data


def set_index(game: Game) -> dict[str, int]:
    """Map every code, name and alias of the game's sets (search-folded) to the set id."""
    index: dict[str, int] = {}
    for card_set in CardSet.objects.filter(game=game).only("id", "code", "name", "aliases"):
        for label in (card_set.code, card_set.name, *card_set.aliases):
            index.setdefault(set_lookup_key(label), card_set.id)
    return index


def import_cards(
    data: bytes,
    *,
    game: Game,
    filename: str = "",
    required: Iterable[str] = REQUIRED,
    progress: Callable[[int, int], None] | None = None,
) -> ImportSummary:
    """Import a CSV or JSON Lines card file into ``game``'s pool, all rows or none.

    Cards are matched by name (NFKC, whitespace removed) and printings by card, set and
    number, so importing the same file again changes nothing. Empty cells leave the stored
    value as it is. Raises :class:`ImportRejected` listing every bad row; then nothing has
    been written.

    ``progress(rows_checked, total_rows)`` is called while rows are checked.
    """
    rows = check_card_file(data, game=game, filename=filename, required=required, progress=progress)
    with transaction.atomic():
        return write_card_rows(rows, game)


def check_card_file(
    data: bytes,
    *,
    game: Game,
    filename: str = "",
    required: Iterable[str] = REQUIRED,
    progress: Callable[[int, int], None] | None = None,
) -> list:
    """Read and check every row of a card file (nothing is written): the clean rows, for
    :func:`write_card_rows`, or :class:`ImportRejected` listing every bad row."""
    required = tuple(required)
    rows, errors = read_table(data, filename, required)
    total = len(rows)
    if progress is not None:
        progress(0, total)
    cleaned, row_errors = clean_rows(
        rows,
        set_ids=set_index(game),
        required=required,
        progress=(lambda done: progress(done, total)) if progress else None,
    )
    errors = sorted(errors + row_errors)
    if progress is not None:
        progress(total, total)
    if errors:
        raise ImportRejected(errors)
    return cleaned


def write_card_rows(rows: list, game: Game) -> ImportSummary:
    """Write the checked rows of a file (every row of it: a file with an error has none)
    into ``game``'s pool; call it inside a transaction, so they are written all or none."""
    summary = _write_rows(rows, game)
    summary.rows = len(rows)
    return summary


def _write_rows(rows: list, game: Game) -> ImportSummary:
    summary = ImportSummary()
    by_key: dict[str, list] = {}
    for card_row in rows:
        by_key.setdefault(card_row.key, []).append(card_row)

    cards = {
        card.name_key: card
        for card in Card.objects.select_for_update().filter(game=game, name_key__in=by_key)
    }
    exempt_types = derived_exempt_types(game)
    new_cards, changed_cards = [], []
    for key, card_rows in by_key.items():
        values = {}
        for card_row in card_rows:
            values.update({f: v for f, v in card_row.values.items() if f in CARD_FIELDS})
        card = cards.get(key)
        if card is None:
            # bulk_create skips Card.save(), so the derived keys are set here. The name
            # kept is the first one written without brackets, as cards print it.
            name = bare_name(
                next((r.name for r in card_rows if written_bare(r.name)), card_rows[0].name)
            )
            card = Card(game=game, name=name, name_key=key, search_key=search_key(name), **values)
            new_cards.append(card)
            cards[key] = card
        elif _assign(card, values):
            changed_cards.append(card)
        else:
            summary.cards_unchanged += 1
        summary.notes += _same_card_notes(card.name, card_rows)
        summary.notes += _unlimited_notes(card, card_rows, values)
        summary.notes += _derived_copies_notes(card, card_rows, exempt_types)
    Card.objects.bulk_create(new_cards, batch_size=500)
    if changed_cards:
        Card.objects.bulk_update(changed_cards, CARD_FIELDS, batch_size=500)
    summary.cards_created = len(new_cards)
    summary.cards_updated = len(changed_cards)
    if new_cards and new_cards[0].pk is None:
        # Backends that do not return ids from bulk inserts: read them back.
        ids = dict(
            Card.objects.filter(
                game=game, name_key__in=[c.name_key for c in new_cards]
            ).values_list("name_key", "id")
        )
        for card in new_cards:
            card.pk = card.id = ids[card.name_key]

    printing_rows = [r for r in rows if r.set_id is not None]
    existing = {
        (p.card_id, p.set_id, p.number): p
        for p in Printing.objects.filter(card__in=[cards[r.key].pk for r in printing_rows])
    }
    new_printings, changed_printings = [], []
    for card_row in printing_rows:
        card = cards[card_row.key]
        values = {f: v for f, v in card_row.values.items() if f in PRINTING_FIELDS}
        printing = existing.get((card.pk, card_row.set_id, card_row.number))
        if printing is None:
            new_printings.append(
                Printing(card=card, set_id=card_row.set_id, number=card_row.number, **values)
            )
        elif _assign(printing, values):
            changed_printings.append(printing)
        else:
            summary.printings_unchanged += 1
    Printing.objects.bulk_create(new_printings, batch_size=500)
    if changed_printings:
        Printing.objects.bulk_update(changed_printings, PRINTING_FIELDS, batch_size=500)
    summary.printings_created = len(new_printings)
    summary.printings_updated = len(changed_printings)
    return summary


def _same_card_notes(name: str, card_rows: list) -> list[RowError]:
    """A row whose name is written another way than the card's (brackets, spaces, width):
    imported into that card, and said so, since the organizer may have meant a new card."""
    return [
        RowError(
            card_row.row,
            "name",
            _(
                "“%(written)s” is the card “%(name)s”: brackets, spaces and character width are"
                " not part of a card name (rules 1−2−1, 4−2−6), so this row was read as that"
                " card."
            )
            % {"written": card_row.name, "name": name},
        )
        for card_row in card_rows
        if card_row.name.strip() != name
    ]


def _unlimited_notes(card: Card, card_rows: list, values: dict) -> list[RowError]:
    """Rule 1−2−3 lets only common navigators be played in any number: warn about the flag
    on a card that is not a navigator or is printed at another rarity."""
    if not values.get("unlimited"):
        return []
    row = next(r.row for r in card_rows if r.values.get("unlimited"))
    rarities = [r.values["rarity"] for r in card_rows if r.values.get("rarity")]
    if card.pk is not None:
        # The card's stored printings count too (a row may add the flag to a rare card).
        rarities += Printing.objects.filter(card=card).values_list("rarity", flat=True)
    problem = unlimited_problem(card.card_type, rarities)
    return [RowError(row, "unlimited", problem)] if problem else []


def derived_exempt_types(game: Game) -> frozenset[str]:
    """The card types whose commons the game's formats let be played in any number
    (``Format.exempt_card_type``: common navigators in CrossOver, rule 1−2−3)."""
    return frozenset(
        game.formats.exclude(exempt_card_type="").values_list("exempt_card_type", flat=True)
    )


def derived_copies(
    card_type: str, rarities: Iterable[str], unlimited: bool, exempt_types: Iterable[str]
) -> str:
    """What rule 1−2−3 derives for a card from its type and printed rarity (the deck
    check's ``FormatRules.exempt``), for the importer and the admin; "" for a card of a
    type no format exempts."""
    if not card_type or card_type not in set(exempt_types):
        return ""
    kind = str(CardType(card_type).label).lower()
    rarities = [rarity for rarity in rarities if rarity]
    if any(is_common(rarity) for rarity in rarities):
        return _(
            "Rule 1−2−3: a common %(type)s, so a deck may hold any number of copies, with or"
            " without the “any number of copies” mark."
        ) % {"type": kind}
    if rarities:
        return _(
            "Rule 1−2−3: printed as %(rarity)s, not as a common, so its copies count towards"
            " the copy limit; the “any number of copies” mark does not change that."
        ) % {"rarity": "、".join(dict.fromkeys(rarities))}
    if unlimited:
        return _(
            "Rule 1−2−3: no rarity is recorded, so the “any number of copies” mark stands in"
            " for it until a rarity is imported."
        )
    return _(
        "Rule 1−2−3: no rarity is recorded; a deck with more copies than the copy limit is"
        " legal with a notice asking the judge to check that the cards are commons."
    )


def _derived_copies_notes(card: Card, card_rows: list, exempt_types) -> list[RowError]:
    """What rule 1−2−3 derived for a card of an exempted type (rarities of the file's rows
    and of its stored printings)."""
    if card.card_type not in exempt_types:
        return []
    rarities = [r.values["rarity"] for r in card_rows if r.values.get("rarity")]
    if card.pk is not None:
        rarities += Printing.objects.filter(card=card).values_list("rarity", flat=True)
    derived = derived_copies(card.card_type, rarities, card.unlimited, exempt_types)
    return [RowError(card_rows[0].row, "rarity", derived)] if derived else []


def unlimited_problem(card_type: str, rarities: Iterable[str]) -> str:
    """Why the "any number of copies" flag looks wrong on a card (rule 1−2−3), or ""."""
    if card_type and card_type != CardType.NAVIGATOR:
        return _(
            "“any number of copies” is set on a card of type %(type)s; rule 1−2−3 allows it"
            " only for common navigators."
        ) % {"type": CardType(card_type).label}
    rarities = [rarity for rarity in rarities if rarity]
    if rarities and not any(is_common(rarity) for rarity in rarities):
        return _(
            "“any number of copies” is set on a card printed as %(rarity)s; rule 1−2−3 allows"
            " it only for common navigators."
        ) % {"rarity": "、".join(dict.fromkeys(rarities))}
    return ""


def _assign(instance, values: dict) -> bool:
    changed = False
    for name, value in values.items():
        if getattr(instance, name) != value:
            setattr(instance, name, value)
            changed = True
    return changed


def upsert_game(*, slug: str, name: str) -> Game:
    game, _ = Game.objects.update_or_create(slug=slug, defaults={"name": name})
    return game


def upsert_set(*, game: Game, code: str, **values) -> CardSet:
    card_set, _ = CardSet.objects.update_or_create(game=game, code=code, defaults=values)
    return card_set


def create_import_job(*, game: Game, filename: str, content: bytes, user=None) -> ImportJob:
    """Store an uploaded card file and queue its import once this transaction commits."""
    from .tasks import import_card_file

    job = ImportJob.objects.create(game=game, filename=filename, content=content, created_by=user)
    import_card_file.delay_on_commit(job_id=job.pk)
    return job


def run_import_job(job_id: int) -> ImportJob | None:
    """Import a stored card file, recording progress and the outcome on the job.

    Exactly once: the file is kept with the job, its rows are checked first (beating the
    job's heartbeat), then every row is written and the job marked done in one transaction
    (:meth:`~config.jobs.TrackedJob.finish`). A worker that dies mid-way leaves nothing
    written; the next delivery of the task imports the whole file again, and a delivery
    after the job finished does nothing. Returns ``None`` when the job was not claimed.
    """
    what = f"import job {job_id}"
    if not retry_transient(lambda: ImportJob.claim(job_id), what=what):
        logger.info("import job %s is finished, gone or another worker's", job_id)
        return None
    job = retry_transient(
        lambda: ImportJob.objects.select_related("game").get(pk=job_id), what=what
    )

    def attempt() -> None:
        rows = check_card_file(
            bytes(job.content),
            game=job.game,
            filename=job.filename,
            progress=lambda done, total: ImportJob.report_progress(job_id, done, total),
        )
        job.finish(
            ImportJob.Status.DONE,
            write=lambda: {"report": write_card_rows(rows, job.game).as_dict()},
        )

    try:
        # A database error that is not the file's is tried again from the file (nothing
        # was written), and one that persists gives the job back to the watchdog.
        retry_transient(attempt, what=what)
    except TRANSIENT_DB_ERRORS as exc:
        logger.exception("import job %s: the database failed on every try", job_id)
        job.release(exc)
    except ImportRejected as rejected:
        job.finish(
            ImportJob.Status.FAILED, report={"errors": [e.as_dict() for e in rejected.errors]}
        )
    except Exception as exc:
        # Not the file's fault (a bug, a database error that is not a blip). The import
        # rolled back; the job must not stay "running" for ever, so it ends failed with
        # the reason shown (staff may run it again from the admin).
        logger.exception("import job %s crashed", job_id)
        error = {"row": 0, "field": "", "reason": f"internal error: {exc!r}"}
        job.finish(ImportJob.Status.FAILED, report={"errors": [error]})
    with contextlib.suppress(*TRANSIENT_DB_ERRORS):  # the database may still be away
        job.refresh_from_db(fields=["done", "total"])
    return job
