"""The judge's form to give one table extra time (``views_rounds.extend_match_time``)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .services.clock import MAX_EXTENSION_MINUTES


class ExtendTimeForm(forms.Form):
    minutes = forms.IntegerField(
        label=_("Extra minutes"),
        min_value=1,
        max_value=MAX_EXTENSION_MINUTES,
        initial=3,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        help_text=_("For example: deck check, long ruling."),
    )
