"""The metagame pages: one event's (once its decklists are public) and one format's
across its events, each as a page (shares, charts as server-rendered SVG, most-played
cards, top-cut decks) and as CSV.

The figures come from :func:`decks.metagame.metagame` over the decklists resolved by
:func:`decks.metagame_data.resolve_decklists`. Who may see an event's metagame follows
the decklists: its staff always, everyone else only once ``decklists_public_from`` has
passed (:func:`policy.decklists_public`); before that the page is a 403 (the event
itself is a 404 for whoever may not see it). A format's metagame only ever counts
events whose decklists are public, for everyone.

Only decklists this site checked and found legal count (:data:`CHECKED_LEGAL`): a
registration's list is checked when it is submitted and when an event file is imported
(``tournaments.event_file.decklists``; a file's own report is never stored), so a list
an import flagged illegal, or one without a report, is not part of any metagame.

A fixed number of queries whatever the number of decklists (the event or format, the
decklists, the cards and printings they name, and for an event its standings); a built
metagame is cached under the revisions of its events, so a page viewed again costs the
event (or the format and its events' revisions) only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from decimal import Decimal

from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.translation import get_language, npgettext, pgettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from cardpool.models import CardType, Element
from decks.metagame import Decklist, Metagame, metagame
from decks.metagame_data import resolve_decklists
from decks.models import Format

from . import policy, selectors
from .bracket_texts import result_label
from .exports import CONTENT_TYPES, Column, Table, to_csv
from .models import ExportFormat, MatchParticipant, Registration, RoundStage

# How many of the most-played cards a page lists (the CSV has them all).
CARD_ROWS = 30
# How many bars a chart draws at most (the table beside it has every row).
CHART_BARS = 10
# How long a built metagame is kept (its key changes with every change of its events).
CACHE_SECONDS = 15 * 60
# The version of what a metagame counts, in its cache key: a change of what counts makes
# new keys (v2: checked, legal decklists only, issue #21).
CACHE_VERSION = 2
# The registrations a metagame counts: a decklist submitted, and this site's report of it
# legal (every stored report is the site's: registration and import both check the list).
CHECKED_LEGAL = Q(deck_report__legal=True) & ~Q(deck_submitted_at=None)


# --- labels ---------------------------------------------------------------------------


def element_label(key: str) -> str:
    if key in Element.values:
        return str(Element(key).label)
    return key or _("No element")


def combination_label(key: str) -> str:
    return " + ".join(element_label(e) for e in key) if key else _("No element")


def type_label(key: str) -> str:
    if key in CardType.values:
        return str(CardType(key).label)
    return key or _("Unknown type")


def card_name(line) -> str:
    """The card's name in the reader's language when the pool has it, else the printed
    (Japanese) name."""
    english = (get_language() or "").startswith("en")
    return line.name_en if english and line.name_en else line.name


# --- building ---------------------------------------------------------------------------


def _decklists(registrations, placings: dict | None = None) -> list[Decklist]:
    """The registrations' decklists resolved to cards (two queries for all of them)."""
    registrations = list(registrations)
    if not registrations:
        return []
    by_format: dict[int, list[int]] = {}
    for index, registration in enumerate(registrations):
        by_format.setdefault(registration.event.format_id, []).append(index)
    resolved: list = [None] * len(registrations)
    for format_id, indexes in by_format.items():
        lines = resolve_decklists(
            [registrations[i].deck_text for i in indexes], format_id=format_id
        )
        for index, found in zip(indexes, lines, strict=True):
            resolved[index] = found
    decks = []
    for registration, lines in zip(registrations, resolved, strict=True):
        placing, result = (placings or {}).get(registration.pk, (None, None))
        decks.append(
            Decklist(
                player=selectors.display_name(registration),
                lines=tuple(lines),
                placing=placing,
                top_cut=bool(result) or bool(getattr(registration, "in_top_cut", False)),
                top_cut_result=result or "",
                event=registration.event.name,
            )
        )
    return decks


