"""Loading formats and the card pool for the legality engine, and every write to decks."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone
from django.utils.translation import ngettext

from cardpool.models import Card, CardSet, Game, Printing
from config.jobs import TRANSIENT_DB_ERRORS, retry_transient

from .engine.check import Entry, Report, check_decklist, check_entries
from .engine.model import MAIN, CardInfo, CardPool, FormatRules, PrintingInfo
from .engine.model import BanEntry as BanRule
from .models import Deck, DeckCheck, DeckEntry, Format, RecheckJob

logger = logging.getLogger(__name__)

# Codes that mean a line could not be turned into a stored entry.
UNSTORABLE = frozenset({"PARSE_ERROR", "UNKNOWN_CARD", "UNKNOWN_PRINTING"})


@dataclass
class LoadedPool:
    pool: CardPool
    by_id: dict[int, CardInfo]
    set_codes: dict[int, str]


def format_rules(fmt: Format) -> FormatRules:
    """The engine's view of a stored format (three queries)."""
    bans = tuple(
        BanRule(
            card_key=ban.card.name_key,
            set_code=ban.printing_set.code if ban.printing_set_id else None,
            effective_from=ban.effective_from,
            effective_until=ban.effective_until,
            note=ban.note,
        )
        for ban in fmt.bans.select_related("card", "printing_set")
    )
    # A listed set is legal from the date the format gives it, else from its release date.
    legal: set[str] = set()
    legal_from: dict[str, dt.date] = {}
    for code, own_date, release_date in fmt.legal_set_entries.values_list(
        "card_set__code", "legal_from", "card_set__release_date"
    ):
        legal.add(code)
        if own_date or release_date:
            legal_from[code] = own_date or release_date
    groups = tuple(
        frozenset(card.name_key for card in group.cards.all())
        for group in fmt.copy_groups.prefetch_related("cards")
    )
    return FormatRules(
        slug=fmt.slug,
        name=fmt.name,
        game=fmt.game.slug,
        version=fmt.version,
        min_deck_size=fmt.min_deck_size,
        max_deck_size=fmt.max_deck_size,
        copy_limit=fmt.copy_limit,
        exempt_unlimited=fmt.exempt_unlimited,
        exempt_card_type=fmt.exempt_card_type or None,
        sideboard_min=fmt.sideboard_min,
        sideboard_max=fmt.sideboard_max,
        legal_sets=frozenset(legal) or None,
        legal_from=legal_from,
        copy_groups=groups,
        bans=bans,
        leader_type=fmt.leader_type or None,
        leader_count=fmt.leader_count,
        rule_sections=dict(fmt.rule_sections),
    )


def load_pool(game: Game) -> LoadedPool:
    """The whole card pool of a game, for the engine (three queries)."""
    sets = {s.id: s for s in CardSet.objects.filter(game=game)}
    printings: dict[int, list[PrintingInfo]] = {}
    for card_id, set_id, release_date, rarity in Printing.objects.filter(
        card__game=game
    ).values_list("card_id", "set_id", "release_date", "rarity"):
        card_set = sets[set_id]
        printings.setdefault(card_id, []).append(
            PrintingInfo(card_set.code, card_set.name, card_set.is_beta, release_date, rarity)
        )
    by_id = {}
    for row in Card.objects.filter(game=game).values(
        "id",
        "name",
        "name_key",
        "card_type",
        "element",
        "unlimited",
        "deck_size_min",
        "deck_size_max",
    ):
        by_id[row["id"]] = CardInfo(
            key=row["name_key"],
            name=row["name"],
            card_type=row["card_type"],
            element=row["element"],
            unlimited=row["unlimited"],
            printings=tuple(printings.get(row["id"], ())),
            deck_size_min=row["deck_size_min"],
            deck_size_max=row["deck_size_max"],
        )
    labels = {}
    for card_set in sets.values():
        for label in (card_set.code, card_set.name, *card_set.aliases):
            labels.setdefault(label, card_set.code)
    return LoadedPool(
        pool=CardPool(by_id.values(), labels),
        by_id=by_id,
        set_codes={set_id: s.code for set_id, s in sets.items()},
    )


