"""The organizer's event pages: create an event, edit its settings, move it through its life
cycle (open registration, start, finish), manage the staff team, read the audit log.

Like every page here, these only translate: permissions come from ``tournaments.policy``
(an event the user may not see is a 404, a missing permission a 403), changes go through
``tournaments.services`` and the services' refusals are shown on the form field they name
or as a message on the dashboard.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe

from . import audit_texts, policy, selectors, services
from .forms_event import EventForm, EventSettingsForm, StaffForm
from .models import EventState, StaffRole
from .services.errors import NotAllowed, TournamentError
from .views import _event_and_access, _require_staff, error_text

AUDIT_PAGE_SIZE = 50

# Texts for the service error codes met on these pages (``%(name)s`` placeholders are
# filled from the error's details and what the view adds); other codes fall back to
# ``tournaments.views.error_text``.
EVENT_ERROR_TEXTS = {
    "capacity_below_registered": gettext_lazy(
        "%(registered)s players are registered: the capacity cannot be lower."
    ),
    "swiss_rounds_below_played": gettext_lazy(
        "%(played)s Swiss rounds exist already: there cannot be fewer."
    ),
    "setting_locked": gettext_lazy("This setting cannot change while the event is “%(state)s”."),
    "wrong_event_state": gettext_lazy("Not possible while the event is “%(state)s”."),
    "decklists_missing": gettext_lazy("These players have no decklist yet: %(names)s."),
    "swiss_not_complete": gettext_lazy(
        "Only %(played)s of %(total)s Swiss rounds have been played."
    ),
    "previous_round_open": gettext_lazy("Close the last round first."),
    "top_cut_pending": gettext_lazy(
        "This event has a top cut: generate it before finishing the event."
    ),
    "bracket_not_complete": gettext_lazy("The final of the top cut has not been played yet."),
    "user_is_organizer": gettext_lazy("%(user)s is the organizer of this event."),
    "user_is_player": gettext_lazy(
        "%(user)s plays in this event: a player cannot be on its staff."
    ),
    "already_staff": gettext_lazy("%(user)s is already on the staff."),
    "invalid_role": gettext_lazy("Choose a role."),
}

# ``invalid_setting`` names its field; the text depends on which.
INVALID_SETTING_TEXTS = {
    "name": gettext_lazy("Give a name of 1 to 200 characters."),
    "capacity": gettext_lazy("The capacity must be at least 2 players."),
    "round_minutes": gettext_lazy("A round lasts at least 1 minute."),
    "swiss_rounds": gettext_lazy("At least 1 Swiss round, or leave it empty."),
    "top_cut_size": gettext_lazy("The top cut cannot be larger than the capacity."),
    **dict.fromkeys(
        ("registration_deadline", "decklist_deadline", "decklists_public_from"),
        gettext_lazy("Give a time from the year 2000 to 8999."),
    ),
}

# The form field of errors whose details name none.
ERROR_FIELDS = {
    "capacity_below_registered": "capacity",
    "swiss_rounds_below_played": "swiss_rounds",
    "user_is_organizer": "username",
    "user_is_player": "username",
    "already_staff": "username",
    "invalid_role": "role",
}


def _state_label(value: str) -> str:
    return str(EventState(value).label) if value in EventState.values else value


def event_error_text(error: TournamentError, **values) -> str:
    if error.code == "invalid_setting" and error.details.get("field") in INVALID_SETTING_TEXTS:
        return str(INVALID_SETTING_TEXTS[error.details["field"]])
    template = EVENT_ERROR_TEXTS.get(error.code)
    if template is None:
        return error_text(error)
    values = {**error.details, **values}
    if "current" in values:
        values.setdefault("state", _state_label(values["current"]))
    try:
        return str(template) % values
    except (KeyError, TypeError, ValueError):
        return error_text(error)


SETTINGS_CHANGED_MEANWHILE = gettext_lazy(
    "Someone changed this event after you opened its settings: nothing was saved. "
    "Here are the current settings; make your change again."
)


def _add_service_error(form, error: TournamentError, **values) -> None:
    """Show a service refusal on the field it names (else above the form)."""
    field = error.details.get("field") or ERROR_FIELDS.get(error.code)
    form.add_error(field if field in form.fields else None, event_error_text(error, **values))


def _posted(request):
    """The form data of a POST (even an empty one: that is a form with errors), else None."""
    return request.POST if request.method == "POST" else None


# --- create and edit -----------------------------------------------------------------


@login_required
def event_create(request):
    """A new event in the draft state, owned by the signed-in user."""
    policy.require(policy.can_create_event(request.user), "login_required")
    form = EventForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        try:
            event = services.create_event(organizer=request.user, **form.settings())
        except NotAllowed:
            raise
        except TournamentError as error:
            _add_service_error(form, error)
        else:
            messages.success(
                request,
                _(
                    "Event created as a draft: only its staff can see it. "
                    "Open registration when it is ready."
                ),
            )
            return redirect("tournaments:dashboard", pk=event.pk)
    return render(
        request,
        "tournaments/event/event_form.html",
        {"form": form, "event": None},
        status=400 if form.is_bound else 200,
    )


@login_required
def event_edit(request, pk: int):
    """The event's settings, prefilled; only the changed ones go to ``update_event``."""
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_edit_event(access), "not_manager")
    # registered_count: annotated by selectors.event_list
    form = EventSettingsForm(_posted(request), event=event, registered=event.registered_count)
    if request.method == "POST" and form.is_valid():
        changes = form.changed_settings()
        if not changes:
            messages.info(request, _("Nothing was changed."))
            return redirect("tournaments:event_edit", pk=event.pk)
        try:
            services.update_event(
                event,
                actor=request.user,
                reason=form.cleaned_data["reason"].strip(),
                expected_updated_at=form.loaded_at(),
                **changes,
            )
        except NotAllowed:
            raise
        except TournamentError as error:
            if error.code == "stale_version":
                messages.error(request, SETTINGS_CHANGED_MEANWHILE)
                return redirect("tournaments:event_edit", pk=event.pk)
            _add_service_error(form, error)
        else:
            messages.success(request, _("Settings saved."))
            return redirect("tournaments:dashboard", pk=event.pk)
    return render(
        request,
        "tournaments/event/event_form.html",
        {"form": form, "event": event},
        status=400 if form.is_bound else 200,
    )