def cached(key: str, build) -> Metagame:
    """The metagame stored under ``key`` (whose parts change with the data), else built
    and stored. Resolving thousands of decklists takes about a second; a key holds the
    event revisions it was built from, so any change to a decklist, a registration or a
    result makes a new key. Card pool edits show once the entry expires."""
    meta = cache.get(key)
    if meta is None:
        meta = build()
        cache.set(key, meta, CACHE_SECONDS)
    return meta


def event_metagame(user, event, access) -> Metagame:
    """Everyone who may see the metagame sees every submitted decklist (the staff, or
    everyone once they are public), so one entry per event revision serves them all."""
    revision = getattr(getattr(event, "revision", None), "number", None)
    if revision is None:
        return _event_metagame(user, event, access)
    key = f"metagame:v{CACHE_VERSION}:event:{event.pk}:{revision}"
    return cached(key, lambda: _event_metagame(user, event, access))


def _event_metagame(user, event, access) -> Metagame:
    registrations = selectors.decklist_list(user, event, access).filter(CHECKED_LEGAL)
    for registration in registrations:
        registration.event = event
    standings = selectors.standings(user, event, access)
    placings = {}
    if standings is not None:
        placings = {
            line.registration.pk: (line.placing, line.top_cut_result) for line in standings.rows
        }
    return metagame(_decklists(registrations, placings))


def format_events(user, fmt: Format, start: dt.date | None, end: dt.date | None):
    """(id, revision number) of the format's events that the user may see and whose
    decklists are public, in the date range (one query)."""
    events = policy.events_visible_to(user).filter(
        format=fmt, decklists_public_from__lte=timezone.now()
    )
    if start is not None:
        events = events.filter(date__gte=start)
    if end is not None:
        events = events.filter(date__lte=end)
    return list(events.order_by("pk").values_list("pk", "revision__number"))


def format_metagame(user, fmt: Format, start: dt.date | None, end: dt.date | None) -> Metagame:
    events = format_events(user, fmt, start, end)
    if not events:
        return metagame([])
    digest = hashlib.sha256(repr(events).encode()).hexdigest()[:32]
    key = f"metagame:v{CACHE_VERSION}:format:{fmt.pk}:{digest}"
    return cached(key, lambda: metagame(_decklists(format_registrations([pk for pk, _ in events]))))


def format_registrations(event_ids: list[int]):
    """The checked, legal decklists of these events (:data:`CHECKED_LEGAL`), with
    ``in_top_cut`` (played a top-cut match)."""
    top_cut = MatchParticipant.objects.filter(
        registration=OuterRef("pk"), round__stage=RoundStage.TOP_CUT
    )
    return (
        Registration.objects.filter(CHECKED_LEGAL, event_id__in=event_ids)
        .select_related("player", "event")
        .annotate(in_top_cut=Exists(top_cut))
        .order_by("event__date", "event_id", "player__username", "id")
    )


# --- presenting -----------------------------------------------------------------------


# The chart's geometry, in the SVG's own units (the picture scales to the page's width):
# a label column, then bars of at most BAR_UNITS for 100 %, then the value.
CHART_WIDTH = 320
LABEL_UNITS = 100
BAR_UNITS = Decimal(150)
ROW_UNITS = 30


def _bars(rows: list[tuple[str, Decimal, str]]) -> dict:
    """A horizontal bar chart: each bar's label, value (percent), the text of its
    tooltip, and where it is drawn."""
    bars = []
    for index, (label, value, text) in enumerate(rows[:CHART_BARS]):
        width = max(Decimal("0.5"), value * BAR_UNITS / 100) if value else Decimal(0)
        top = index * ROW_UNITS
        bars.append(
            {
                "label": label,
                "value": value,
                "text": text,
                "rect_y": top + 6,
                "text_y": top + 20,
                "width": f"{width:.2f}",
                "value_x": f"{LABEL_UNITS + 6 + width:.2f}",
            }
        )
    return {
        "bars": bars,
        "width": CHART_WIDTH,
        "bar_x": LABEL_UNITS,
        "height": max(ROW_UNITS, len(bars) * ROW_UNITS),
    }


