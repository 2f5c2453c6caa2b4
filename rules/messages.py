"""Wording of the parser's review flags (the parser itself knows no Django)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from . import parsing

REVIEW_FLAG_MESSAGES = {
    parsing.DUPLICATE_NUMBER: _("The number %(number)s is printed a second time here."),
    parsing.MISPLACED_NUMBER: _(
        "Printed as %(number)s but it stands under %(parent)s; kept as printed."
    ),
    parsing.NUMBER_GAP: _("The document has no %(missing)s before this section."),
    parsing.EMPTY_SECTION: _("No text under this heading in the imported file."),
}


def describe_flag(flag: dict) -> str:
    """A stored review flag (``{"code": …, "params": {…}}``) in the reader's language."""
    message = REVIEW_FLAG_MESSAGES.get(flag.get("code", ""))
    if message is None:
        return str(flag.get("code", ""))
    return str(message) % flag.get("params", {}) if flag.get("params") else str(message)