# --- life cycle ----------------------------------------------------------------------

TRANSITIONS = {
    "open-registration": (
        services.open_registration,
        gettext_lazy("Registration is open: players can now register."),
    ),
    "start": (
        services.start_event,
        gettext_lazy("The event has started and its decklists are locked: generate round 1."),
    ),
    "finish": (services.finish_event, gettext_lazy("The event is finished.")),
}


def _missing_decklist_names(request, event, access, registration_ids) -> str:
    registrations = selectors.registration_list(request.user, event, access).filter(
        pk__in=registration_ids
    )
    return ", ".join(selectors.display_name(registration) for registration in registrations)


@login_required
@require_POST
def event_transition(request, pk: int, action: str):
    if action not in TRANSITIONS:
        raise Http404
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_edit_event(access), "not_manager")
    service, done = TRANSITIONS[action]
    if action == "finish" and request.POST.get("confirm") != "yes":
        # Finishing cannot be undone: the dashboard's form asks for a ticked box, and a
        # request without it (a stale form, a script) is refused here too.
        messages.error(
            request, _("Tick “I understand” to finish the event: finishing cannot be undone.")
        )
        return redirect("tournaments:dashboard", pk=event.pk)
    try:
        service(event, actor=request.user)
    except NotAllowed:
        raise
    except TournamentError as error:
        values = {"total": event.swiss_rounds}
        if error.code == "decklists_missing":
            values["names"] = _missing_decklist_names(
                request, event, access, error.details.get("registrations", [])
            )
        messages.error(request, event_error_text(error, **values))
    else:
        messages.success(request, str(done))
    return redirect("tournaments:dashboard", pk=event.pk)


# --- staff team ----------------------------------------------------------------------


def _user_by_username(username: str):
    user_model = get_user_model()
    users = user_model._default_manager.filter(is_active=True)
    return users.filter(**{user_model.USERNAME_FIELD: username}).first()


