"""Forms of the tournament pages. They only translate what the browser sends into the
arguments of ``tournaments.services``; every rule is checked there (and in the engine)."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Case, IntegerField, Value, When
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from decks.forms import DecklistField
from decks.models import Deck

from .api.limits import NOTE_CHARS, REASON_CHARS
from .engine.games import GameEnd, GameEndRules
from .models import PenaltyKind

MAX_GAMES = 3

GAME_END_CHOICES = [
    ("", _("— not played —")),
    (GameEnd.HP_ZERO.value, _("A player's HP reached 0")),
    (GameEnd.DECK_EMPTY.value, _("A player's deck ran out")),
    (GameEnd.SIMULTANEOUS.value, _("Both at once (draw)")),
    (GameEnd.TIME.value, _("Time ran out")),
    (GameEnd.CONCESSION.value, _("A player conceded")),
]


class RegisterForm(forms.Form):
    """Registration with one of the player's saved decks (of the event's game) or a
    pasted list. Only the player's own decks are offered or accepted; the service checks
    the chosen list against the event's format as of its date."""

    deck = forms.ModelChoiceField(
        label=_("One of my decks"),
        queryset=None,
        required=False,
        empty_label=_("— paste a list instead —"),
    )
    decklist = DecklistField(
        label=_("Decklist"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 14, "cols": 40}),
        help_text=_("One card per line, e.g. “4 森原 さとみ”. It is checked at once."),
    )

    def __init__(self, *args, user, event, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["deck"]
        # The event's own format first, then the game's other formats.
        field.queryset = (
            Deck.objects.filter(owner=user, format__game_id=event.format.game_id)
            .select_related("format")
            .annotate(
                other_format=Case(
                    When(format_id=event.format_id, then=Value(0)),
                    default=Value(1),
                    output_field=IntegerField(),
                )
            )
            .order_by("other_format", "-updated_at", "-id")
        )
        field.label_from_instance = lambda deck: f"{deck.name} ({deck.format.name})"

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("deck") and not (cleaned.get("decklist") or "").strip():
            raise forms.ValidationError(
                _("Choose one of your decks or paste a decklist."), code="decklist_missing"
            )
        return cleaned


class ReportResultForm(forms.Form):
    """Up to three games, each as the engine reads it: how it ended, HP and cards left in
    the deck per player, and who conceded. Unused games stay "not played". Every number
    is optional here: the engine asks for HP or deck counts only where the ending needs
    them (:data:`NEEDS`), and the page hides the others when scripts run.

    With ``end_rules`` (the event's game's, ``services.results.game_end_rules``) the form
    offers only the endings that game has and asks for HP only where players have HP,
    up to the game's maximum; the service checks the same rules whatever is sent."""

    expected_version = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(
        self,
        *args,
        player1: str = "",
        player2: str = "",
        end_rules: GameEndRules | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.game_numbers = range(1, MAX_GAMES + 1)
        end_choices = GAME_END_CHOICES
        hp_tracked, max_hp = True, None
        if end_rules is not None:
            end_choices = [
                (value, label)
                for value, label in GAME_END_CHOICES
                if not value or GameEnd(value) in end_rules.endings
            ]
            hp_tracked, max_hp = end_rules.hp_tracked, end_rules.max_hp
        self.hp_tracked = hp_tracked
        conceded_choices = [
            ("", _("nobody")),
            ("1", player1 or pgettext_lazy("seat", "player 1")),
            ("2", player2 or pgettext_lazy("seat", "player 2")),
        ]
        for number in self.game_numbers:
            self.fields[f"game{number}_end"] = forms.ChoiceField(
                label=_("Game %(number)s: how it ended") % {"number": number},
                choices=end_choices,
                required=False,
            )
            for seat, name in ((1, player1), (2, player2)):
                if hp_tracked:
                    self.fields[f"game{number}_hp{seat}"] = forms.IntegerField(
                        label=_("HP of %(name)s") % {"name": name},
                        min_value=0,
                        max_value=max_hp,
                        required=False,
                    )
                self.fields[f"game{number}_deck{seat}"] = forms.IntegerField(
                    label=_("Cards left in the deck of %(name)s") % {"name": name},
                    min_value=0,
                    required=False,
                )
            self.fields[f"game{number}_conceded"] = forms.ChoiceField(
                label=_("Who conceded"), choices=conceded_choices, required=False
            )

    def game_rows(self):
        """The fields of each game, for the template."""
        return [
            {
                "number": number,
                "end": self[f"game{number}_end"],
                "hp": (
                    (self[f"game{number}_hp1"], self[f"game{number}_hp2"])
                    if self.hp_tracked
                    else ()
                ),
                "deck": (self[f"game{number}_deck1"], self[f"game{number}_deck2"]),
                "conceded": self[f"game{number}_conceded"],
            }
            for number in self.game_numbers
        ]

    def clean(self):
        data = super().clean()
        games = []
        for number in self.game_numbers:
            end = data.get(f"game{number}_end")
            if not end:
                continue
            game = {"end": end}
            hp = [data.get(f"game{number}_hp1"), data.get(f"game{number}_hp2")]
            if hp != [None, None] and NEEDS["hp"].get(end, True):
                game["hp"] = hp
            deck = [data.get(f"game{number}_deck1"), data.get(f"game{number}_deck2")]
            if deck != [None, None] and NEEDS["deck"].get(end, True):
                game["deck"] = deck
            conceded = data.get(f"game{number}_conceded")
            if conceded and end == GameEnd.CONCESSION:
                game["conceded"] = [conceded == "1", conceded == "2"]
            games.append(game)
        if not games:
            raise forms.ValidationError(_("Enter at least one game."))
        data["games"] = games
        return data


# Which numbers each ending reads (rulebook 4−1−2): the page shows only these when scripts
# run, and the form passes on only these (a number left in a hidden field is not sent to
# the engine). A time-out reads HP only where more HP wins (the page knows the round's
# policy); concessions read neither.
NEEDS = {
    "hp": {
        GameEnd.HP_ZERO.value: True,
        GameEnd.DECK_EMPTY.value: True,  # the winner's HP must not be 0 too
        GameEnd.SIMULTANEOUS.value: True,
        GameEnd.TIME.value: True,  # only under "more HP wins"; harmless under a draw
        GameEnd.CONCESSION.value: False,
    },
    "deck": {
        GameEnd.HP_ZERO.value: True,  # the winner's deck must not be empty too
        GameEnd.DECK_EMPTY.value: True,
        GameEnd.SIMULTANEOUS.value: True,
        GameEnd.TIME.value: False,
        GameEnd.CONCESSION.value: False,
    },
}


class VersionForm(forms.Form):
    """Confirming a reported result: the version of the match the player saw."""

    expected_version = forms.IntegerField(widget=forms.HiddenInput)


class QuickReportForm(VersionForm):
    """One tap: the result from the reporter's own side, e.g. "2-1" (the service reads
    and checks it)."""

    record = forms.CharField(max_length=10)


class DisputeForm(VersionForm):
    reason = forms.CharField(
        label=_("What is wrong with the reported result?"),
        max_length=REASON_CHARS,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    record = forms.CharField(label=_("Your result (optional)"), max_length=10, required=False)


# --- pages about players -------------------------------------------------------------


class DecklistForm(forms.Form):
    """A player's own decklist change."""

    decklist = DecklistField(
        label=_("Decklist"),
        widget=forms.Textarea(attrs={"rows": 14, "cols": 40}),
        help_text=_("One card per line, e.g. “4 森原 さとみ”. It is checked at once."),
    )


class StaffDecklistForm(DecklistForm):
    """A decklist change by the event's staff: once the lists are locked, with a reason."""

    reason = forms.CharField(
        label=_("Reason"),
        required=False,
        max_length=REASON_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, locked: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if locked:
            reason = self.fields["reason"]
            reason.required = True
            reason.help_text = _("Required: decklists are locked.")


class ReasonForm(forms.Form):
    """Drop or re-entry: an optional reason for the audit log."""

    reason = forms.CharField(
        label=_("Reason (optional)"),
        required=False,
        max_length=REASON_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


PENALTY_EFFECTS = {
    "warning": _("Recorded only."),
    "game_loss": _(
        "The lost game becomes part of the match record, ahead of the games the players "
        "report. The match must still wait for its result: when the player's match is "
        "over, issue it on their next match."
    ),
    "match_loss": _("The match becomes a final 0-2 for the player."),
    "disqualification": _(
        "The player is disqualified: dropped from the next pairing and left out of the "
        "standings; their unfinished match of the current round is lost 0-2."
    ),
}


class InfractionSelect(forms.Select):
    """A select whose options carry data attributes (the penalty suggested for the player
    and why), read by static/js/penalty.js."""

    def __init__(self, *args, option_attrs=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.option_attrs = option_attrs or {}

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        option["attrs"].update(self.option_attrs.get(str(value), {}))
        return option


class PenaltyForm(forms.Form):
    """A penalty; the match select offers only the player's own matches.

    With ``offers`` (the event's infraction list, each with the penalty suggested for this
    player: ``tournaments.infractions.offers_for``) the infraction is picked from a select
    grouped by category and the penalty may stay "suggested"; without, the infraction is
    written and the penalty chosen."""

    infraction = forms.CharField(
        label=_("Infraction"),
        max_length=100,
        help_text=_("e.g. “Slow play”, “Drawing extra cards”."),
    )
    kind = forms.ChoiceField(label=_("Penalty"))
    match = forms.ChoiceField(
        label=_("Match"),
        required=False,
        help_text=_(
            "Needed for a game loss or a match loss. For a disqualification, empty means "
            "the player's unfinished match of the current round."
        ),
    )
    note = forms.CharField(
        label=_("Note"),
        required=False,
        max_length=NOTE_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, matches=(), offers=None, **kwargs) -> None:
        """``matches``: (match, label) pairs; ``offers``: infraction id → Offer; both
        already loaded (no query here)."""
        from .infractions import grouped_choices, suggestion_text

        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = PenaltyKind.choices
        self.matches = {str(match.pk): match for match, _label in matches}
        self.fields["match"].choices = [("", _("— no match —"))] + [
            (str(match.pk), label) for match, label in matches
        ]
        self.offers = {str(pk): offer for pk, offer in (offers or {}).items()}
        if self.offers:
            option_attrs = {
                pk: {
                    "data-suggested": offer.suggestion.kind,
                    "data-suggested-label": _("The suggested penalty: %(penalty)s")
                    % {"penalty": offer.kind_label},
                    "data-suggestion": suggestion_text(offer),
                }
                for pk, offer in self.offers.items()
            }
            self.fields["infraction"] = forms.ChoiceField(
                label=_("Infraction"),
                choices=[
                    ("", _("— choose the infraction —")),
                    *grouped_choices(offer.infraction for offer in self.offers.values()),
                ],
                help_text=_("Each with its default penalty."),
                widget=InfractionSelect(
                    option_attrs=option_attrs, attrs={"data-penalty-infraction": ""}
                ),
            )
            self.fields["kind"] = forms.ChoiceField(
                label=_("Penalty"),
                required=False,
                choices=[("", _("The suggested penalty")), *PenaltyKind.choices],
                help_text=_("Another penalty than the suggested one needs a note saying why."),
                widget=forms.Select(attrs={"data-penalty-kind": ""}),
            )
            self.order_fields(["infraction", "kind", "match", "note"])

    @property
    def suggestion(self) -> str:
        """The suggestion for the infraction chosen (a form shown again), else empty."""
        offer = self.offers.get(str(self["infraction"].value() or ""))
        if offer is None:
            return ""
        from .infractions import suggestion_text

        return suggestion_text(offer)

    def clean_infraction(self):
        value = self.cleaned_data.get("infraction")
        if self.offers:
            return self.offers[value].infraction
        return value

    def clean_match(self):
        value = self.cleaned_data.get("match")
        return self.matches.get(value) if value else None


class LateEntryForm(forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)
    decklist = DecklistField(
        label=_("Decklist"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 14, "cols": 40}),
        help_text=_(
            "Optional when the player already submitted a legal list (e.g. while on the waitlist)."
        ),
    )
    reason = forms.CharField(
        label=_("Reason (optional)"),
        required=False,
        max_length=REASON_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(
                _("No user has the username “%(username)s”."), params={"username": username}
            )
        return user
