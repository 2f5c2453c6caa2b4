"""Pages about players: the staff's player page (drop, re-entry, decklist changes, penalties), late
entries, and the player's own drop, decklist change and re-entry.

Like every page, these only translate: the registration is fetched through the selectors (an
event or registration the user may not see is a 404), staff pages ask ``policy.can_judge``
(a missing permission is a 403) and every change is one call of a ``tournaments.services``
function, whose refusal is shown next to the form field it is about.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe

from . import audit_texts, policy, selectors, services, views_claim
from .forms import (
    PENALTY_EFFECTS,
    LateEntryForm,
    ReasonForm,
    RegisterForm,
    StaffDecklistForm,
)
from .models import EventState, PenaltyKind, RegistrationStatus
from .services import claims, deck_checks
from .services.errors import NotAllowed, TournamentError
from .services.registrations import next_pairing_round
from .views import (
    OPEN_EVENT_STATES,
    _event_and_access,
    attempt,
    deck_report_context,
    error_text,
    registration_actions,
)
from .views_penalties import bound_penalty_form, penalty_form_context

# The form field a service refusal is about: its text is shown next to that field.
ERROR_FIELDS = {
    "decklist_missing": "decklist",
    "decklist_too_long": "decklist",
    "deck_illegal": "decklist",
    "reason_required": "reason",
    "invalid_kind": "kind",
    "infraction_required": "infraction",
    "wrong_game": "infraction",
    "infraction_inactive": "infraction",
    "override_note_required": "note",
    "match_required": "match",
    "not_in_match": "match",
    "wrong_event": "match",
    "round_not_open": "match",
    "bye": "match",
    "match_has_result": "match",
    "already_registered": "username",
    "staff_cannot_play": "username",
    "disqualified": "username",
    "use_reentry": "username",
}

# Texts that read better on one page than the shared ERROR_TEXTS.
LATE_ENTRY_TEXTS = {
    "already_registered": gettext_lazy("This player is already playing in this event."),
    "decklist_missing": gettext_lazy("The player has no legal decklist yet: paste one."),
}
PENALTY_TEXTS = {
    "bye": gettext_lazy("A bye cannot be lost."),
    "wrong_game": gettext_lazy("This infraction belongs to another game's list."),
    "infraction_inactive": gettext_lazy("This infraction is no longer offered: pick another."),
    "override_note_required": gettext_lazy(
        "This is not the suggested penalty: say in the note why you chose it."
    ),
}

# Refusals that are about the player being added, not about the staff member adding them.
PLAYER_REFUSALS = ("staff_cannot_play", "disqualified")


def _form_error(form, error: TournamentError, texts=None) -> None:
    text = str((texts or {}).get(error.code) or error_text(error))
    field = ERROR_FIELDS.get(error.code)
    form.add_error(field if field in form.fields else None, text)


def _bound(request):
    return request.POST if request.method == "POST" else None


# --- the player's own registration ------------------------------------------------------


def _own_registration(request, event, access):
    """The user's registration in ``event``; a user without one has nothing here (404)."""
    if access.registration_id is None:
        raise Http404("no registration in this event")
    registration = get_object_or_404(
        selectors.registration_list(request.user, event, access), pk=access.registration_id
    )
    registration.event = event
    return registration


@login_required
def my_decklist(request, pk: int):
    """Change my decklist until the lists lock. An illegal list shows the full report and
    saves nothing; a locked list can only be changed by a judge."""
    event, access = _event_and_access(request, pk)
    registration = _own_registration(request, event, access)
    # One of the player's saved decks or a pasted list, as on the register page.
    form = RegisterForm(
        _bound(request),
        user=request.user,
        event=event,
        initial={"decklist": registration.deck_text},
    )
    report = None
    if form.is_bound and form.is_valid():
        deck = form.cleaned_data["deck"]
        try:
            services.submit_decklist(
                registration,
                actor=request.user,
                deck=deck,
                deck_text=None if deck else form.cleaned_data["decklist"],
            )
        except services.DeckIllegal as error:
            report = error.report
            _form_error(form, error)
        except NotAllowed:
            raise
        except TournamentError as error:
            _form_error(form, error)
        else:
            messages.success(request, _("Your decklist is saved."))
            return redirect("tournaments:my_registration", pk=event.pk)
    return render(
        request,
        "tournaments/players/my_decklist.html",
        {
            "event": event,
            "registration": registration,
            "form": form,
            "has_decks": form.fields["deck"].queryset.exists(),
            **registration_actions(event, registration),
            **deck_report_context(report, event.format),
        },
    )


