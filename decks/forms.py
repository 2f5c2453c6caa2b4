from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import Format

MAX_DECKLIST_CHARS = 20_000


class DecklistField(forms.CharField):
    """A pasted decklist, passed on as pasted: the parser (decks/engine/parser.py) is the
    one reader of every entry point (page, API, ``check_deck``, registration), so no form
    trims or rewrites the text before it. Django's default ``strip`` dropped a list's
    leading blank lines on the registration form, so its report named other line numbers
    than the check page and the API (issue #24). A text of only spaces and line breaks is
    empty (and refused when the field is required)."""

    def __init__(self, **kwargs) -> None:
        kwargs["strip"] = False
        super().__init__(**kwargs)

    def to_python(self, value):
        text = super().to_python(value)
        return text if text.strip() else ""


class FormatChoiceField(forms.ModelChoiceField):
    def __init__(self, **kwargs):
        super().__init__(
            queryset=Format.objects.select_related("game"),
            to_field_name="slug",
            label=_("Format"),
            **kwargs,
        )


class CheckForm(forms.Form):
    format = FormatChoiceField()
    as_of = forms.DateField(
        label=_("Date"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("Ban lists as of this day (the event date); today if empty."),
    )
    decklist = DecklistField(
        label=_("Decklist"),
        max_length=MAX_DECKLIST_CHARS,
        widget=forms.Textarea(attrs={"rows": 18, "spellcheck": "false"}),
        help_text=_(
            "One card per line, e.g. “4 森原さとみ” or “森原さとみ ×4”; a line “サイドボード” "
            "(or “Sideboard (15)”, “■サイドボード”…) starts the sideboard."
        ),
    )

    def clean_as_of(self):
        return self.cleaned_data["as_of"] or timezone.localdate()


class DeckForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=200)
    format = FormatChoiceField()
    decklist = CheckForm.base_fields["decklist"]
