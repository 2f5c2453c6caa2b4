from django import forms
from django.contrib import admin, messages
from django.db import models
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from config.jobs import JobProgressAdminMixin

from . import services
from .admin_forms import FormatAdminForm
from .models import (
    BanEntry,
    CopyGroup,
    Deck,
    DeckCheck,
    DeckEntry,
    Format,
    LegalSet,
    RecheckJob,
)

# Inline rows stay narrow enough for a laptop: a note is two short lines, not a 40-column
# box (the ban list made the format page 2,156 px wide).
COMPACT_WIDGETS = {
    models.TextField: {"widget": forms.Textarea(attrs={"rows": 2, "cols": 24})},
    models.CharField: {"widget": forms.TextInput(attrs={"size": 16})},
}


class BanEntryInline(admin.TabularInline):
    model = BanEntry
    extra = 0
    autocomplete_fields = ["card", "printing_set"]
    fields = ["card", "printing_set", "effective_from", "effective_until", "note", "source"]
    formfield_overrides = COMPACT_WIDGETS
    classes = ["compact-inline"]


class LegalSetInline(admin.TabularInline):
    """The sets a format allows, each from its release date or a date of its own (none
    listed: every set, on any day)."""

    model = LegalSet
    extra = 0
    autocomplete_fields = ["card_set"]
    fields = ["card_set", "legal_from"]
    classes = ["compact-inline"]
    verbose_name = _("legal set")
    verbose_name_plural = _("Legal sets (none listed: every set is legal)")


class CopyGroupInline(admin.TabularInline):
    model = CopyGroup
    extra = 0
    autocomplete_fields = ["cards"]
    formfield_overrides = COMPACT_WIDGETS
    classes = ["compact-inline"]


@admin.register(Format)
class FormatAdmin(admin.ModelAdmin):
    form = FormatAdminForm
    list_display = ["name", "slug", "game", "version", "min_deck_size", "copy_limit"]
    list_filter = ["game"]
    list_select_related = ["game"]
    search_fields = ["name", "slug"]
    readonly_fields = ["version"]
    inlines = [LegalSetInline, BanEntryInline, CopyGroupInline]
    fieldsets = [
        (None, {"fields": ["game", "slug", "name", "version", "notes"]}),
        (
            _("Deck size and copies"),
            {
                "fields": [
                    ("min_deck_size", "max_deck_size"),
                    "copy_limit",
                    ("exempt_unlimited", "exempt_card_type"),
                    ("sideboard_min", "sideboard_max"),
                    ("leader_type", "leader_count"),
                ]
            },
        ),
        (_("Rule sections cited to players"), {"fields": ["rule_sections"]}),
    ]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if change and (form.has_changed() or any(f.has_changed() for f in formsets)):
            _queue_recheck(request, form.instance, _("format edited in the admin"))


@admin.register(BanEntry)
class BanEntryAdmin(admin.ModelAdmin):
    list_display = ["card", "printing_set", "format", "effective_from", "effective_until"]
    list_filter = ["format"]
    list_select_related = ["card", "printing_set", "format"]
    autocomplete_fields = ["card", "printing_set"]
    search_fields = ["card__name", "card__search_key"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        _queue_recheck(request, obj.format, _("ban list: %s saved") % obj)

    def delete_model(self, request, obj):
        fmt, label = obj.format, str(obj)
        super().delete_model(request, obj)
        _queue_recheck(request, fmt, _("ban list: %s removed") % label)

    def delete_queryset(self, request, queryset):
        formats = {ban.format for ban in queryset.select_related("format")}
        super().delete_queryset(request, queryset)
        for fmt in formats:
            _queue_recheck(request, fmt, _("ban-list entries removed"))


def _queue_recheck(request, fmt, reason):
    job = services.format_changed(fmt, reason=str(reason), user=request.user)
    url = reverse("admin:decks_recheckjob_progress", args=[job.pk])
    messages.info(
        request,
        format_html(
            '{} <a href="{}">{}</a>',
            _("Every stored deck of this format is being checked again."),
            url,
            _("Follow the progress"),
        ),
    )


class DeckEntryInline(admin.TabularInline):
    model = DeckEntry
    extra = 0
    autocomplete_fields = ["card", "printing_set"]
    classes = ["compact-inline"]


@admin.register(Deck)
class DeckAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "format", "updated_at"]
    list_filter = ["format"]
    list_select_related = ["owner", "format"]
    search_fields = ["name", "owner__username"]
    inlines = [DeckEntryInline]


@admin.register(DeckCheck)
class DeckCheckAdmin(admin.ModelAdmin):
    list_display = ["deck", "format_version", "as_of", "legal", "checked_at"]
    list_filter = ["legal"]
    list_select_related = ["deck"]

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(RecheckJob)
class RecheckJobAdmin(JobProgressAdminMixin, admin.ModelAdmin):
    list_display = ["format", "format_version", "job_status", "total", "created_at"]
    list_filter = ["status", "format"]
    list_select_related = ["format"]
    readonly_fields = [f.name for f in RecheckJob._meta.fields]
    status_template = "admin/decks/_recheck_status.html"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
