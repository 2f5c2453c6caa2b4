"""Writes of the rules app: importing documents, rulings and errata with their history.

Every change to a ruling or an erratum goes through :func:`save_ruling`,
:func:`delete_ruling`, :func:`save_erratum` or :func:`delete_erratum`, which write a
revision (who, when, before, after); the admin calls them too.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction

from cardpool.models import Card, Game

from .diffing import Snapshot, VersionChanges, compare_versions
from .models import (
    MAIN_SERIES,
    Erratum,
    ErratumRevision,
    RevisionAction,
    RulesDocument,
    Ruling,
    RulingRevision,
    RulingStatus,
    Section,
)
from .parsing import ParsedDocument, ParseError, parse_document
from .text import search_key

User = AbstractBaseUser | AnonymousUser | None


# --- documents -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportReport:
    document: RulesDocument
    previous: RulesDocument | None
    sections: int
    flagged: list[Section]
    changes: VersionChanges | None  # None when there was no previous version
    unchanged: bool = False  # the file is the current version already; nothing written


def file_checksum(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def import_rules_document(
    *,
    game: Game,
    text: str,
    checksum: str,
    series: str = MAIN_SERIES,
    source_name: str = "",
    style: str | None = None,
    title: str = "",
    version: str = "",
    date: dt.date | None = None,
) -> ImportReport:
    """Parse ``text`` (:func:`rules.parsing.parse_document`, which raises ParseError)
    and import it with :func:`import_parsed_document`."""
    return import_parsed_document(
        game=game,
        parsed=parse_document(text, style),
        checksum=checksum,
        series=series,
        source_name=source_name,
        title=title,
        version=version,
        date=date,
    )


def import_parsed_document(
    *,
    game: Game,
    parsed: ParsedDocument,
    checksum: str,
    series: str = MAIN_SERIES,
    source_name: str = "",
    title: str = "",
    version: str = "",
    date: dt.date | None = None,
) -> ImportReport:
    """Import a parsed document as a new version of ``game``'s document in ``series``.

    Side effects, all in one transaction: the previous current version (if any) stops
    being current but is kept with its sections; the new document and its sections are
    written with their search keys and review flags, and the changes from the previous
    version are stored on the new document. When the file is the current version already
    (same ``checksum``) nothing is written (``unchanged``). Raises ParseError when a
    heading is too long to be one (usually the wrong ``style``).
    """
    _check_lengths(parsed)
    with transaction.atomic():
        # Locks the current version so that two imports cannot both become current.
        previous = (
            RulesDocument.objects.select_for_update()
            .filter(game=game, series=series, is_current=True)
            .first()
        )
        if previous is not None and previous.checksum == checksum:
            return ImportReport(previous, previous, previous.sections.count(), [], None, True)
        changes = None
        if previous is not None:
            changes = compare_versions(_snapshots(previous), parsed.sections)
            previous.is_current = False
            previous.save(update_fields=["is_current"])
        document = RulesDocument.objects.create(
            game=game,
            series=series,
            title=title or parsed.title or game.name,
            version=version or _default_version(parsed, game, series),
            date=date or parsed.date,
            is_current=True,
            style=parsed.style,
            source_name=source_name,
            checksum=checksum,
            changes=(
                {
                    "previous": {"id": previous.pk, "version": previous.version},
                    **changes.as_dict(),
                }
                if previous is not None and changes is not None
                else {}
            ),
        )
        sections = _create_sections(document, parsed)
    return ImportReport(
        document=document,
        previous=previous,
        sections=len(sections),
        flagged=[section for section in sections if section.needs_review],
        changes=changes,
    )


def _check_lengths(parsed: ParsedDocument) -> None:
    number_max = Section._meta.get_field("number").max_length
    title_max = Section._meta.get_field("title").max_length
    for position, section in enumerate(parsed.sections, start=1):
        if len(section.number) > number_max or len(section.title) > title_max:
            raise ParseError(
                f"heading {position} ({section.number or section.title[:30]}…) is longer than "
                f"a heading can be; is the document style ({parsed.style}) right?"
            )


def make_document_current(document: RulesDocument) -> None:
    """Make ``document`` the current version of its series (the others stop being)."""
    with transaction.atomic():
        RulesDocument.objects.select_for_update().filter(
            game_id=document.game_id, series=document.series
        ).exclude(pk=document.pk).update(is_current=False)
        document.is_current = True
        document.save(update_fields=["is_current"])


def _default_version(parsed: ParsedDocument, game: Game, series: str) -> str:
    if parsed.version:
        return parsed.version
    if parsed.date:
        return parsed.date.isoformat()
    return str(RulesDocument.objects.filter(game=game, series=series).count() + 1)


def _create_sections(document: RulesDocument, parsed: ParsedDocument) -> list[Section]:
    sections = [
        Section(
            document=document,
            number=parsed_section.number,
            number_key=parsed_section.key,
            title=parsed_section.title,
            body=parsed_section.body,
            order=order,
            level=parsed_section.level,
            needs_review=parsed_section.needs_review,
            review_flags=[
                {"code": flag.code, "params": flag.params} for flag in parsed_section.flags
            ],
            search_title=search_key(parsed_section.title),
            search_text=section_search_text(
                parsed_section.number, parsed_section.title, parsed_section.body
            ),
        )
        for order, parsed_section in enumerate(parsed.sections, start=1)
    ]
    # PostgreSQL and SQLite (3.35+) return the new primary keys, so parents can be linked.
    Section.objects.bulk_create(sections, batch_size=500)
    for section, parsed_section in zip(sections, parsed.sections, strict=True):
        if parsed_section.parent is not None:
            section.parent = sections[parsed_section.parent]
    Section.objects.bulk_update(
        [section for section in sections if section.parent is not None], ["parent"], batch_size=500
    )
    return sections


def _snapshots(document: RulesDocument) -> list[Snapshot]:
    rows = list(
        document.sections.order_by("order").values_list(
            "id", "number", "number_key", "title", "body", "parent_id"
        )
    )
    position = {row[0]: index for index, row in enumerate(rows)}
    return [
        Snapshot(number, key, title, body, position.get(parent_id))
        for _id, number, key, title, body, parent_id in rows
    ]


def section_search_text(number: str, title: str, body: str) -> str:
    return search_key(f"{number} {title}\n{body}")


# --- rulings ------------------------------------------------------------------------------


def save_ruling(
    ruling: Ruling,
    *,
    by: User,
    cards: Iterable[Card] | None = None,
    sections: Iterable[Section] | None = None,
) -> Ruling:
    """Create or change a ruling (and, when given, the cards and sections it concerns).

    Validates the ruling (``full_clean``), refreshes its search text and writes a
    :class:`RulingRevision` with the values before and after when anything changed.
    """
    with transaction.atomic():
        before = _ruling_snapshot(Ruling.objects.get(pk=ruling.pk)) if ruling.pk else None
        ruling.full_clean(exclude=["search_text"])
        ruling.save()
        if cards is not None:
            ruling.cards.set(cards)
        if sections is not None:
            ruling.sections.set(sections)
        ruling.search_text = ruling_search_text(ruling)
        Ruling.objects.filter(pk=ruling.pk).update(search_text=ruling.search_text)
        after = _ruling_snapshot(ruling)
        if before != after:
            RulingRevision.objects.create(
                ruling=ruling,
                object_id=ruling.pk,
                action=RevisionAction.CREATED if before is None else RevisionAction.CHANGED,
                changed_by=_user(by),
                before=before,
                after=after,
            )
    return ruling


def supersede_ruling(ruling: Ruling, *, by: User, replacement: Ruling) -> Ruling:
    """Mark ``ruling`` as superseded by ``replacement`` (history kept by save_ruling)."""
    ruling.status = RulingStatus.SUPERSEDED
    ruling.superseded_by = replacement
    return save_ruling(ruling, by=by)


def delete_ruling(ruling: Ruling, *, by: User) -> None:
    """Delete a ruling, keeping its history with a final "deleted" revision.

    Raises ``ProtectedError`` when another ruling says it is superseded by this one.
    """
    with transaction.atomic():
        before = _ruling_snapshot(ruling)
        object_id = ruling.pk
        ruling.delete()
        RulingRevision.objects.create(
            ruling=None,
            object_id=object_id,
            action=RevisionAction.DELETED,
            changed_by=_user(by),
            before=before,
            after=None,
        )


def ruling_search_text(ruling: Ruling) -> str:
    """Question, answer, source, the names of its cards and the sections it cites."""
    cards = " ".join(card.name for card in ruling.cards.all())
    sections = " ".join(f"{section.number} {section.title}" for section in ruling.sections.all())
    return search_key(f"{ruling.question}\n{ruling.answer}\n{cards}\n{sections}\n{ruling.source}")


def _ruling_snapshot(ruling: Ruling) -> dict:
    return {
        "game": ruling.game.slug,
        "question": ruling.question,
        "answer": ruling.answer,
        "status": ruling.status,
        "superseded_by": ruling.superseded_by_id,
        "source": ruling.source,
        "date": ruling.date.isoformat() if ruling.date else None,
        "cards": sorted(f"{card.name} (#{card.pk})" for card in ruling.cards.all()),
        "sections": sorted(
            f"{section.number} {section.title} (#{section.pk})".strip()
            for section in ruling.sections.all()
        ),
    }


# --- errata ---------------------------------------------------------------------------------


def save_erratum(erratum: Erratum, *, by: User) -> Erratum:
    """Create or change an erratum, writing an :class:`ErratumRevision` when anything
    changed. The card's current text is the newest erratum's (rules.selectors)."""
    with transaction.atomic():
        before = _erratum_snapshot(Erratum.objects.get(pk=erratum.pk)) if erratum.pk else None
        erratum.full_clean()
        erratum.save()
        after = _erratum_snapshot(erratum)
        if before != after:
            ErratumRevision.objects.create(
                erratum=erratum,
                object_id=erratum.pk,
                action=RevisionAction.CREATED if before is None else RevisionAction.CHANGED,
                changed_by=_user(by),
                before=before,
                after=after,
            )
    return erratum


def delete_erratum(erratum: Erratum, *, by: User) -> None:
    """Delete an erratum, keeping its history with a final "deleted" revision."""
    with transaction.atomic():
        before = _erratum_snapshot(erratum)
        object_id = erratum.pk
        erratum.delete()
        ErratumRevision.objects.create(
            erratum=None,
            object_id=object_id,
            action=RevisionAction.DELETED,
            changed_by=_user(by),
            before=before,
            after=None,
        )


def _erratum_snapshot(erratum: Erratum) -> dict:
    return {
        "card": f"{erratum.card.name} (#{erratum.card_id})",
        "date": erratum.date.isoformat() if erratum.date else None,
        "new_text": erratum.new_text,
        "source": erratum.source,
    }


def _user(user: User):
    return user if user is not None and user.is_authenticated else None
