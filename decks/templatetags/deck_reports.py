"""Deck reports as players read them.

The engine names each problem by a stable code (``TOO_MANY_COPIES``); the API and
``check_deck --json`` keep the codes, pages show a plain-language heading instead. A rule
citation links to the section's page when the game's rulebook is imported (one query per
report, whatever the number of problems); without an import it is plain text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django import template
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from decks.admin_forms import PROBLEM_LABELS
from rules.models import MAIN_SERIES, Section
from rules.text import number_key

register = template.Library()

# Notices are not problems (the deck may be legal); each says what to look at.
NOTICE_LABELS = {
    "PRINTING_UNKNOWN": _("Set not recorded"),
    "HEADING_COUNT_MISMATCH": _("Heading count differs"),
    "BETA_PRINTING_CHECK": _("Check for βedition printings"),
}


@dataclass(frozen=True)
class ShownItem:
    """One violation or notice as a page shows it."""

    code: str
    heading: str
    message: str
    rule: str = ""
    rule_url: str = ""


@register.filter
def report_heading(code: str) -> str:
    """The plain-language heading of a violation or notice code."""
    label = PROBLEM_LABELS.get(code) or NOTICE_LABELS.get(code)
    return str(label) if label else str(_("Problem"))


@register.simple_tag
def report_items(report, fmt=None) -> dict[str, list[ShownItem]]:
    """``{"violations": [...], "notices": [...]}`` of a report (a
    :class:`~decks.engine.check.Report`, or the dict a stored check keeps), each with its
    heading, its message in the reader's language and its rule's page if there is one."""
    if report is None:
        return {"violations": [], "notices": []}
    violations = _field(report, "violations") or ()
    notices = _field(report, "notices") or ()
    return {
        "violations": shown(violations, fmt or _field(report, "format")),
        "notices": shown(notices, None),
    }


@register.simple_tag
def problem_items(problems, fmt=None) -> list[ShownItem]:
    """A list of violations (without their report) as :func:`report_items` shows them."""
    return shown(problems or (), fmt)


def shown(items: Iterable, fmt) -> list[ShownItem]:
    items = list(items)
    japanese = (get_language() or "").lower().startswith("ja")
    rules = {str(_field(item, "rule") or "") for item in items}
    urls = section_urls(_format_slug(fmt), rules - {""})
    return [
        ShownItem(
            code=_field(item, "code"),
            heading=report_heading(_field(item, "code")),
            message=_field(item, "message_ja" if japanese else "message_en") or "",
            rule=str(_field(item, "rule") or ""),
            rule_url=urls.get(str(_field(item, "rule") or ""), ""),
        )
        for item in items
    ]


def section_urls(format_slug: str | None, rules: set[str]) -> dict[str, str]:
    """Rule as cited -> URL of its section page, for the sections the format's game has
    in its current imported rulebook (one query; none when nothing is cited)."""
    if not format_slug or not rules:
        return {}
    keys = {rule: number_key(rule) for rule in rules}
    found = dict(
        Section.objects.filter(
            document__is_current=True,
            document__series=MAIN_SERIES,
            document__game__formats__slug=format_slug,
            number_key__in=set(keys.values()) - {""},
        )
        .values_list("number_key", "document__game__slug")
        .distinct()
    )
    return {
        rule: reverse("rules:section", args=[found[key], key])
        for rule, key in keys.items()
        if key in found
    }


def _format_slug(fmt) -> str | None:
    if fmt is None or isinstance(fmt, str):
        return fmt
    return getattr(fmt, "slug", None)


def _field(item, name: str):
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)