DROP_DONE = gettext_lazy(
    "You have dropped from the event. This takes effect from the next pairing: "
    "a round already paired stays as it is."
)


@login_required
def my_drop(request, pk: int):
    """GET: "are you sure?" with an optional reason; POST: drop (from the next pairing)."""
    event, access = _event_and_access(request, pk)
    registration = _own_registration(request, event, access)
    form = ReasonForm(_bound(request))
    if form.is_bound and form.is_valid():
        try:
            services.drop_player(
                registration, actor=request.user, reason=form.cleaned_data["reason"]
            )
        except NotAllowed:
            raise
        except TournamentError as error:
            messages.error(request, error_text(error))
        else:
            messages.success(request, str(DROP_DONE))
        return redirect("tournaments:my_registration", pk=event.pk)
    return render(
        request,
        "tournaments/players/my_drop.html",
        {
            "event": event,
            "registration": registration,
            "form": form,
            **registration_actions(event, registration),
        },
    )


@login_required
@require_POST
def my_reenter(request, pk: int):
    event, access = _event_and_access(request, pk)
    registration = _own_registration(request, event, access)
    try:
        services.reenter(registration, actor=request.user)
    except NotAllowed:
        raise
    except TournamentError as error:
        messages.error(request, error_text(error))
    else:
        messages.success(request, _("Welcome back: you are paired again from the next round."))
    return redirect("tournaments:my_registration", pk=event.pk)


# --- staff: the player page -------------------------------------------------------------


def _require_judge(access) -> None:
    policy.require(policy.can_judge(access), "not_staff", "event staff only")


def _staff_registration(request, pk: int, registration_id: int):
    """Event, access and one of its registrations, for the event's staff only."""
    event, access = _event_and_access(request, pk)
    _require_judge(access)
    registration = get_object_or_404(
        selectors.registration_list(request.user, event, access), pk=registration_id
    )
    registration.event = event
    return event, access, registration


def player_match_rows(request, event, access, registration) -> list[dict]:
    """The player's matches, latest round first, each with the opponent's name and the
    label used in the penalty form's select (one query)."""
    matches = (
        policy.matches_visible_to(request.user, event, access)
        .filter(participants__registration=registration)
        .select_related("round", "player1__player", "player2__player")
        .order_by("-round__number")
    )
    rows = []
    for match in matches:
        opponent = match.player2 if match.player1_id == registration.pk else match.player1
        opponent_name = selectors.display_name(opponent)
        values = {"number": match.round.number, "table": match.table, "opponent": opponent_name}
        if opponent_name is None:
            label = _("Round %(number)s, table %(table)s: bye") % values
        else:
            label = _("Round %(number)s, table %(table)s against %(opponent)s") % values
        rows.append(
            {
                "match": match,
                "opponent": opponent_name,
                "player1": selectors.display_name(match.player1),
                "label": label,
            }
        )
    return rows


def _audit_rows(request, event, access, entries) -> list[dict]:
    """The audit entries about the player as the audit log shows them: a sentence each,
    with the changed fields (``tournaments.audit_texts``)."""
    named = audit_texts.with_names(entries, request.user, event, access)
    return audit_texts.audit_rows(named, user=request.user, event=event, access=access)