def blocks(meta: Metagame) -> dict:
    """The template's data for the shared metagame blocks."""

    def share_rows(shares, label):
        return [
            {
                "label": label(share.key),
                "decks": share.decks,
                "deck_percent": share.deck_percent,
                "copies": share.copies,
                "copy_percent": share.copy_percent,
            }
            for share in shares
        ]

    elements = share_rows(meta.elements, element_label)
    types = share_rows(meta.card_types, type_label)
    combinations = [
        {
            "label": combination_label(combo.key),
            "decks": combo.decks,
            "percent": combo.percent,
            "top_cut_decks": combo.top_cut_decks,
        }
        for combo in meta.combinations
    ]

    def cards(usages):
        return [
            {
                "name": card_name(usage),
                "type": type_label(usage.card_type),
                "element": " ".join(usage.elements),
                "decks": usage.decks,
                "percent": usage.percent,
                "copies": usage.copies,
                "average": usage.average,
            }
            for usage in usages[:CARD_ROWS]
        ]

    top_cut = [
        {
            "player": deck.player,
            "event": deck.event,
            "placing": deck.placing,
            "result": result_label(deck.top_cut_result) if deck.top_cut_result else "",
            "elements": combination_label(deck.elements),
            "main_count": deck.main_count,
            "side_count": deck.side_count,
            "key_cards": [(card_name(card), card.count) for card in deck.key_cards],
        }
        for deck in meta.top_cut
    ]

    def share_text(percent, decks):
        return npgettext(
            "metagame chart",
            "%(percent)s%% (%(decks)s deck)",
            "%(percent)s%% (%(decks)s decks)",
            decks,
        ) % {"percent": percent, "decks": decks}

    return {
        "meta": meta,
        "elements": elements,
        "types": types,
        "combinations": combinations,
        "main_cards": cards(meta.main_cards),
        "side_cards": cards(meta.side_cards),
        "top_cut": top_cut,
        "element_chart": _bars(
            [
                (
                    row["label"],
                    row["deck_percent"],
                    share_text(row["deck_percent"], row["decks"]),
                )
                for row in elements
            ]
        ),
        "type_chart": _bars(
            [(row["label"], row["copy_percent"], f"{row['copy_percent']}%") for row in types]
        ),
        "combination_chart": _bars(
            [
                (
                    row["label"],
                    row["percent"],
                    share_text(row["percent"], row["decks"]),
                )
                for row in combinations
            ]
        ),
    }


CSV_COLUMNS = [
    Column("block", pgettext_lazy("metagame csv", "Block")),
    Column("name", pgettext_lazy("metagame csv", "Name")),
    Column("name_en", pgettext_lazy("export column", "Card name (English)")),
    Column("decks", pgettext_lazy("metagame csv", "Decks")),
    Column("deck_percent", pgettext_lazy("metagame csv", "Share of decks (%)")),
    Column("copies", pgettext_lazy("metagame csv", "Copies")),
    Column("copy_percent", pgettext_lazy("metagame csv", "Share of copies (%)")),
    Column("average", pgettext_lazy("metagame csv", "Average copies")),
]
BLOCK_LABELS = {
    "element": pgettext_lazy("metagame csv", "element"),
    "combination": pgettext_lazy("metagame csv", "elements of a deck"),
    "card_type": pgettext_lazy("metagame csv", "card type"),
    "main_card": pgettext_lazy("metagame csv", "card (deck)"),
    "side_card": pgettext_lazy("metagame csv", "card (sideboard)"),
}


