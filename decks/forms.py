from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import Format

MAX_DECKLIST_CHARS = 20_000


def not_blank(text: str) -> None:
    # The decklist is not stripped (line numbers must match the player's editor), so a
    # text of only spaces and line breaks must be refused here.
    if not text.strip():
        raise forms.ValidationError(forms.Field.default_error_messages["required"], "required")


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
    decklist = forms.CharField(
        label=_("Decklist"),
        max_length=MAX_DECKLIST_CHARS,
        strip=False,
        validators=[not_blank],
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