def _render_player_page(
    request,
    event,
    access,
    registration,
    *,
    matches=None,
    deck_form=None,
    penalty_form=None,
    rejected_report=None,
):
    """The staff's page about one player: registration, decklist and report, matches,
    penalties, deck checks (linked: each is a page of its own) and the audit entries about
    them, with the forms that change them. A fixed number of queries, however many
    matches, penalties, deck checks or entries the player has."""
    if matches is None:
        matches = player_match_rows(request, event, access, registration)
    actions = registration_actions(event, registration)
    penalties = list(
        selectors.penalty_list(request.user, event, access)
        .filter(registration=registration)
        .select_related("infraction_ref")
    )
    entries = selectors.audit_log(request.user, event, access).filter(
        Q(object_type="registration", object_id=registration.pk)
        | Q(object_type="penalty", object_id__in=[p.pk for p in penalties])
    )
    choices = [(row["match"], row["label"]) for row in matches]
    context = {
        "event": event,
        "access": access,
        "registration": registration,
        "name": selectors.display_name(registration),
        "matches": matches,
        "penalties": penalties,
        "audit_rows": _audit_rows(request, event, access, entries),
        **actions,
        "can_reenter": actions["reentry_possible"] and event.allow_reentry,
        "can_penalize": event.state in OPEN_EVENT_STATES
        and registration.status in (RegistrationStatus.REGISTERED, RegistrationStatus.DROPPED),
        "drop_form": ReasonForm(prefix="drop"),
        "reenter_form": ReasonForm(prefix="reenter"),
        "deck_form": deck_form
        or StaffDecklistForm(
            prefix="deck", locked=actions["locked"], initial={"decklist": registration.deck_text}
        ),
        **penalty_form_context(event, registration, penalties, choices, penalty_form),
        "penalty_effects": [
            (label, PENALTY_EFFECTS[value]) for value, label in PenaltyKind.choices
        ],
        "deck_checks": list(
            deck_checks.deck_checks_for(request.user, event, access).filter(
                registration=registration
            )
        ),
        "can_deck_check": event.state in deck_checks.CHECK_STATES
        and registration.status == RegistrationStatus.REGISTERED
        and bool(registration.deck_text),
        **deck_report_context(registration.deck_report, event.format),
        "rejected": deck_report_context(rejected_report, event.format) if rejected_report else None,
        "can_make_claim_link": claims.can_make_claim_link(access)
        and claims.belongs_to(registration.player, event),
    }
    return render(request, "tournaments/players/player_detail.html", context)


@login_required
@require_safe
def player_detail(request, pk: int, registration_id: int):
    event, access, registration = _staff_registration(request, pk, registration_id)
    return _render_player_page(request, event, access, registration)


def _back(request, event, registration):
    """After a quick action: back to the dashboard when it came from there."""
    if request.POST.get("next") == "dashboard":
        return redirect("tournaments:dashboard", pk=event.pk)
    return redirect("tournaments:player_detail", pk=event.pk, registration_id=registration.pk)


@login_required
@require_POST
def player_drop(request, pk: int, registration_id: int):
    event, _access, registration = _staff_registration(request, pk, registration_id)
    form = ReasonForm(request.POST, prefix="drop")
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    text = _(
        "%(player)s is dropped. This takes effect from the next pairing: a round "
        "already paired stays as it is."
    )
    attempt(
        request,
        lambda: services.drop_player(registration, actor=request.user, reason=reason),
        text % {"player": selectors.display_name(registration)},
    )
    return _back(request, event, registration)


@login_required
@require_POST
def player_reenter(request, pk: int, registration_id: int):
    event, _access, registration = _staff_registration(request, pk, registration_id)
    form = ReasonForm(request.POST, prefix="reenter")
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    text = _("%(player)s re-entered: they are paired again from the next round.")
    attempt(
        request,
        lambda: services.reenter(registration, actor=request.user, reason=reason),
        text % {"player": selectors.display_name(registration)},
    )
    return _back(request, event, registration)


@login_required
@require_POST
def player_decklist(request, pk: int, registration_id: int):
    """Change a player's decklist (with a reason once the lists are locked). An illegal
    list shows its report on the player page and saves nothing."""
    event, access, registration = _staff_registration(request, pk, registration_id)
    locked = services.decklist_locked(event, registration)
    form = StaffDecklistForm(request.POST, prefix="deck", locked=locked)
    report = None
    if form.is_valid():
        try:
            services.submit_decklist(
                registration,
                actor=request.user,
                deck_text=form.cleaned_data["decklist"],
                reason=form.cleaned_data["reason"],
            )
        except services.DeckIllegal as error:
            report = error.report
            _form_error(form, error)
        except NotAllowed:
            raise
        except TournamentError as error:
            _form_error(form, error)
        else:
            text = _("The decklist of %(player)s is saved.")
            messages.success(request, text % {"player": selectors.display_name(registration)})
            return redirect(
                "tournaments:player_detail", pk=event.pk, registration_id=registration.pk
            )
    return _render_player_page(
        request, event, access, registration, deck_form=form, rejected_report=report
    )