def released_from(loaded: LoadedPool) -> dict[tuple[str, str], dt.date]:
    """(card key, set code) -> the first day the card's printings in that set exist, for
    the sets where every one of them carries its own release date (a promotional card):
    the physical deck check refuses such a printing counted before that day (rule
    1−2−1), as the deck check does."""
    found: dict[tuple[str, str], dt.date] = {}
    for card in loaded.by_id.values():
        if not card.dated:
            continue
        days: dict[str, list[dt.date | None]] = {}
        for printing in card.printings:
            days.setdefault(printing.set_code, []).append(printing.release_date)
        for code, dates in days.items():
            if all(day is not None for day in dates):
                found[(card.key, code)] = min(dates)
    return found


def check_text(text: str, fmt: Format, as_of: dt.date, loaded: LoadedPool | None = None) -> Report:
    """Check a pasted decklist against a stored format."""
    loaded = loaded or load_pool(fmt.game)
    rules = format_rules(fmt)
    return check_decklist(text, rules, as_of, loaded.pool)


class TooManyDecks(Exception):
    """The owner already stores ``settings.DECKS_PER_USER`` decks (a bound on what one
    account may store: 40,000 decks made the list 153 MB)."""

    code = "too_many_decks"

    def __init__(self, limit: int):
        super().__init__(f"at most {limit} decks per user")
        self.limit = limit

    @property
    def message(self) -> str:
        return ngettext(
            "You already have %(limit)d deck, the most one account may keep. "
            "Delete one to save another.",
            "You already have %(limit)d decks, the most one account may keep. "
            "Delete one to save another.",
            self.limit,
        ) % {"limit": self.limit}


def check_deck_cap(owner) -> None:
    """Raise :class:`TooManyDecks` if ``owner`` may store no more decks. Inside a
    transaction the owner's row is locked first, so two saves at once cannot both pass."""
    limit = settings.DECKS_PER_USER
    if transaction.get_connection().in_atomic_block:
        list(get_user_model().objects.select_for_update().filter(pk=owner.pk).values("pk"))
    if Deck.objects.filter(owner=owner).count() >= limit:
        raise TooManyDecks(limit)


class DeckNotStorable(Exception):
    """The decklist has lines that name no known card or printing."""

    def __init__(self, report: Report):
        super().__init__("decklist has unreadable lines or unknown cards")
        self.report = report
        self.problems = [v for v in report.violations if v.code in UNSTORABLE]


def save_deck(
    *,
    owner,
    fmt: Format,
    name: str,
    text: str,
    as_of: dt.date | None = None,
    deck: Deck | None = None,
) -> tuple[Deck, Report]:
    """Create ``deck`` (or replace its name, format and cards) from a pasted decklist and
    record a legality check. Illegal decks may be stored (players work on them); lines
    that name no known card cannot, and raise :class:`DeckNotStorable` with nothing written.
    A new deck beyond ``settings.DECKS_PER_USER`` raises :class:`TooManyDecks`.
    """
    if deck is None:
        check_deck_cap(owner)  # before the costly check; again under the lock below
    as_of = as_of or timezone.localdate()
    loaded = load_pool(fmt.game)
    report = check_text(text, fmt, as_of, loaded)
    if any(v.code in UNSTORABLE for v in report.violations):
        raise DeckNotStorable(report)
    card_ids = {info.key: card_id for card_id, info in loaded.by_id.items()}
    set_ids = {code: set_id for set_id, code in loaded.set_codes.items()}
    with transaction.atomic():
        if deck is None:
            check_deck_cap(owner)
            deck = Deck.objects.create(owner=owner, format=fmt, name=name)
        else:
            deck.format, deck.name = fmt, name
            deck.save(update_fields=["format", "name", "updated_at"])
            deck.entries.all().delete()
        DeckEntry.objects.bulk_create(
            DeckEntry(
                deck=deck,
                card_id=card_ids[entry.card.key],
                printing_set_id=set_ids[entry.set_code] if entry.set_code else None,
                count=entry.count,
                section=entry.section,
                position=position,
            )
            for position, entry in enumerate(report.entries)
        )
        record_check(deck, report)
    return deck, report


def record_check(deck: Deck, report: Report) -> DeckCheck:
    return DeckCheck.objects.create(
        deck=deck,
        format_version=report.format_version,
        as_of=report.as_of,
        legal=report.legal,
        report=report.as_dict(),
    )


