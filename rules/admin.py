"""Admin for judges: documents with their section tree, rulings and errata with history.

Rulings and errata are saved and deleted through the service functions so that every
change is kept as a revision. Searching uses the same folded substring search as the
public pages (Japanese and English, any width, section numbers with any dash).
"""

from __future__ import annotations

import datetime as dt
from functools import reduce
from operator import and_

from django.contrib import admin, messages
from django.contrib.admin.views.main import ORDER_VAR
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Q
from django.utils.dateformat import format as format_date
from django.utils.formats import get_format
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from cardpool.models import Game

from . import services
from .history import FieldChange, field_changes
from .messages import describe_flag
from .models import (
    Erratum,
    ErratumRevision,
    RulesDocument,
    Ruling,
    RulingRevision,
    RulingStatus,
    Section,
)
from .search import parse_query
from .selectors import document_tree, search_rulings, search_sections


class RankedSearchMixin:
    """Admin search through rules.search, best matches first unless the judge sorted
    by a column."""

    def search(self, queryset, query):  # pragma: no cover - overridden
        raise NotImplementedError

    def get_search_results(self, request, queryset, search_term):
        query = parse_query(search_term)
        if not query:
            return queryset, False
        found = self.search(queryset, query)
        if ORDER_VAR not in request.GET:
            # The change list has ordered the queryset already; rank before that.
            found = found.order_by("search_tier", *found.query.order_by)
        return found, False


class ReadOnlyRevisionInline(admin.TabularInline):
    extra = 0
    can_delete = False
    fields = ["changed_at", "changed_by", "action", "changes"]
    readonly_fields = fields
    ordering = ["-changed_at", "-id"]
    verbose_name = _("change")
    verbose_name_plural = _("history (every change is kept)")
    classes = ["history-inline"]  # static/css/admin.css: one change per card on a phone

    def get_queryset(self, request):
        # Who made each change, in the same query (not one query per revision).
        return super().get_queryset(request).select_related("changed_by")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("what changed"))
    def changes(self, revision):
        return format_changes(revision)


def format_changes(revision) -> str:
    """What a ruling's or erratum's revision changed, readable: each field by its label,
    values as the admin shows them (status names, dates in the reader's format), a text's
    removed and added parts marked inside it, a list's removed and added items."""
    model = Ruling if isinstance(revision, RulingRevision) else Erratum
    order = [field.name for field in model._meta.get_fields()]
    changes = field_changes(revision.before, revision.after, order)
    if not changes:
        return "—"
    return format_html(
        '<ul class="history-diff">{}</ul>',
        format_html_join(
            "",
            '<li><span class="history-field">{}</span> {}</li>',
            ((_field_label(model, change.field), _render_change(change)) for change in changes),
        ),
    )


def _field_label(model, name: str) -> str:
    try:
        return capfirst(model._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:
        return name


def _render_change(change: FieldChange) -> str:
    if change.kind == "text":
        return format_html_join(
            "",
            "{}",
            (
                (
                    format_html(
                        {"same": "{}", "removed": "<del>{}</del>", "added": "<ins>{}</ins>"}[kind],
                        text,
                    ),
                )
                for kind, text in change.pieces
            ),
        )
    if change.kind == "list":
        removed = [format_html("<del>{}</del>", item) for item in change.removed]
        added = [format_html("<ins>{}</ins>", item) for item in change.added]
        return format_html_join(", ", "{}", ((item,) for item in removed + added))
    old, new = _human(change.field, change.before), _human(change.field, change.after)
    if change.before is None:
        return format_html("<ins>{}</ins>", new)
    if change.after is None:
        return format_html("<del>{}</del>", old)
    return format_html("<del>{}</del> → <ins>{}</ins>", old, new)


def _human(field: str, value) -> str:
    """A stored revision value as the admin shows the field."""
    if value is None or value == "":
        return "—"
    if field == "status":
        try:
            return str(RulingStatus(value).label)
        except ValueError:
            return str(value)
    if field == "game":
        game = Game.objects.filter(slug=value).only("name").first()
        return game.name if game else str(value)
    if field == "superseded_by":
        return gettext("ruling #%(id)s") % {"id": value}
    if field == "date":
        try:
            return format_date(dt.date.fromisoformat(value), get_format("DATE_FORMAT"))
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    return str(value)


# --- documents and sections -----------------------------------------------------------------


@admin.register(RulesDocument)
class RulesDocumentAdmin(admin.ModelAdmin):
    list_display = ["title", "game", "version", "date", "is_current", "imported_at"]
    list_filter = ["game", "is_current"]
    list_select_related = ["game"]
    search_fields = ["title", "version"]
    readonly_fields = [
        "game",
        "title",
        "version",
        "date",
        "is_current",
        "style",
        "source_name",
        "imported_at",
        "changes_summary",
    ]
    exclude = ["changes", "checksum"]
    actions = ["make_current"]
    change_form_template = "admin/rules/rulesdocument/change_form.html"

    def has_add_permission(self, request):
        return False  # documents come from `manage.py import_rules`

    def change_view(self, request, object_id, form_url="", extra_context=None):
        document = self.get_object(request, object_id)
        extra_context = {
            **(extra_context or {}),
            "tree": document_tree(document) if document else [],
        }
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description=_("changes from the previous version"))
    def changes_summary(self, document):
        changes = document.changes or {}
        if not changes.get("previous"):
            return "—"
        rows = [
            (label, f"{entry['number']} {entry['title']}".strip())
            for label, key in (
                (_("added"), "added"),
                (_("removed"), "removed"),
                (_("changed"), "changed"),
            )
            for entry in changes.get(key, [])
        ]
        return format_html(
            "{}<ul>{}</ul>",
            _("Compared with version %(version)s:") % {"version": changes["previous"]["version"]},
            format_html_join("", "<li>{}: {}</li>", rows),
        )

    @admin.action(description=_("Make the selected version current"), permissions=["change"])
    def make_current(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(request, _("Select exactly one version."), messages.ERROR)
            return
        services.make_document_current(queryset.get())
        self.message_user(request, _("The selected version is now current."))


@admin.register(Section)
class SectionAdmin(RankedSearchMixin, admin.ModelAdmin):
    list_display = ["__str__", "document", "needs_review"]
    list_filter = ["needs_review", "document__game", "document__is_current"]
    list_select_related = ["document__game"]
    search_fields = ["search_text"]  # the search itself is get_search_results
    fields = [
        "document",
        "number",
        "title",
        "parent",
        "body",
        "review_flags_display",
        "needs_review",
        "review_note",
    ]
    readonly_fields = ["document", "number", "title", "parent", "body", "review_flags_display"]

    def search(self, queryset, query):
        return search_sections(queryset, query)

    def has_add_permission(self, request):
        return False  # sections come with their document

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("what looked odd"))
    def review_flags_display(self, section):
        flags = [(describe_flag(flag),) for flag in section.review_flags]
        if not flags:
            return "—"
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{}</li>", flags))


