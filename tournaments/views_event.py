"""The organizer's event pages: create an event, edit its settings, move it through its life
cycle (open registration, start, finish), manage the staff team, read the audit log.

Like every page here, these only translate: permissions come from ``tournaments.policy``
(an event the user may not see is a 404, a missing permission a 403), changes go through
``tournaments.services`` and the services' refusals are shown on the form field they name
or as a message on the dashboard.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.apps import apps
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Case, CharField, IntegerField, OuterRef, Subquery, Value, When
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext
from django.views.decorators.http import require_POST, require_safe

from . import policy, selectors, services
from .forms_event import EventForm, EventSettingsForm, StaffForm
from .models import EventState, PenaltyKind, StaffRole
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


def _value_text(value) -> str:
    """One before/after value as a person reads it."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, str):
        try:
            moment = parse_datetime(value) if "T" in value else None
        except ValueError:  # looks like a date but is none (a name such as "2024-02-30T10:00")
            moment = None
        if moment is not None and timezone.is_aware(moment):
            return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return str(value)


def _key_label(entry, key: str) -> str:
    if entry.object_type == "event" and key in EventForm.base_fields:
        return str(EventForm.base_fields[key].label)
    return key


# Keys of the audit data that hold the id of the object's person: shown as their name.
PERSON_KEYS = {"eventstaff": "user", "registration": "player", "penalty": "registration"}


def _games_text(games: list) -> str:
    """Reported games as "hp_zero (HP 12–0), time (HP 10–10)"."""
    parts = []
    for game in games:
        if not isinstance(game, dict):
            return _value_text(games)
        text = str(game.get("end", "?"))
        hp = game.get("hp")
        if isinstance(hp, list) and len(hp) == 2:
            text += f" (HP {_value_text(hp[0])}–{_value_text(hp[1])})"
        parts.append(text)
    return ", ".join(parts) or "—"


def _changes(entry) -> list[dict]:
    """The entry's data as "key: before → after" lines: values that stayed the same are
    left out; a creation has no before, a removal no after."""
    before = entry.before if isinstance(entry.before, dict) else {}
    after = entry.after if isinstance(entry.after, dict) else {}
    keys = list(before) + [key for key in after if key not in before]
    # jsonb (PostgreSQL) keeps no key order: settings in the form's order, then the rest
    # alphabetically, the same on every database
    order = {name: index for index, name in enumerate(EventForm.base_fields)}
    keys.sort(key=lambda key: (order.get(key, len(order)), key))
    person_key = PERSON_KEYS.get(entry.object_type)

    def text(key, value):
        if key == person_key and entry.person_name and value is not None:
            return entry.person_name
        if key == "games" and isinstance(value, list):
            return _games_text(value)
        return _value_text(value)

    return [
        {
            "key": _key_label(entry, key),
            "has_before": key in before,
            "has_after": key in after,
            "before": text(key, before.get(key)),
            "after": text(key, after.get(key)),
        }
        for key in keys
        if not (key in before and key in after and before[key] == after[key])
    ]


def _of_type(object_type: str, value):
    return Case(When(object_type=object_type, then=value), default=Value(None))


def _with_names(entries, user, event, access):
    """The entries with what names their object, in the same query: ``person_name`` (the
    staff member, the registered player, the penalised player), ``round_number`` and
    ``match_table``. Correlated subqueries over the policy's filters, so a page costs one
    query whatever it shows."""
    object_id = OuterRef("object_id")
    user_model = get_user_model()
    username = user_model.USERNAME_FIELD
    registrations = policy.registrations_visible_to(user, event, access).filter(pk=object_id)
    rounds = policy.rounds_visible_to(user, event, access).filter(pk=object_id)
    matches = policy.matches_visible_to(user, event, access).filter(pk=object_id)
    penalties = policy.penalties_visible_to(user, event, access).filter(pk=object_id)
    staff_user_id = Cast(Coalesce(KT("after__user"), KT("before__user")), IntegerField())
    return entries.annotate(
        staff_user_id=_of_type("eventstaff", staff_user_id),
    ).annotate(
        person_name=Case(
            When(
                object_type="eventstaff",
                then=Subquery(
                    user_model._default_manager.filter(pk=OuterRef("staff_user_id")).values(
                        username
                    )[:1]
                ),
            ),
            When(
                object_type="registration",
                then=Subquery(registrations.values(f"player__{username}")[:1]),
            ),
            When(
                object_type="penalty",
                then=Subquery(penalties.values(f"registration__player__{username}")[:1]),
            ),
            default=Value(None),
            output_field=CharField(),
        ),
        penalty_kind=_of_type("penalty", Subquery(penalties.values("kind")[:1])),
        round_number=Case(
            When(object_type="round", then=Subquery(rounds.values("number")[:1])),
            When(object_type="match", then=Subquery(matches.values("round__number")[:1])),
            default=Value(None),
            output_field=IntegerField(),
        ),
        match_table=_of_type("match", Subquery(matches.values("table")[:1])),
    )


def _object_name(entry, event) -> str:
    if entry.object_type == "event":
        return event.name
    if entry.object_type == "match" and entry.round_number is not None:
        return pgettext("round", "Round %(number)s, table %(table)s") % {
            "number": entry.round_number,
            "table": entry.match_table,
        }
    if entry.object_type == "round" and entry.round_number is not None:
        return pgettext("round", "Round %(number)s") % {"number": entry.round_number}
    if entry.object_type == "penalty" and entry.person_name:
        return _("%(penalty)s for %(player)s") % {
            "penalty": PenaltyKind(entry.penalty_kind).label,
            "player": entry.person_name,
        }
    return entry.person_name or ""


def _type_label(object_type: str) -> str:
    try:
        return str(apps.get_model("tournaments", object_type)._meta.verbose_name).capitalize()
    except LookupError:
        return object_type


@login_required
@require_safe
def audit_log(request, pk: int):
    """Every audit entry of the event, newest first, 50 a page, filtered by action prefix
    (``?action=match.``) and object type (``?object_type=registration``)."""
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
    entries = _with_names(entries, request.user, event, access)
    page = Paginator(entries, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [
        {
            "entry": entry,
            "object": _object_name(entry, event),
            "object_type": _type_label(entry.object_type),
            "changes": _changes(entry),
        }
        for entry in page.object_list
    ]
    actions = sorted({name for name, _type in kinds})
    prefixes = sorted({name.split(".")[0] + "." for name in actions})
    action_choices = []
    for prefix in prefixes:
        action_choices.append((prefix, f"{prefix}*"))
        action_choices += [(name, name) for name in actions if name.startswith(prefix)]
    if action and action not in dict(action_choices):
        action_choices.append((action, f"{action}*"))
    type_choices = [(name, _type_label(name)) for name in sorted({t for _name, t in kinds})]
    if object_type and object_type not in dict(type_choices):
        type_choices.append((object_type, object_type))
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