@login_required
def staff_team(request, pk: int):
    """The event's staff, for all of it; the organizer adds co-organizers and judges."""
    event, access = _event_and_access(request, pk)
    _require_staff(access)
    can_manage = policy.can_manage_staff(access)
    form = StaffForm(_posted(request))
    if request.method == "POST":
        policy.require(can_manage, "not_organizer")
        if form.is_valid():
            username = form.cleaned_data["username"].strip()
            user = _user_by_username(username)
            if user is None:
                form.add_error("username", _("No user with this username."))
            else:
                try:
                    staff = services.add_staff(
                        event, actor=request.user, user=user, role=form.cleaned_data["role"]
                    )
                except NotAllowed:
                    raise
                except TournamentError as error:
                    _add_service_error(form, error, user=user.get_username())
                else:
                    messages.success(
                        request,
                        _("%(user)s added as %(role)s.")
                        % {"user": user.get_username(), "role": staff.get_role_display()},
                    )
                    return redirect("tournaments:staff_team", pk=event.pk)
    team = selectors.staff_list(request.user, event, access)
    return render(
        request,
        "tournaments/event/staff_team.html",
        {
            "event": event,
            "access": access,
            "team": team,
            "can_manage": can_manage,
            "form": form if can_manage else None,
            "roles": StaffRole,
        },
        status=400 if form.is_bound else 200,
    )


@login_required
@require_POST
def staff_remove(request, pk: int, staff_id: int):
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_manage_staff(access), "not_organizer")
    staff = get_object_or_404(selectors.staff_list(request.user, event, access), pk=staff_id)
    staff.event = event
    try:
        services.remove_staff(staff, actor=request.user)
    except NotAllowed:
        raise
    except TournamentError as error:
        messages.error(request, event_error_text(error, user=staff.user.get_username()))
    else:
        messages.success(
            request, _("%(user)s removed from the staff.") % {"user": staff.user.get_username()}
        )
    return redirect("tournaments:staff_team", pk=event.pk)


# --- audit log -----------------------------------------------------------------------


@login_required
@require_safe
def audit_log(request, pk: int):
    """Every audit entry of the event, newest first, 50 a page, filtered by action prefix
    (``?action=match.``) and object type (``?object_type=registration``); each entry as a
    sentence with its changed fields (``tournaments.audit_texts``)."""
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_view_audit(access), "not_staff")
    entries = selectors.audit_log(request.user, event, access)
    kinds = list(entries.order_by().values_list("action", "object_type").distinct())
    action = request.GET.get("action", "").strip()
    object_type = request.GET.get("object_type", "").strip()
    if action:
        entries = entries.filter(action__startswith=action)
    if object_type:
        entries = entries.filter(object_type=object_type)
    entries = audit_texts.with_names(entries, request.user, event, access)
    page = Paginator(entries, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))
    rows = audit_texts.audit_rows(page.object_list, user=request.user, event=event, access=access)
    actions = sorted({name for name, _type in kinds})
    prefixes = sorted({name.split(".")[0] + "." for name in actions})
    action_choices = []
    for prefix in prefixes:
        action_choices.append((prefix, audit_texts.group_label(prefix)))
        action_choices += [
            (name, audit_texts.action_label(name)) for name in actions if name.startswith(prefix)
        ]
    if action and action not in dict(action_choices):
        action_choices.append((action, audit_texts.action_label(action)))
    type_choices = [
        (name, audit_texts.type_label(name)) for name in sorted({t for _name, t in kinds})
    ]
    if object_type and object_type not in dict(type_choices):
        type_choices.append((object_type, audit_texts.type_label(object_type)))
    query = urlencode(
        {key: value for key, value in (("action", action), ("object_type", object_type)) if value}
    )
    return render(
        request,
        "tournaments/event/audit_log.html",
        {
            "event": event,
            "access": access,
            "page": page,
            "rows": rows,
            "action": action,
            "object_type": object_type,
            "action_choices": action_choices,
            "type_choices": type_choices,
            "query": query,
        },
    )


urlpatterns = [
    path("new/", event_create, name="event_create"),
    path("<int:pk>/staff/settings/", event_edit, name="event_edit"),
    path(
        "<int:pk>/staff/state/<slug:action>/",
        event_transition,
        name="event_transition",
    ),
    path("<int:pk>/staff/team/", staff_team, name="staff_team"),
    path("<int:pk>/staff/team/<int:staff_id>/remove/", staff_remove, name="staff_remove"),
    path("<int:pk>/staff/audit/", audit_log, name="audit_log"),
]