# --- rulings ------------------------------------------------------------------------------------


class RulingRevisionInline(ReadOnlyRevisionInline):
    model = RulingRevision
    fk_name = "ruling"


@admin.register(Ruling)
class RulingAdmin(RankedSearchMixin, admin.ModelAdmin):
    list_display = ["__str__", "game", "status", "date", "source"]
    list_filter = ["game", "status"]
    list_select_related = ["game"]
    search_fields = ["search_text"]
    autocomplete_fields = ["cards", "sections", "superseded_by"]
    fields = [
        "game",
        "question",
        "answer",
        "cards",
        "sections",
        "source",
        "date",
        "status",
        "superseded_by",
    ]
    inlines = [RulingRevisionInline]

    def search(self, queryset, query):
        return search_rulings(queryset, query)

    def save_model(self, request, obj, form, change):
        services.save_ruling(
            obj,
            by=request.user,
            cards=form.cleaned_data.get("cards", []),
            sections=form.cleaned_data.get("sections", []),
        )

    def save_related(self, request, form, formsets, change):
        # save_model has set the cards and sections (and written the revision); only
        # the (read-only) inlines remain.
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def delete_model(self, request, obj):
        services.delete_ruling(obj, by=request.user)

    def delete_queryset(self, request, queryset):
        for ruling in queryset:
            services.delete_ruling(ruling, by=request.user)


# --- errata --------------------------------------------------------------------------------------


class ErratumRevisionInline(ReadOnlyRevisionInline):
    model = ErratumRevision
    fk_name = "erratum"


@admin.register(Erratum)
class ErratumAdmin(admin.ModelAdmin):
    list_display = ["card", "date", "source"]
    list_filter = ["card__game"]
    list_select_related = ["card"]
    search_fields = ["card__search_key"]
    autocomplete_fields = ["card"]
    fields = ["card", "date", "new_text", "source"]
    inlines = [ErratumRevisionInline]

    def get_search_results(self, request, queryset, search_term):
        # By card name, folded like the card search (width, case and spaces ignored).
        query = parse_query(search_term)
        if not query:
            return queryset, False
        condition = reduce(and_, (Q(card__search_key__contains=term) for term in query.terms))
        return queryset.filter(condition), False

    def save_model(self, request, obj, form, change):
        services.save_erratum(obj, by=request.user)

    def delete_model(self, request, obj):
        services.delete_erratum(obj, by=request.user)

    def delete_queryset(self, request, queryset):
        for erratum in queryset:
            services.delete_erratum(erratum, by=request.user)


# --- history of deleted rulings and errata ------------------------------------------------------


class RevisionAdmin(admin.ModelAdmin):
    list_display = ["object_id", "subject", "action", "changed_at", "changed_by"]
    list_filter = ["action"]
    list_select_related = ["changed_by"]
    fields = ["object_id", "subject", "action", "changed_at", "changed_by", "changes"]
    readonly_fields = fields
    # The snapshot field that says what the ruling or erratum was about.
    subject_field = ""

    @admin.display(description=_("about"))
    def subject(self, revision):
        snapshot = revision.after or revision.before or {}
        text = " ".join(str(snapshot.get(self.subject_field) or "").split())
        return (text if len(text) <= 60 else f"{text[:59]}…") or "—"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("what changed"))
    def changes(self, revision):
        return format_changes(revision)


@admin.register(RulingRevision)
class RulingRevisionAdmin(RevisionAdmin):
    subject_field = "question"


@admin.register(ErratumRevision)
class ErratumRevisionAdmin(RevisionAdmin):
    subject_field = "card"