def duplicate_deck(deck: Deck, *, owner) -> Deck:
    """A copy of ``deck`` (cards and latest check) owned by ``owner``; raises
    :class:`TooManyDecks` as :func:`save_deck` does."""
    with transaction.atomic():
        check_deck_cap(owner)
        copy = Deck.objects.create(owner=owner, format=deck.format, name=f"{deck.name} (2)")
        DeckEntry.objects.bulk_create(
            DeckEntry(
                deck=copy,
                card_id=e.card_id,
                printing_set_id=e.printing_set_id,
                count=e.count,
                section=e.section,
                position=e.position,
            )
            for e in deck.entries.all()
        )
        latest = deck.checks.first()
        if latest is not None:
            DeckCheck.objects.create(
                deck=copy,
                format_version=latest.format_version,
                as_of=latest.as_of,
                legal=latest.legal,
                report=latest.report,
            )
    return copy


def delete_deck(deck: Deck) -> None:
    deck.delete()


def deck_text(entries: Iterable[DeckEntry]) -> str:
    """A deck's entries (with card and printing_set loaded) as a decklist that
    :func:`save_deck` reads back to the same cards."""
    lines, side = [], []
    for entry in entries:
        qualifier = f" [{entry.printing_set.code}]" if entry.printing_set_id else ""
        line = f"{entry.count} {entry.card.name}{qualifier}"
        (lines if entry.section == MAIN else side).append(line)
    if side:
        lines += ["", "サイドボード", *side]
    return "\n".join(lines) + "\n"


def stored_entries(deck_ids: list[int], loaded: LoadedPool) -> dict[int, list[Entry]]:
    """The engine entries of many stored decks in one query."""
    found: dict[int, list[Entry]] = {deck_id: [] for deck_id in deck_ids}
    rows = (
        DeckEntry.objects.filter(deck_id__in=deck_ids)
        .order_by("deck_id", "section", "position")
        .values_list("deck_id", "card_id", "printing_set_id", "count", "section")
    )
    for deck_id, card_id, set_id, count, section in rows:
        set_code = loaded.set_codes[set_id] if set_id else None
        found[deck_id].append(Entry(loaded.by_id[card_id], count, section, set_code))
    return found


# --- ban-list changes ---------------------------------------------------------------


def format_changed(fmt: Format, *, reason: str, user=None) -> RecheckJob:
    """Record a change of ``fmt`` or its ban list: bump its version and queue a re-check of
    every stored deck of the format (after this transaction commits)."""
    from .tasks import recheck_format_decks

    Format.objects.filter(pk=fmt.pk).update(version=F("version") + 1)
    fmt.refresh_from_db(fields=["version"])
    job = RecheckJob.objects.create(
        format=fmt, format_version=fmt.version, reason=reason[:300], created_by=user
    )
    recheck_format_decks.delay_on_commit(job_id=job.pk)
    return job


def queue_stale_rechecks() -> list[RecheckJob]:
    """Queue a re-check of every format some of whose stored decks were last checked
    against an older version, unless one is queued for its current version already (a
    migration that changes a format or merges cards bumps the version; see decks.apps)."""
    from .tasks import recheck_format_decks

    jobs = []
    for fmt in Format.objects.order_by("id"):
        if RecheckJob.objects.filter(format=fmt, format_version=fmt.version).exists():
            continue
        stale = (
            Deck.objects.filter(format=fmt)
            .annotate(latest=Max("checks__format_version"))
            .filter(latest__lt=fmt.version)
        )
        if not stale.exists():
            continue
        job = RecheckJob.objects.create(
            format=fmt, format_version=fmt.version, reason="format updated by a migration"
        )
        recheck_format_decks.delay_on_commit(job_id=job.pk)
        jobs.append(job)
    return jobs


CHUNK = 1000


def run_recheck(job_id: int) -> RecheckJob | None:
    """Check every deck of the job's format again; list those that were legal at their
    previous check and are not any more. Harmless to run twice, and resumable: a job whose
    worker died (no heartbeat for ``HEARTBEAT_LEASE``) is claimed again and goes on from
    the checks it stored, with the same result as a run without the crash.

    A database error that is not the job's (its connection killed, a serialization
    failure, a deadlock) is tried again on a new connection, from the last chunk stored
    (:func:`~config.jobs.retry_transient`); one that persists gives the job back to the
    watchdog for its next attempt (:meth:`~config.jobs.TrackedJob.release`). Any other
    error ends the job failed at once. Returns ``None`` when the job was not claimed."""
    what = f"re-check job {job_id}"
    if not retry_transient(lambda: RecheckJob.claim(job_id), what=what):
        return None
    job = retry_transient(
        lambda: RecheckJob.objects.select_related("format__game").get(pk=job_id), what=what
    )
    try:
        became_illegal = retry_transient(lambda: _recheck(job), what=what)
        retry_transient(
            lambda: job.finish(RecheckJob.Status.DONE, became_illegal=became_illegal, error=""),
            what=what,
        )
    except TRANSIENT_DB_ERRORS as exc:
        logger.exception("re-check job %s: the database failed on every try", job_id)
        job.release(exc)
    except Exception as exc:
        logger.exception("re-check job %s crashed", job_id)
        job.finish(RecheckJob.Status.FAILED, error=repr(exc))
    return job


