from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext_lazy as _

from config.jobs import JobProgressAdminMixin

from .models import Card, CardMerge, CardSet, Game, ImportJob, Printing
from .names import bidi_problem, name_key
from .services import (
    create_import_job,
    derived_copies,
    derived_exempt_types,
    unlimited_problem,
)

MAX_UPLOAD_BYTES = 20 * 1024 * 1024


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]


@admin.register(CardSet)
class CardSetAdmin(admin.ModelAdmin):
    list_display = ["name", "code", "game", "release_order", "release_date", "is_beta"]
    list_filter = ["game", "is_beta"]
    search_fields = ["name", "code"]
    list_select_related = ["game"]


class PrintingInline(admin.TabularInline):
    model = Printing
    extra = 0
    autocomplete_fields = ["set"]
    # A card text is a few lines: a box that fits the row, not a 40-column one.
    formfield_overrides = {
        models.TextField: {"widget": forms.Textarea(attrs={"rows": 3, "cols": 32})},
        models.CharField: {"widget": forms.TextInput(attrs={"size": 10})},
    }


class CardMergeInline(admin.TabularInline):
    """The other written forms of this card's name that were folded into it."""

    model = CardMerge
    fk_name = "card"
    extra = 0
    can_delete = False
    fields = ["merged_name", "merged_card_id", "moved_summary", "merged_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description=_("what moved"))
    def moved_summary(self, merge):
        return merge_summary(merge)


def merge_summary(merge: CardMerge) -> str:
    labels = {
        "printings": _("printings"),
        "duplicate_printings_dropped": _("duplicate printings dropped"),
        "rulings": _("rulings"),
        "errata": _("errata"),
        "ban_entries": _("ban-list entries"),
        "copy_groups": _("copy groups"),
        "deck_lines": _("decklist lines"),
    }
    parts = [
        f"{label}: {merge.moved[key]}" for key, label in labels.items() if merge.moved.get(key)
    ]
    dropped = merge.moved.get("differing_values_dropped") or {}
    if dropped:
        values = ", ".join(f"{field}={value}" for field, value in sorted(dropped.items()))
        parts.append(_("values kept from this card instead of: %s") % values)
    return "; ".join(str(part) for part in parts) or _("nothing else")


@admin.register(CardMerge)
class CardMergeAdmin(admin.ModelAdmin):
    list_display = ["merged_name", "card", "game", "moved_summary", "merged_at"]
    list_filter = ["game"]
    search_fields = ["merged_name", "card__name"]
    list_select_related = ["card", "game"]
    readonly_fields = ["game", "card", "merged_name", "merged_card_id", "moved", "merged_at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # a record of what happened

    @admin.display(description=_("what moved"))
    def moved_summary(self, merge):
        return merge_summary(merge)


class CardAdminForm(forms.ModelForm):
    class Meta:
        model = Card
        fields = [
            "game",
            "name",
            "card_type",
            "element",
            "cost",
            "gender",
            "ap",
            "dp",
            "deck_size_min",
            "deck_size_max",
            "unlimited",
            "notes",
        ]
        # What the deck check makes of the mark (decks.engine.model.FormatRules.exempt).
        help_texts = {
            "unlimited": _(
                "Rule 1−2−3 exempts common navigators: in a format that exempts a card type,"
                " the printed rarity decides and this mark only stands in for a rarity not"
                " recorded; a format without one honours the mark if it says so."
            ),
        }

    def clean_name(self):
        name = self.cleaned_data["name"]
        problem = bidi_problem(name)
        if problem:  # as the card import refuses it (cardpool/importing.py)
            raise forms.ValidationError(problem, code="bidi_control")
        return name

    def clean(self):
        cleaned = super().clean()
        name, game = cleaned.get("name"), cleaned.get("game")
        if name and game:
            twin = (
                Card.objects.filter(game=game, name_key=name_key(name))
                .exclude(pk=self.instance.pk)
                .first()
            )
            if twin is not None:
                self.add_error(
                    "name",
                    _(
                        "“%(name)s” is the same card name as “%(other)s”: brackets, spaces and"
                        " character width are not part of a name (rules 1−2−1, 4−2−6). Edit"
                        " that card instead."
                    )
                    % {"name": name, "other": twin.name},
                )
        return cleaned


@admin.register(Card)
class CardAdmin(admin.ModelAdmin):
    form = CardAdminForm

    list_display = ["name", "game", "card_type", "element", "cost", "ap", "dp", "unlimited"]
    list_filter = ["game", "card_type", "element", "unlimited"]
    search_fields = ["name", "search_key"]
    list_select_related = ["game"]
    readonly_fields = ["copies_rule"]
    inlines = [PrintingInline, CardMergeInline]

    @admin.display(description=_("copies in a deck"))
    def copies_rule(self, card):
        """What rule 1−2−3 derives from the card's type and printed rarity (the deck check
        follows it, not the mark alone)."""
        if card.pk is None:
            return "—"
        rarities = card.printings.values_list("rarity", flat=True)
        derived = derived_copies(
            card.card_type, rarities, card.unlimited, derived_exempt_types(card.game)
        )
        return derived or "—"

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        card = form.instance
        rarities = list(card.printings.values_list("rarity", flat=True))
        if card.unlimited:
            problem = unlimited_problem(card.card_type, rarities)
            if problem:
                messages.warning(request, problem)
        derived = derived_copies(
            card.card_type, rarities, card.unlimited, derived_exempt_types(card.game)
        )
        if derived:
            messages.info(request, derived)

    def get_search_results(self, request, queryset, search_term):
        # Match the public search: width- and case-folded, spaces ignored.
        from .names import search_key

        return super().get_search_results(request, queryset, search_key(search_term))


class ImportUploadForm(forms.Form):
    game = forms.ModelChoiceField(label=_("Game"), queryset=Game.objects.all())
    file = forms.FileField(
        label=_("Card file"),
        help_text=_(
            "CSV with a header row (name, set, card_type required; number, rarity, cost, gender,"
            " ap, dp, text, unlimited, element, notes, deck_size_min, deck_size_max, release_date"
            " optional) or"
            " JSON Lines with the same keys."
        ),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(_("The file is larger than 20 MB."))
        return upload


@admin.register(ImportJob)
class ImportJobAdmin(JobProgressAdminMixin, admin.ModelAdmin):
    list_display = ["filename", "game", "job_status", "total", "created_by", "created_at"]
    list_filter = ["status", "game"]
    list_select_related = ["game", "created_by"]
    exclude = ["content"]
    readonly_fields = [
        "game",
        "filename",
        "status",
        "total",
        "done",
        "report",
        "created_by",
        "created_at",
        "finished_at",
    ]
    status_template = "admin/cardpool/_import_status.html"

    def has_change_permission(self, request, obj=None):
        return False  # an import is a record; fix data on the cards, not on the job

    def get_urls(self):
        upload = path(
            "upload/",
            self.admin_site.admin_view(self.upload_view),
            name="cardpool_importjob_upload",
        )
        return [upload, *super().get_urls()]

    def add_view(self, request, form_url="", extra_context=None):
        return redirect("admin:cardpool_importjob_upload")

    def progress_context(self, job) -> dict:
        return {"errors": job.report.get("errors", []), "notes": job.report.get("notes", [])}

    def upload_view(self, request):
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = ImportUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            job = create_import_job(
                game=form.cleaned_data["game"],
                filename=upload.name,
                content=upload.read(),
                user=request.user,
            )
            return redirect(self.progress_url(job))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Import cards"),
            "form": form,
        }
        return TemplateResponse(request, "admin/cardpool/import_upload.html", context)


from . import admin_games  # noqa: E402, F401  (the Game admin, with how its games end)
