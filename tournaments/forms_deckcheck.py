"""Forms of the deck-check pages: find the player, then count the cards (per registered
card with +/- buttons, or by pasting what is on the table). They only translate: the
comparison and its errors are ``services.deck_checks``'."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext, pgettext_lazy

from decks.engine.parser import MAX_COUNT
from decks.forms import DecklistField

from .api.limits import NOTE_CHARS
from .services.deck_checks import CountedCard, RegisteredCard

# A deck-check round select: "" is no round.
ROUND_HELP = _("The round being played, if any.")


class PlayerSearchForm(forms.Form):
    q = forms.CharField(
        label=_("Player name or username"),
        required=False,
        max_length=150,
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )


class _RoundMixin(forms.Form):
    round = forms.ChoiceField(
        label=pgettext_lazy("round", "Round"), required=False, help_text=ROUND_HELP
    )
    note = forms.CharField(
        label=_("Note (optional)"),
        required=False,
        max_length=NOTE_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, rounds=(), **kwargs) -> None:
        """``rounds``: the event's rounds the staff may pick (already loaded)."""
        super().__init__(*args, **kwargs)
        self.rounds = {str(round_.number): round_ for round_ in rounds}
        self.fields["round"].choices = [("", _("— no round —"))] + [
            (str(r.number), pgettext("round", "Round %(number)s") % {"number": r.number})
            for r in rounds
        ]

    def clean_round(self):
        value = self.cleaned_data.get("round")
        return self.rounds.get(value) if value else None


class DeckCheckPasteForm(_RoundMixin):
    counted_text = DecklistField(
        label=_("The cards on the table"),
        widget=forms.Textarea(attrs={"rows": 14, "cols": 40, "spellcheck": "false"}),
        help_text=_(
            "One card a line, as in a decklist (“4 森原さとみ”); the sideboard under a "
            "“サイドボード” or “Sideboard” heading."
        ),
    )
    field_order = ["counted_text", "round", "note"]


class DeckCheckCountForm(_RoundMixin):
    """One pair of numbers (deck, sideboard) per card of the registered list, starting
    from the registered counts, and a box for cards found that are not on the list."""

    extra_text = DecklistField(
        label=_("Cards found that are not on the list"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 40, "spellcheck": "false"}),
        help_text=_("One card a line (“1 水姫”); “SB: 1 水姫” for one in the sideboard."),
    )

    def __init__(self, *args, cards: tuple[RegisteredCard, ...] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.cards = cards
        self.rows = []
        for index, card in enumerate(cards):
            label = card.name + (f" [{card.printing_label}]" if card.printing_label else "")
            for section, registered in (("main", card.main), ("side", card.side)):
                name = f"card{index}_{section}"
                self.fields[name] = forms.IntegerField(
                    label=label,
                    min_value=0,
                    max_value=MAX_COUNT,
                    initial=registered,
                    widget=forms.NumberInput(
                        attrs={"inputmode": "numeric", "class": "count-input", "data-count": ""}
                    ),
                )
            self.rows.append({"card": card, "label": label, "index": index})
        self.order_fields([f for f in self.fields if f.startswith("card")] + ["extra_text"])

    def bound_rows(self) -> list[dict]:
        """The rows with their two bound fields, for the template."""
        return [
            {
                **row,
                "main": self[f"card{row['index']}_main"],
                "side": self[f"card{row['index']}_side"],
            }
            for row in self.rows
        ]

    def counted_cards(self) -> list[CountedCard]:
        data = self.cleaned_data
        return [
            CountedCard(
                name=card.name,
                printing=card.printing,
                main=data.get(f"card{index}_main") or 0,
                side=data.get(f"card{index}_side") or 0,
            )
            for index, card in enumerate(self.cards)
        ]
