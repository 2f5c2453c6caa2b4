"""Forms of the public rules pages: search and the judge calculator."""

from __future__ import annotations

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from cardpool.models import Game, Gender

from .calculator import CHARACTER, NAVIGATOR, CalculatorError, Effect, SourceKind, State, Step


class SearchForm(forms.Form):
    q = forms.CharField(
        label=_("Search"),
        max_length=200,
        required=False,
        help_text=_("Words, a card name or a section number such as 4-3-8."),
    )
    game = forms.ModelChoiceField(
        label=_("Game"),
        queryset=Game.objects.filter(rules_documents__is_current=True).distinct().order_by("name"),
        to_field_name="slug",
        required=False,
        empty_label=_("All games"),
    )


SOURCE_KIND_CHOICES = [
    (SourceKind.EVENT.value, pgettext_lazy("card type", "Event")),
    (SourceKind.SPELL.value, pgettext_lazy("card type", "Spell")),
    (SourceKind.ITEM.value, pgettext_lazy("card type", "Item")),
    (SourceKind.CHARACTER.value, pgettext_lazy("card type", "Character")),
    (SourceKind.NAVIGATOR.value, pgettext_lazy("card type", "Navigator")),
]
SOURCE_KIND_LABELS = dict(SOURCE_KIND_CHOICES)

STEP_CHOICES = [
    (Step.IMMUNITY.value, _("1) Decide what is invalidated")),
    (Step.TYPE.value, _("2) Decide the type")),
    (Step.ABILITIES.value, _("3) Decide the abilities")),
    (Step.SET_VALUES.value, _("4) Set AP:DP")),
    (Step.MODIFY_VALUES.value, _("5) Modify AP:DP")),
    (Step.SPECIAL.value, _("6) Special rules for AP:DP")),
]
STEP_LABELS = dict(STEP_CHOICES)

CARD_TYPE_CHOICES = [
    (CHARACTER, pgettext_lazy("card type", "Character")),
    (NAVIGATOR, pgettext_lazy("card type", "Navigator")),
]