PENALTY_DONE = {
    PenaltyKind.DISQUALIFICATION: gettext_lazy(
        "%(player)s is disqualified and dropped from the next pairing."
    ),
}


@login_required
@require_POST
def player_penalty(request, pk: int, registration_id: int):
    event, access, registration = _staff_registration(request, pk, registration_id)
    matches = player_match_rows(request, event, access, registration)
    form = bound_penalty_form(
        request, event, registration, [(row["match"], row["label"]) for row in matches]
    )
    if form.is_valid():
        data = form.cleaned_data
        try:
            penalty = services.issue_penalty(
                registration,
                actor=request.user,
                kind=data["kind"] or None,
                infraction=data["infraction"],
                note=data["note"],
                match=data["match"],
            )
        except NotAllowed:
            raise
        except TournamentError as error:
            _form_error(form, error, PENALTY_TEXTS)
        else:
            values = {
                "player": selectors.display_name(registration),
                "penalty": penalty.get_kind_display(),
            }
            text = PENALTY_DONE.get(penalty.kind, gettext_lazy("%(penalty)s for %(player)s."))
            messages.success(request, str(text) % values)
            return redirect(
                "tournaments:player_detail", pk=event.pk, registration_id=registration.pk
            )
    return _render_player_page(
        request, event, access, registration, matches=matches, penalty_form=form
    )


# --- staff: late entry ------------------------------------------------------------------


@login_required
def late_entry(request, pk: int):
    """Add a player to the running event. Shows from which round they play and what the
    rounds they missed count as (the event's late-entry policy)."""
    event, access = _event_and_access(request, pk)
    _require_judge(access)
    form = LateEntryForm(_bound(request))
    report = None
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        try:
            registration = services.add_late_entry(
                event,
                actor=request.user,
                player=data["username"],
                deck_text=data["decklist"] or None,
                reason=data["reason"],
            )
        except services.DeckIllegal as error:
            report = error.report
            _form_error(form, error)
        except NotAllowed as error:
            if error.code not in PLAYER_REFUSALS:
                raise
            _form_error(form, error, LATE_ENTRY_TEXTS)
        except TournamentError as error:
            _form_error(form, error, LATE_ENTRY_TEXTS)
        else:
            text = _("%(player)s entered late and plays from round %(number)s.")
            values = {
                "player": selectors.display_name(registration),
                "number": registration.late_entry_round,
            }
            messages.success(request, text % values)
            return redirect(
                "tournaments:player_detail", pk=event.pk, registration_id=registration.pk
            )
    return render(
        request,
        "tournaments/players/late_entry.html",
        {
            "event": event,
            "form": form,
            "running": event.state == EventState.RUNNING,
            "next_round": next_pairing_round(event),
            **deck_report_context(report, event.format),
        },
    )


urlpatterns = [
    # the player's own registration
    path("<int:pk>/me/decklist/", my_decklist, name="my_decklist"),
    path("<int:pk>/me/drop/", my_drop, name="my_drop"),
    path("<int:pk>/me/reenter/", my_reenter, name="my_reenter"),
    # staff
    path("<int:pk>/staff/players/<int:registration_id>/", player_detail, name="player_detail"),
    path("<int:pk>/staff/players/<int:registration_id>/drop/", player_drop, name="player_drop"),
    path(
        "<int:pk>/staff/players/<int:registration_id>/reenter/",
        player_reenter,
        name="player_reenter",
    ),
    path(
        "<int:pk>/staff/players/<int:registration_id>/decklist/",
        player_decklist,
        name="player_decklist",
    ),
    path(
        "<int:pk>/staff/players/<int:registration_id>/penalty/",
        player_penalty,
        name="player_penalty",
    ),
    path("<int:pk>/staff/late-entry/", late_entry, name="late_entry"),
    path(
        "<int:pk>/staff/players/<int:registration_id>/claim-link/",
        views_claim.make_claim_link,
        name="player_claim_link",
    ),
]
