"""Forms of the organizer's event pages. They only translate what the browser sends into the
arguments of ``tournaments.services`` (create_event, update_event, add_staff); the rules
(capacity, top cut against capacity, which setting may change when) are checked there."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from cardpool.names import first_bidi_control
from decks.models import Format

from .api.limits import REASON_CHARS
from .models import (
    TOP_CUT_SIZES,
    LateEntryPolicy,
    StaffRole,
    TiebreakProfile,
    TimeoutPolicy,
)
from .services import suggested_swiss_rounds
from .services.events import EDITABLE_IN, SETTINGS

# Player counts for which the Swiss-rounds help text lists the suggested number of rounds.
SUGGESTION_PLAYER_COUNTS = (4, 8, 16, 32, 64, 128)


class NoBidiControls:
    """Refuses bidirectional embedding, override and isolate characters (U+202A–U+202E,
    U+2066–U+2069) in a name, naming the field and the character: they make a name
    display as something other than what it is ("Cup", U+202E, "gnp.exe" shows as
    "Cupexe.png").
    Used by the event and sign-up forms and the API's event serializers."""

    def __init__(self, field_label):
        self.field_label = field_label

    def __call__(self, value) -> None:
        # The same scan as the card names' and the event file's (cardpool.names).
        found = first_bidi_control(str(value))
        if found is not None:
            raise ValidationError(
                _(
                    "%(field)s contains a character that changes the text direction "
                    "(%(character)s); remove it."
                ),
                code="bidi_control",
                params={"field": self.field_label, "character": f"U+{ord(found):04X}"},
            )

    def __eq__(self, other) -> bool:
        return isinstance(other, NoBidiControls) and other.field_label == self.field_label


class DateTimeLocalInput(forms.DateTimeInput):
    """``<input type="datetime-local">``: the browser sends a wall-clock time, read in the
    current time zone (``forms.DateTimeField`` makes it aware)."""

    input_type = "datetime-local"

    def __init__(self, attrs=None) -> None:
        super().__init__(attrs=attrs, format="%Y-%m-%dT%H:%M")


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, attrs=None) -> None:
        super().__init__(attrs=attrs, format="%Y-%m-%d")


def _top_cut_label(size: int) -> str:
    if size == 0:
        return gettext("No top cut")
    return gettext("Top %(size)s") % {"size": size}


def swiss_rounds_suggestion(registered: int | None = None) -> str:
    """The help text of the Swiss-rounds field: what an empty value means and what
    :func:`~tournaments.services.suggested_swiss_rounds` suggests."""
    guide = ", ".join(
        ngettext(
            "%(rounds)s round for up to %(players)s players",
            "%(rounds)s rounds for up to %(players)s players",
            suggested_swiss_rounds(players),
        )
        % {"rounds": suggested_swiss_rounds(players), "players": players}
        for players in SUGGESTION_PLAYER_COUNTS
    )
    text = gettext(
        "Empty: set from the number of players when the event starts (suggested: %(guide)s)."
    ) % {"guide": guide}
    if registered is not None and registered >= 2:
        rounds = suggested_swiss_rounds(registered)
        now = ngettext(
            "With the %(players)s players registered now: %(rounds)s round.",
            "With the %(players)s players registered now: %(rounds)s rounds.",
            rounds,
        ) % {"players": registered, "rounds": rounds}
        text = f"{text} {now}"
    return text


# The format a new event's form starts on (as the deck check does): CrossOver's.
DEFAULT_FORMAT = "crossover"