def _recheck(job: RecheckJob, *, after_chunk: Callable[[int], None] | None = None) -> list[dict]:
    """Store one check (``by_recheck``) at the format's version for each of its decks that
    has none at that version yet, a chunk per transaction, beating the job's heartbeat with
    each; ``after_chunk(chunks_stored)`` runs after each (tests stop the run there). Decks
    the owner saved since the change are checked already and are skipped."""
    fmt = job.format
    rules = format_rules(fmt)
    loaded = load_pool(fmt.game)
    today = timezone.localdate()
    deck_ids = list(Deck.objects.filter(format=fmt).order_by("id").values_list("id", flat=True))
    checked = set(
        DeckCheck.objects.filter(deck__format=fmt, format_version=rules.version).values_list(
            "deck_id", flat=True
        )
    )
    todo = [deck_id for deck_id in deck_ids if deck_id not in checked]
    done = len(deck_ids) - len(todo)
    RecheckJob.report_progress(job.pk, done, len(deck_ids))
    for number, start in enumerate(range(0, len(todo), CHUNK), start=1):
        chunk = todo[start : start + CHUNK]
        entries = stored_entries(chunk, loaded)
        checks = []
        for deck_id in chunk:
            report = check_entries(entries[deck_id], rules, today)
            checks.append(
                DeckCheck(
                    deck_id=deck_id,
                    format_version=rules.version,
                    as_of=today,
                    legal=report.legal,
                    report=report.as_dict(),
                    by_recheck=True,
                )
            )
        with transaction.atomic():
            # Another run of the job (a redelivery while this one was alive) may have
            # stored some of these: the constraint keeps the first, this skips its own.
            DeckCheck.objects.bulk_create(checks, ignore_conflicts=True)
        done += len(chunk)
        RecheckJob.report_progress(job.pk, done)
        if after_chunk is not None:
            after_chunk(number)
    return _became_illegal(fmt, rules.version, job_id=job.pk)


def _became_illegal(fmt: Format, version: int, *, job_id: int) -> list[dict]:
    """The decks of ``fmt`` whose first check at ``version`` is illegal while their latest
    check before it was legal (or they had none), by deck id. Computed from the stored
    rows over all decks, so a resumed run lists what an uninterrupted one does; beats the
    job's heartbeat after each chunk of decks."""
    decks = list(
        Deck.objects.filter(format=fmt).order_by("id").values_list("id", "name", "owner__username")
    )
    found = []
    for start in range(0, len(decks), CHUNK):
        chunk = decks[start : start + CHUNK]
        deck_ids = [deck_id for deck_id, _, _ in chunk]
        before = _latest_legality(deck_ids, before=version)
        now: dict[int, tuple[bool, dict]] = {}
        rows = (
            DeckCheck.objects.filter(deck_id__in=deck_ids, format_version=version)
            .order_by("deck_id", "checked_at", "id")
            .values_list("deck_id", "legal", "report")
        )
        for deck_id, legal, report in rows:
            now.setdefault(deck_id, (legal, report))  # the first check at this version
        for deck_id, name, owner in chunk:
            if deck_id not in now or now[deck_id][0] or not before.get(deck_id, True):
                continue
            codes = [violation["code"] for violation in now[deck_id][1].get("violations", [])]
            found.append({"deck": deck_id, "name": name, "owner": owner, "codes": codes})
        RecheckJob.beat(job_id)
    return found


def _latest_legality(deck_ids: list[int], *, before: int | None = None) -> dict[int, bool]:
    """Whether each deck was legal at its latest check (decks never checked are absent);
    with ``before``, its latest check against a format version older than that."""
    latest: dict[int, bool] = {}
    for start in range(0, len(deck_ids), CHUNK):
        rows = DeckCheck.objects.filter(deck_id__in=deck_ids[start : start + CHUNK])
        if before is not None:
            rows = rows.filter(format_version__lt=before)
        for deck_id, legal in rows.order_by("deck_id", "checked_at", "id").values_list(
            "deck_id", "legal"
        ):
            latest[deck_id] = legal  # later rows overwrite earlier ones
    return latest