class CharacterForm(forms.Form):
    name = forms.CharField(label=_("Card"), max_length=200)
    card_type = forms.ChoiceField(label=_("Type"), choices=CARD_TYPE_CHOICES, initial=CHARACTER)
    gender = forms.ChoiceField(
        label=_("Gender"), choices=[("", "—"), *Gender.choices], required=False
    )
    ap = forms.IntegerField(label=_("AP"), min_value=0, max_value=99)
    dp = forms.IntegerField(label=_("DP"), min_value=0, max_value=99)
    abilities = forms.CharField(
        label=_("Abilities"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("One per line."),
    )
    damage = forms.IntegerField(label=_("Damage taken"), min_value=0, max_value=99, initial=0)

    def printed_state(self) -> State:
        data = self.cleaned_data
        abilities = tuple(line.strip() for line in data["abilities"].splitlines() if line.strip())
        return State(
            card_type=data["card_type"],
            gender=data["gender"] or None,
            abilities=abilities,
            ap=data["ap"],
            dp=data["dp"],
        )


class EffectForm(forms.Form):
    """One effect row. A row left blank is ignored (the page offers spare rows); a row
    counts once any of its fields is filled, and then needs its source card, its kind,
    its step and something for that step. ``row`` (from 1) names the row in errors."""

    source = forms.CharField(label=_("Source card"), max_length=200, required=False)
    source_kind = forms.ChoiceField(
        label=_("Source kind"), choices=[("", "—"), *SOURCE_KIND_CHOICES], required=False
    )
    step = forms.TypedChoiceField(
        label=_("Step"),
        choices=[("", "—"), *STEP_CHOICES],
        coerce=int,
        empty_value=None,
        required=False,
    )
    immune_to = forms.MultipleChoiceField(
        label=_("Unaffected by"),
        choices=SOURCE_KIND_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    card_type = forms.ChoiceField(
        label=_("Becomes"), choices=[("", "—"), *CARD_TYPE_CHOICES], required=False
    )
    gender = forms.ChoiceField(
        label=_("Gender"), choices=[("", "—"), *Gender.choices], required=False
    )
    lose_all_abilities = forms.BooleanField(label=_("Loses all abilities"), required=False)
    gain_ability = forms.CharField(label=_("Gains ability"), max_length=200, required=False)
    ap = forms.IntegerField(label=_("AP"), min_value=-99, max_value=99, required=False)
    dp = forms.IntegerField(label=_("DP"), min_value=-99, max_value=99, required=False)

    # What a row needs once it counts.
    NEEDED = ("source", "source_kind", "step")

    def __init__(self, *args, row: int = 1, **kwargs):
        self.row = row
        super().__init__(*args, **kwargs)

    def is_blank(self) -> bool:
        """Whether nothing at all was filled in (the row is ignored)."""
        if not self.is_bound:
            return True
        for name, field in self.fields.items():
            value = field.widget.value_from_datadict(self.data, self.files, self.add_prefix(name))
            if isinstance(value, list | tuple):
                if any(str(item).strip() for item in value):
                    return False
            elif value is True or (isinstance(value, str) and value.strip()):
                return False
        return True

    def has_changed(self) -> bool:
        # A blank extra row is "unchanged", so the formset skips its validation.
        return not self.is_blank()

    def clean(self):
        data = super().clean()
        if self.is_blank():
            return {}
        for name in self.NEEDED:
            if name not in self.errors and data.get(name) in (None, ""):
                self.add_error(
                    name,
                    forms.ValidationError(
                        _(
                            "Effect row %(row)s: fill in “%(field)s” too, or clear the "
                            "whole row to leave it out."
                        ),
                        code="required",
                        params={"row": self.row, "field": self.fields[name].label},
                    ),
                )
        if self.errors:
            return data
        try:
            data["effect"] = self.to_effect(data)
        except CalculatorError:
            raise forms.ValidationError(
                _("Fill in what this effect does in its step."), code="empty_effect"
            ) from None
        return data

    @staticmethod
    def to_effect(data) -> Effect:
        step = Step(data["step"])
        return Effect(
            source=data["source"],
            source_kind=SourceKind(data["source_kind"]),
            step=step,
            immune_to=frozenset(SourceKind(kind) for kind in data.get("immune_to") or ())
            if step == Step.IMMUNITY
            else frozenset(),
            card_type=(data.get("card_type") or None) if step == Step.TYPE else None,
            gender=(data.get("gender") or None) if step == Step.TYPE else None,
            lose_all_abilities=bool(data.get("lose_all_abilities"))
            if step == Step.ABILITIES
            else False,
            gain_abilities=(data["gain_ability"],)
            if step == Step.ABILITIES and data.get("gain_ability")
            else (),
            ap=data.get("ap") if step in (Step.SET_VALUES, Step.MODIFY_VALUES) else None,
            dp=data.get("dp") if step in (Step.SET_VALUES, Step.MODIFY_VALUES) else None,
            swap_ap_dp=step == Step.SPECIAL,
        )


class BaseEffectFormSet(forms.BaseFormSet):
    def get_form_kwargs(self, index):
        kwargs = super().get_form_kwargs(index)
        if index is not None:
            kwargs["row"] = index + 1
        return kwargs

    def effects(self) -> list[Effect]:
        """The effects of the rows that count (blank rows left out), in order."""
        return [form.cleaned_data["effect"] for form in self.forms if form.cleaned_data]

    def row_errors(self) -> list[str]:
        """Every row's errors, each naming its row (and field), for a summary above the
        form."""
        messages = []
        for form in self.forms:
            for name, errors in form.errors.as_data().items():
                for error in errors:
                    text = " ".join(error.messages)
                    if error.code == "required":  # names its row and field already
                        messages.append(text)
                    elif name == NON_FIELD_ERRORS:
                        messages.append(
                            _("Effect row %(row)s: %(error)s") % {"row": form.row, "error": text}
                        )
                    else:
                        messages.append(
                            _("Effect row %(row)s, “%(field)s”: %(error)s")
                            % {"row": form.row, "field": form.fields[name].label, "error": text}
                        )
        return messages


# Three blank rows on an empty form; a bound form has as many as submitted. Blank rows
# are ignored, so a worked example comes with one spare row.
EffectFormSet = forms.formset_factory(
    EffectForm, formset=BaseEffectFormSet, extra=3, max_num=30, validate_max=True
)


def effect_initial(effect: Effect) -> dict:
    """Form data for an effect (to show a worked example in the form)."""
    return {
        "source": effect.source,
        "source_kind": effect.source_kind.value,
        "step": effect.step.value,
        "immune_to": sorted(kind.value for kind in effect.immune_to),
        "card_type": effect.card_type or "",
        "gender": effect.gender or "",
        "lose_all_abilities": effect.lose_all_abilities,
        "gain_ability": effect.gain_abilities[0] if effect.gain_abilities else "",
        "ap": effect.ap,
        "dp": effect.dp,
    }