class EventForm(forms.Form):
    """Every setting :func:`tournaments.services.create_event` takes."""

    name = forms.CharField(label=_("Name"), max_length=200, validators=[NoBidiControls(_("Name"))])
    format = forms.ModelChoiceField(
        label=_("Format"),
        queryset=Format.objects.select_related("game").order_by("game__name", "name"),
        empty_label=None,
    )
    date = forms.DateField(
        label=_("Date"), widget=DateInput, help_text=_("Decklists are checked as of this date.")
    )
    capacity = forms.IntegerField(
        label=_("Capacity"), help_text=_("The most players who get a seat; others wait.")
    )
    registration_deadline = forms.DateTimeField(
        label=_("Registration deadline"),
        required=False,
        widget=DateTimeLocalInput,
        help_text=_("Empty: registration stays open until the event starts."),
    )
    decklist_deadline = forms.DateTimeField(
        label=_("Decklist deadline"),
        required=False,
        widget=DateTimeLocalInput,
        help_text=_("Decklists lock at this time; afterwards only a judge can change one."),
    )
    swiss_rounds = forms.IntegerField(label=_("Swiss rounds"), required=False)
    round_minutes = forms.IntegerField(label=_("Round length (minutes)"), initial=50)
    tiebreak_profile = forms.ChoiceField(
        label=_("Tiebreakers"), choices=TiebreakProfile.choices, initial=TiebreakProfile.MTR
    )
    top_cut_size = forms.TypedChoiceField(
        label=_("Top cut"),
        coerce=int,
        choices=[(size, str(size)) for size in TOP_CUT_SIZES],  # labelled in __init__
        initial=0,
        help_text=_("The best players after the Swiss rounds play a single-elimination bracket."),
    )
    swiss_timeout_policy = forms.ChoiceField(
        label=_("Time-out in Swiss rounds"),
        choices=TimeoutPolicy.choices,
        initial=TimeoutPolicy.DRAW,
    )
    top_cut_timeout_policy = forms.ChoiceField(
        label=_("Time-out in the top cut"),
        choices=TimeoutPolicy.choices,
        initial=TimeoutPolicy.MORE_HP_WINS,
    )
    decklists_public_from = forms.DateTimeField(
        label=_("Decklists public from"),
        required=False,
        widget=DateTimeLocalInput,
        help_text=_("Empty: decklists stay private."),
    )
    allow_reentry = forms.BooleanField(label=_("Dropped players may re-enter"), required=False)
    late_entry_policy = forms.ChoiceField(
        label=_("Missed rounds of late entries"),
        choices=LateEntryPolicy.choices,
        initial=LateEntryPolicy.LOSSES,
    )

    def __init__(self, *args, registered: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["swiss_rounds"].help_text = swiss_rounds_suggestion(registered)
        # formats grouped by their game (``<optgroup>``); the field still looks the
        # chosen one up in its queryset
        by_game: dict[str, list] = {}
        for fmt in self.fields["format"].queryset:
            by_game.setdefault(fmt.game.name, []).append((fmt.pk, fmt.name))
            # a new event starts on the site's first game, not the alphabetically first
            if fmt.slug == DEFAULT_FORMAT and "format" not in self.initial:
                self.initial["format"] = fmt.pk
        self.fields["format"].choices = list(by_game.items())
        # the labels are built when the form is, in the language of the request
        self.fields["top_cut_size"].choices = [
            (size, _top_cut_label(size)) for size in TOP_CUT_SIZES
        ]

    def settings(self) -> dict:
        """The cleaned values as keyword arguments of the services."""
        return {name: self.cleaned_data[name] for name in SETTINGS}


def _same(old, new) -> bool:
    # datetime-local inputs carry minutes: a stored 10:00:30 shown as 10:00 is unchanged
    if isinstance(old, dt.datetime) and isinstance(new, dt.datetime):
        return old.replace(second=0, microsecond=0) == new.replace(second=0, microsecond=0)
    return old == new


class EventSettingsForm(EventForm):
    """The settings of an existing event, prefilled. Fields that cannot change in the
    event's state (``EDITABLE_IN``) are disabled; a changed value for one of them (the
    event moved on since the page was loaded, or a hand-made request) is refused on the
    field rather than silently dropped."""

    reason = forms.CharField(
        label=_("Reason for the change"),
        required=False,
        max_length=REASON_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Optional; kept in the audit log."),
    )
    # The event as this page saw it: a save over someone else's change is refused.
    loaded = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, event, registered: int | None = None, **kwargs) -> None:
        kwargs["initial"] = {
            **{name: getattr(event, name) for name in SETTINGS},
            "loaded": event.updated_at.isoformat(),
        }
        super().__init__(*args, registered=registered, **kwargs)
        self.event = event
        self.locked = [name for name in SETTINGS if event.state not in EDITABLE_IN[name]]
        for name in self.locked:
            self.fields[name].disabled = True

    def clean(self):
        data = super().clean()
        for name in self.locked:
            field = self.fields[name]
            key = self.add_prefix(name)
            if field.widget.value_omitted_from_data(self.data, self.files, key) or (
                isinstance(field, forms.BooleanField) and key not in self.data
            ):
                continue  # browsers do not send disabled inputs (nor unticked boxes)
            raw = field.widget.value_from_datadict(self.data, self.files, self.add_prefix(name))
            try:
                sent = field.clean(raw)
            except forms.ValidationError:
                sent = raw
            if not _same(self.initial[name], sent):
                self.add_error(
                    name,
                    gettext("This setting cannot change while the event is “%(state)s”.")
                    % {"state": self.event.get_state_display()},
                )
        return data

    def loaded_at(self):
        """The ``updated_at`` the page was loaded with (None if absent or garbled)."""
        try:
            return dt.datetime.fromisoformat(self.cleaned_data.get("loaded") or "")
        except ValueError:
            return None

    def changed_settings(self) -> dict:
        """Only the settings whose value differs from the event's."""
        return {
            name: self.cleaned_data[name]
            for name in SETTINGS
            if name not in self.locked and not _same(self.initial[name], self.cleaned_data[name])
        }


class StaffForm(forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)
    role = forms.ChoiceField(label=_("Role"), choices=StaffRole.choices, initial=StaffRole.JUDGE)
