"""The admin shows events to site staff read-only: every change goes through
``tournaments.services`` (which checks the state and writes the audit log), so the admin
cannot add, change or delete anything here. The one list organizers edit here is the
infraction list (names in both languages, default penalties, upgrades for repeats). The
user admin is Django's, with the username rules of ``tournaments.usernames`` on its add and
change forms (no look-alike of another account's name)."""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.utils.translation import gettext_lazy as _

from config.jobs import JobProgressAdminMixin

from .accounts import use_username_rules
from .models import (
    AuditEntry,
    DeckCheck,
    Event,
    EventStaff,
    ExportJob,
    Infraction,
    Match,
    MatchParticipant,
    Penalty,
    Registration,
    ResultReport,
    Round,
)
from .usernames import validate_new_username


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class EventStaffInline(ReadOnlyInline):
    model = EventStaff
    fields = ["user", "role", "created_at"]
    readonly_fields = fields


class RoundInline(ReadOnlyInline):
    model = Round
    fields = ["number", "stage", "status", "published_at", "started_at", "closed_at"]
    readonly_fields = fields


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ["name", "date", "format", "organizer", "state", "capacity"]
    list_filter = ["state", "format"]
    list_select_related = ["format", "organizer"]
    search_fields = ["name", "organizer__username"]
    date_hierarchy = "date"
    inlines = [EventStaffInline, RoundInline]


@admin.register(EventStaff)
class EventStaffAdmin(ReadOnlyAdmin):
    list_display = ["event", "user", "role"]
    list_filter = ["role"]
    list_select_related = ["event", "user"]
    search_fields = ["event__name", "user__username"]


@admin.register(Registration)
class RegistrationAdmin(ReadOnlyAdmin):
    list_display = [
        "player",
        "event",
        "status",
        "deck_submitted_at",
        "locked",
        "dropped_after_round",
        "late_entry_round",
    ]
    list_filter = ["status", "locked"]
    list_select_related = ["player", "event"]
    search_fields = ["player__username", "event__name"]


class MatchInline(ReadOnlyInline):
    model = Match
    fields = ["table", "player1", "player2", "status", "wins", "losses", "draws", "version"]
    readonly_fields = fields


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ["event", "number", "stage", "status", "started_at"]
    list_filter = ["stage", "status"]
    list_select_related = ["event"]
    search_fields = ["event__name"]
    inlines = [MatchInline]


class ParticipantInline(ReadOnlyInline):
    model = MatchParticipant
    fields = ["seat", "registration"]
    readonly_fields = fields
    show_change_link = False


class ResultReportInline(ReadOnlyInline):
    model = ResultReport
    fields = ["match_version", "kind", "reporter", "record", "reason", "created_at"]
    readonly_fields = fields
    show_change_link = False


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["round", "table", "player1", "player2", "status", "record", "version"]
    list_filter = ["status", "round__stage"]
    list_select_related = ["round__event", "player1__player", "player2__player"]
    search_fields = ["player1__player__username", "player2__player__username"]
    inlines = [ParticipantInline, ResultReportInline]

    @admin.display(description=_("record"))
    def record(self, match):
        return match.record_text


@admin.register(Penalty)
class PenaltyAdmin(ReadOnlyAdmin):
    list_display = [
        "registration",
        "kind",
        "infraction_label",
        "suggested_kind",
        "judge",
        "round",
        "created_at",
    ]
    list_filter = ["kind", "infraction_ref__category"]
    list_select_related = [
        "registration__player",
        "registration__event",
        "judge",
        "round",
        "infraction_ref",
    ]
    search_fields = ["registration__player__username", "infraction"]

    @admin.display(description=_("infraction"), ordering="infraction")
    def infraction_label(self, penalty):
        return penalty.infraction_name


@admin.register(DeckCheck)
class DeckCheckAdmin(ReadOnlyAdmin):
    """Deck checks are records (``services.deck_checks``): read-only here."""

    list_display = ["created_at", "event", "registration", "round", "judge", "method", "ok"]
    list_filter = ["ok", "method"]
    list_select_related = [
        "event",
        "registration__player",
        "registration__event",
        "round",
        "judge",
    ]
    search_fields = ["event__name", "registration__player__username", "judge__username"]
    date_hierarchy = "created_at"


@admin.register(Infraction)
class InfractionAdmin(admin.ModelAdmin):
    """The infraction list judges pick from, per game. The built-in entries
    (``tournaments.infractions.load_builtin_infractions``) are never overwritten once
    here: edit them freely; deactivate an entry instead of deleting one in use."""

    list_display = [
        "name_ja",
        "name_en",
        "game",
        "category",
        "default_penalty",
        "active",
    ]
    list_editable = ["active"]
    list_filter = ["game", "category", "default_penalty", "active", "builtin"]
    list_select_related = ["game"]
    search_fields = ["code", "name_ja", "name_en"]
    ordering = ["game", "order", "id"]
    readonly_fields = ["builtin"]
    fieldsets = [
        (None, {"fields": ["game", "code", "name_ja", "name_en", "category", "active", "order"]}),
        (
            _("Penalty"),
            {"fields": ["default_penalty", "upgrade", "upgrade_to", "repeat_scope"]},
        ),
        (
            _("Description"),
            {"fields": ["description_ja", "description_en", "source", "builtin"]},
        ),
    ]


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "event", "actor", "action", "object_type", "object_id"]
    list_filter = ["action", "object_type"]
    list_select_related = ["event", "actor"]
    search_fields = ["event__name", "actor__username", "action", "reason"]
    date_hierarchy = "created_at"


@admin.register(ExportJob)
class ExportJobAdmin(JobProgressAdminMixin, ReadOnlyAdmin):
    """Exports are records of downloads: nothing to change; old ones may be deleted."""

    list_display = ["filename", "event", "kind", "file_format", "job_status", "total", "created_by"]
    list_filter = ["status", "kind", "file_format"]
    list_select_related = ["event", "created_by"]
    search_fields = ["event__name", "created_by__username", "filename"]
    exclude = ["content"]
    status_template = "tournaments/exports/_job_status.html"

    def get_queryset(self, request):
        return super().get_queryset(request).defer("content")

    def has_delete_permission(self, request, obj=None):
        return admin.ModelAdmin.has_delete_permission(self, request, obj)

    def progress_context(self, job) -> dict:
        from .views_exports import export_url

        return {"retry_url": export_url(job)}


class SiteUserCreationForm(AdminUserCreationForm):
    """The user admin's add form: the username follows the sign-up rules
    (``tournaments.usernames``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        use_username_rules(self.fields["username"])


class SiteUserChangeForm(UserChangeForm):
    """The user admin's change form: a new username follows the sign-up rules and may not
    look like another account's (its own old name is no conflict). An unchanged name is
    not checked again, so an account made before the rules can still be edited."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "username" in self.fields:
            use_username_rules(self.fields["username"])
            self.fields["username"].validators = []

    def clean_username(self):
        username = self.cleaned_data["username"]
        if username != self.instance.get_username():
            validate_new_username(username, exclude_pk=self.instance.pk)
        return username


class SiteUserAdmin(UserAdmin):
    add_form = SiteUserCreationForm
    form = SiteUserChangeForm


_user_model = get_user_model()
if admin.site.is_registered(_user_model):
    admin.site.unregister(_user_model)
admin.site.register(_user_model, SiteUserAdmin)