def metagame_table(meta: Metagame) -> Table:
    """Every figure of the metagame, one row each, in the reader's language: the
    elements and card types (decks and copies), the decks' element combinations, then
    every card played in the deck and in sideboards (decks, share, copies, average)."""

    def label(block):
        return str(BLOCK_LABELS[block])

    rows: list[list] = []
    for share in meta.elements:
        rows.append(
            [
                label("element"),
                element_label(share.key),
                "",
                share.decks,
                share.deck_percent,
                share.copies,
                share.copy_percent,
                None,
            ]
        )
    for combo in meta.combinations:
        rows.append(
            [
                label("combination"),
                combination_label(combo.key),
                "",
                combo.decks,
                combo.percent,
                None,
                None,
                None,
            ]
        )
    for share in meta.card_types:
        rows.append(
            [
                label("card_type"),
                type_label(share.key),
                "",
                share.decks,
                share.deck_percent,
                share.copies,
                share.copy_percent,
                None,
            ]
        )
    for block, usages in (("main_card", meta.main_cards), ("side_card", meta.side_cards)):
        for usage in usages:
            rows.append(
                [
                    label(block),
                    usage.name,
                    usage.name_en,
                    usage.decks,
                    usage.percent,
                    usage.copies,
                    None,
                    usage.average,
                ]
            )
    return Table("metagame", CSV_COLUMNS, rows)


def _csv_response(meta: Metagame, filename: str) -> HttpResponse:
    response = HttpResponse(
        to_csv(metagame_table(meta)), content_type=CONTENT_TYPES[ExportFormat.CSV]
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- views ----------------------------------------------------------------------------


def _visible_event(request, pk: int):
    event, access = selectors.viewed_event(request.user, pk)
    if not (access.is_staff or policy.decklists_public(event)):
        raise PermissionDenied("the decklists of this event are not public yet")
    return event, access


@require_safe
def event_page(request, pk: int):
    event, access = _visible_event(request, pk)
    meta = event_metagame(request.user, event, access)
    context = {
        "event": event,
        "public": policy.decklists_public(event),
        "csv_url": reverse("tournaments:metagame_csv", args=[event.pk]),
        "format_url": reverse("decks:format_metagame", args=[event.format.slug])
        if event.format_id
        else "",
        **blocks(meta),
    }
    return render(request, "tournaments/metagame.html", context)


@require_safe
def event_csv(request, pk: int):
    event, access = _visible_event(request, pk)
    meta = event_metagame(request.user, event, access)
    return _csv_response(meta, f"event-{event.pk}-metagame.csv")


def _date_range(request) -> tuple[dt.date | None, dt.date | None, list[str]]:
    errors = []
    found = []
    for name, label in (
        ("from", pgettext_lazy("date range", "From")),
        ("to", pgettext_lazy("date range", "To")),
    ):
        text = request.GET.get(name, "").strip()
        value = parse_date(text) if text else None
        if text and value is None:
            errors.append(
                _("“%(field)s” must be a date like 2026-04-01; it was ignored.") % {"field": label}
            )
        found.append(value)
    return found[0], found[1], errors


def _format_metagame(request, slug: str):
    fmt = get_object_or_404(Format.objects.select_related("game"), slug=slug)
    start, end, errors = _date_range(request)
    meta = format_metagame(request.user, fmt, start, end)
    return fmt, start, end, errors, meta


@require_safe
def format_page(request, slug: str):
    fmt, start, end, errors, meta = _format_metagame(request, slug)
    query = request.GET.urlencode()
    csv_url = reverse("decks:format_metagame_csv", args=[fmt.slug])
    context = {
        "format": fmt,
        "start": start,
        "end": end,
        "errors": errors,
        "csv_url": f"{csv_url}?{query}" if query else csv_url,
        **blocks(meta),
    }
    return render(request, "decks/format_metagame.html", context)


@require_safe
def format_csv(request, slug: str):
    fmt, _start, _end, _errors, meta = _format_metagame(request, slug)
    return _csv_response(meta, f"format-{fmt.slug}-metagame.csv")


@require_safe
def format_list(request):
    formats = Format.objects.select_related("game").order_by("game__name", "name")
    return render(request, "decks/format_list.html", {"formats": formats})


# Included by tournaments/urls.py (events) and decks/urls.py (formats).
event_urlpatterns = [
    path("<int:pk>/metagame/", event_page, name="metagame"),
    path("<int:pk>/metagame.csv", event_csv, name="metagame_csv"),
]
format_urlpatterns = [
    path("formats/", format_list, name="format_list"),
    path("formats/<slug:slug>/metagame/", format_page, name="format_metagame"),
    path("formats/<slug:slug>/metagame.csv", format_csv, name="format_metagame_csv"),
]
