"""Admin forms of the decks app: a format's rule citations edited as a list.

``Format.rule_sections`` maps each kind of deck problem (the checker's violation codes) to
the rulebook section shown with it. In the admin it is one row per kind of problem, named
in the reader's language, with the section number beside it — not a JSON text.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from decks.engine.messages import MESSAGES
from rules.text import display_number, looks_like_number, number_key

from .models import Format

# Every problem the checker reports, in the order a judge thinks of them.
PROBLEM_LABELS = {
    "PARSE_ERROR": _("A decklist line cannot be read"),
    "UNKNOWN_CARD": _("Unknown card"),
    "UNKNOWN_PRINTING": _("Unknown printing of a card"),
    "DECK_TOO_SMALL": _("Deck too small"),
    "DECK_TOO_LARGE": _("Deck too large"),
    "TOO_MANY_COPIES": _("Too many copies of one card"),
    "SIDEBOARD_TOO_LARGE": _("Sideboard too large"),
    "SIDEBOARD_TOO_SMALL": _("Sideboard too small"),
    "SIDEBOARD_NOT_ALLOWED": _("Sideboard in a format without one"),
    "BANNED": pgettext_lazy("deck problem", "Banned card"),
    "PRINTING_NOT_LEGAL": _("Printing not legal in the format"),
    "SET_NOT_LEGAL": _("Card from no legal set"),
    "LEADER_COUNT": _("Wrong number of cards kept beside the deck"),
    "LEADER_RANGE_UNKNOWN": _("Deck-size range of the card beside the deck not known"),
    "SWAP_SIZE_MISMATCH": _("Sideboarding changes the deck size"),
    "SWAP_NOT_IN_SIDEBOARD": _("Sideboarding brings in a card not in the sideboard"),
    "SWAP_NOT_IN_DECK": _("Sideboarding takes out a card not in the deck"),
}
assert set(PROBLEM_LABELS) == set(MESSAGES), "every violation code needs a label"


def normalise_section(value: str) -> str | None:
    """``1-2-3``, ``１−２−３`` or ``1−2−3`` as the rulebook prints it (``1−2−3``, with
    U+2212); None when ``value`` is not a section number."""
    key = number_key(value)
    return display_number(key) if looks_like_number(key) else None


class RuleSectionsWidget(forms.Widget):
    """One text input per kind of problem (and per code stored that the checker does not
    know, so that nothing is lost), in a table."""

    template_name = "admin/decks/rule_sections_widget.html"

    def codes(self, value: dict) -> list[str]:
        return [*PROBLEM_LABELS, *sorted(set(value) - set(PROBLEM_LABELS))]

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        value = value if isinstance(value, dict) else {}
        context["widget"]["rows"] = [
            {
                "code": code,
                "label": PROBLEM_LABELS.get(code, code),
                "name": f"{name}__{code}",
                "id": f"id_{name}__{code}",
                "value": value.get(code, ""),
            }
            for code in self.codes(value)
        ]
        return context

    def render(self, name, value, attrs=None, renderer=None):
        # The site's template engine (templates/admin/), not the form renderer's own.
        return mark_safe(render_to_string(self.template_name, self.get_context(name, value, attrs)))

    def value_from_datadict(self, data, files, name):
        prefix = f"{name}__"
        return {
            key.removeprefix(prefix): data[key].strip()
            for key in data
            if key.startswith(prefix) and key.removeprefix(prefix)
        }

    def value_omitted_from_data(self, data, files, name):
        return not any(key.startswith(f"{name}__") for key in data)

    def id_for_label(self, id_):
        return ""  # each row has its own label


class RuleSectionsField(forms.Field):
    """Kind of problem → section number. Empty rows are dropped; every number is written
    with U+2212 as the rulebook does; a row that is not a number is refused by name."""

    widget = RuleSectionsWidget

    def prepare_value(self, value):
        return value if isinstance(value, dict) else {}

    def to_python(self, value):
        if not value:
            return {}
        if not isinstance(value, dict):
            raise ValidationError(_("Give one section number per kind of problem."))
        cleaned, errors = {}, []
        for code, text in value.items():
            text = str(text).strip()
            if not text:
                continue
            number = normalise_section(text)
            if number is None:
                errors.append(
                    ValidationError(
                        _("%(problem)s: “%(value)s” is not a section number like 4−3−8."),
                        code="invalid_section",
                        params={"problem": PROBLEM_LABELS.get(code, code), "value": text},
                    )
                )
            else:
                cleaned[code] = number
        if errors:
            raise ValidationError(errors)
        return {
            code: cleaned[code] for code in RuleSectionsWidget().codes(cleaned) if code in cleaned
        }

    def has_changed(self, initial, data):
        try:
            return (initial or {}) != self.to_python(data)
        except ValidationError:
            return True


class FormatAdminForm(forms.ModelForm):
    rule_sections = RuleSectionsField(
        label=capfirst(Format._meta.get_field("rule_sections").verbose_name),
        help_text=Format._meta.get_field("rule_sections").help_text,
        required=False,
    )

    class Meta:
        model = Format
        fields = ["rule_sections"]  # the admin adds the rest from its fieldsets
        # What the deck check derives from these two (decks.engine.model.FormatRules.exempt).
        help_texts = {
            "exempt_unlimited": _(
                "Whether a card's “any number of copies” mark lets it be played in any"
                " number. With a card type below, the mark counts only for a card of that"
                " type whose rarity is not recorded."
            ),
            "exempt_card_type": _(
                "Rule 1−2−3: a card of this type printed as a common may be played in any"
                " number, marked or not; one printed at another rarity counts towards the"
                " limit even when marked; a card of another type always counts."
            ),
        }
