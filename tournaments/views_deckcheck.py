"""Deck checks on the staff's pages (rule 1−2−4): the event's list of checks, finding a
player, counting their cards (per registered card with +/- buttons, or by pasting), the
result, and a penalty for a failed check in one step.

Like every page, these only translate: who may use them is ``policy.can_judge`` (a missing
permission is a 403, an event or registration the user may not see a 404); the comparison
and the penalty are ``services.deck_checks``' functions.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from decks.services import load_pool

from . import infractions, policy, selectors
from .forms import PenaltyForm
from .forms_deckcheck import DeckCheckCountForm, DeckCheckPasteForm, PlayerSearchForm
from .models import DeckCheck, RegistrationStatus, RoundStatus
from .services import deck_checks
from .services.errors import NotAllowed, TournamentError
from .views import _event_and_access, error_text
from .views_penalties import penalty_form_context
from .views_players import player_match_rows

PICK_LIMIT = 50

DECK_CHECK_TEXTS = {
    "nothing_counted": gettext_lazy("Count the cards or paste them."),
    "counted_unreadable": gettext_lazy("Some lines of the counted cards cannot be read."),
    "counted_text_too_long": gettext_lazy("The list of counted cards is too long."),
    "unknown_card": gettext_lazy("A counted card is not in the card pool."),
    "unknown_printing": gettext_lazy("A counted printing is not a printing of its card."),
    "invalid_count": gettext_lazy("Counts must be whole numbers from 0 to 999."),
    "no_decklist": gettext_lazy("This player has no registered decklist to compare with."),
    "not_active": gettext_lazy("Only a player who is playing can be deck checked."),
    "event_not_running": gettext_lazy("Deck checks are done while the event is under way."),
    "wrong_event": gettext_lazy("This round belongs to another event."),
    "deck_check_ok": gettext_lazy("This deck check found the deck as registered."),
    "deck_check_has_penalty": gettext_lazy("This deck check already has a penalty."),
    "bye": gettext_lazy("A bye cannot be lost."),
    "override_note_required": gettext_lazy(
        "This is not the suggested penalty: say in the note why you chose it."
    ),
}
# The form field a refusal is about.
ERROR_FIELDS = {
    "counted_unreadable": "counted_text",
    "counted_text_too_long": "counted_text",
    "nothing_counted": None,
    "wrong_event": "round",
    "invalid_kind": "kind",
    "infraction_required": "infraction",
    "override_note_required": "note",
    "match_required": "match",
    "not_in_match": "match",
    "round_not_open": "match",
    "bye": "match",
    "match_has_result": "match",
}
COUNT_FIELDS = {"counted_unreadable": "extra_text", "counted_text_too_long": "extra_text"}


def _text(error: TournamentError) -> str:
    return str(DECK_CHECK_TEXTS.get(error.code) or error_text(error))


def _form_error(form, error: TournamentError, fields=None) -> None:
    field = {**ERROR_FIELDS, **(fields or {})}.get(error.code)
    form.add_error(field if field in form.fields else None, _text(error))
    japanese = (get_language() or "").startswith("ja")
    for problem in error.details.get("problems", []):
        form.add_error(
            field if field in form.fields else None,
            problem["message_ja"] if japanese else problem["message_en"],
        )


def _staff_event(request, pk: int):
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_judge(access), "not_staff", "event staff only")
    return event, access


def _check(request, event, access, check_id: int) -> DeckCheck:
    check = get_object_or_404(
        deck_checks.deck_checks_for(request.user, event, access).select_related(
            "registration__event__format"
        ),
        pk=check_id,
    )
    return check


@login_required
@require_safe
def deck_check_list(request, pk: int):
    """The event's deck checks, newest first (a fixed number of queries)."""
    event, access = _staff_event(request, pk)
    checks = list(deck_checks.deck_checks_for(request.user, event, access))
    return render(
        request,
        "tournaments/deckchecks/list.html",
        {"event": event, "access": access, "checks": checks},
    )


@login_required
@require_safe
def deck_check_pick(request, pk: int):
    """Find the player to deck check: by name or username (players who are playing)."""
    event, access = _staff_event(request, pk)
    form = PlayerSearchForm(request.GET or None)
    query = form.cleaned_data["q"].strip() if form.is_bound and form.is_valid() else ""
    registrations = selectors.registration_list(request.user, event, access).filter(
        status=RegistrationStatus.REGISTERED
    )
    if query:
        words = Q()
        for word in query.split():
            words &= (
                Q(player__username__icontains=word)
                | Q(player__first_name__icontains=word)
                | Q(player__last_name__icontains=word)
            )
        registrations = registrations.filter(words)
    registrations = list(registrations[: PICK_LIMIT + 1])
    return render(
        request,
        "tournaments/deckchecks/pick.html",
        {
            "event": event,
            "access": access,
            "form": form,
            "query": query,
            "players": [
                {"registration": r, "name": selectors.display_name(r)}
                for r in registrations[:PICK_LIMIT]
            ],
            "more": len(registrations) > PICK_LIMIT,
        },
    )


def _rounds(request, event, access) -> list:
    return list(
        policy.rounds_visible_to(request.user, event, access)
        .exclude(status=RoundStatus.DRAFT)
        .order_by("-number")
    )


def _current_round(rounds):
    """The round being played: the latest one not closed yet."""
    for round_ in rounds:
        if round_.status != RoundStatus.CLOSED:
            return round_
    return None


@login_required
def deck_check_new(request, pk: int, registration_id: int):
    """Count one player's cards and compare them with the registered list. GET shows the
    count-per-card form (starting from the registered counts) and the paste form."""
    event, access = _staff_event(request, pk)
    registration = get_object_or_404(
        selectors.registration_list(request.user, event, access).select_related(
            "event__format__game"
        ),
        pk=registration_id,
    )
    if registration.status != RegistrationStatus.REGISTERED:
        raise Http404("not playing")
    loaded = load_pool(event.format.game)
    registered = deck_checks.registered_list(registration, loaded)
    rounds = _rounds(request, event, access)
    current = _current_round(rounds)
    initial = {"round": str(current.number) if current else ""}
    method = request.POST.get("method") if request.method == "POST" else None
    count_form = DeckCheckCountForm(
        request.POST if method == "count" else None,
        cards=registered.cards,
        rounds=rounds,
        initial=initial,
        prefix="count",
    )
    paste_form = DeckCheckPasteForm(
        request.POST if method == "paste" else None,
        rounds=rounds,
        initial=initial,
        prefix="paste",
    )
    form = count_form if method == "count" else paste_form if method == "paste" else None
    if form is not None and form.is_valid():
        data = form.cleaned_data
        if method == "count":
            arguments = {
                "cards": form.counted_cards(),
                "counted_text": data["extra_text"],
            }
        else:
            arguments = {"counted_text": data["counted_text"]}
        try:
            check = deck_checks.record_deck_check(
                registration,
                actor=request.user,
                round_=data["round"],
                note=data["note"],
                loaded=loaded,
                **arguments,
            )
        except NotAllowed:
            raise
        except TournamentError as error:
            # The count form's pasted part is its box of cards not on the list.
            _form_error(form, error, COUNT_FIELDS if method == "count" else None)
        else:
            return redirect("tournaments:deck_check_detail", pk=event.pk, check_id=check.pk)
    return render(
        request,
        "tournaments/deckchecks/new.html",
        {
            "event": event,
            "access": access,
            "registration": registration,
            "name": selectors.display_name(registration),
            "registered": registered,
            "count_form": count_form,
            "count_rows": count_form.bound_rows(),
            "paste_form": paste_form,
            "method": method or "count",
        },
        status=400 if form is not None and form.errors else 200,
    )


@login_required
@require_safe
def deck_check_detail(request, pk: int, check_id: int):
    """One deck check's result: OK, or every discrepancy in plain words."""
    event, access = _staff_event(request, pk)
    check = _check(request, event, access, check_id)
    penalties = list(check.penalties.select_related("infraction_ref"))
    return render(
        request,
        "tournaments/deckchecks/detail.html",
        {
            "event": event,
            "access": access,
            "check": check,
            "name": selectors.display_name(check.registration),
            "result": check.result,
            "messages_key": _messages_key(),
            "discrepancies": _discrepancy_texts(check),
            "penalties": penalties,
            "can_penalize": not check.ok and not penalties,
        },
    )


def _messages_key() -> str:
    return "message_ja" if (get_language() or "").startswith("ja") else "message_en"


def _discrepancy_texts(check: DeckCheck) -> list[str]:
    key = _messages_key()
    return [item.get(key, "") for item in check.result.get("discrepancies", [])]


def _player_matches(request, event, access, registration) -> list[tuple]:
    """The player's matches for the penalty form's select, latest first (one query)."""
    rows = player_match_rows(request, event, access, registration)
    return [(row["match"], row["label"]) for row in rows]


@login_required
def deck_check_penalty(request, pk: int, check_id: int):
    """The penalty form for a failed deck check, filled in: the infraction for a deck that
    differs from its list (when the event's game has it), the discrepancies as the note,
    the match of the check's round. Saving issues the penalty and links it to the check."""
    event, access = _staff_event(request, pk)
    check = _check(request, event, access, check_id)
    if check.ok:
        messages.info(request, str(DECK_CHECK_TEXTS["deck_check_ok"]))
        return redirect("tournaments:deck_check_detail", pk=event.pk, check_id=check.pk)
    registration = check.registration
    registration.event = event
    matches = _player_matches(request, event, access, registration)
    penalties = list(
        selectors.penalty_list(request.user, event, access)
        .filter(registration=registration)
        .select_related("infraction_ref")
    )
    offers = infractions.offers_for(
        registration,
        infractions.active_for_event(event),
        earlier=infractions.earlier_from(penalties),
    )
    if request.method == "POST":
        form = PenaltyForm(request.POST, prefix="penalty", matches=matches, offers=offers)
        if form.is_valid():
            data = form.cleaned_data
            try:
                penalty = deck_checks.issue_deck_check_penalty(
                    check,
                    actor=request.user,
                    kind=data["kind"] or None,
                    infraction=data["infraction"],
                    note=data["note"],
                    match=data["match"],
                )
            except NotAllowed:
                raise
            except TournamentError as error:
                _form_error(form, error)
            else:
                text = _("%(penalty)s for %(player)s.") % {
                    "penalty": penalty.get_kind_display(),
                    "player": selectors.display_name(registration),
                }
                messages.success(request, text)
                return redirect("tournaments:deck_check_detail", pk=event.pk, check_id=check.pk)
    else:
        initial = {"note": deck_checks.summary(check, get_language() or "en")}
        mismatch = next(
            (
                pk
                for pk, offer in offers.items()
                if offer.infraction.code == deck_checks.DECK_MISMATCH
            ),
            None,
        )
        if mismatch is not None:
            initial["infraction"] = str(mismatch)
        if check.round_id is not None:
            for match, _label in matches:
                if match.round_id == check.round_id:
                    initial["match"] = str(match.pk)
                    break
        form = PenaltyForm(prefix="penalty", matches=matches, offers=offers, initial=initial)
    context = {
        "event": event,
        "access": access,
        "check": check,
        "name": selectors.display_name(registration),
        "discrepancies": _discrepancy_texts(check),
        **penalty_form_context(event, registration, penalties, matches, form),
    }
    return render(
        request,
        "tournaments/deckchecks/penalty.html",
        context,
        status=400 if form.is_bound and form.errors else 200,
    )


urlpatterns = [
    path("<int:pk>/staff/deck-checks/", deck_check_list, name="deck_check_list"),
    path("<int:pk>/staff/deck-checks/new/", deck_check_pick, name="deck_check_pick"),
    path(
        "<int:pk>/staff/deck-checks/new/<int:registration_id>/",
        deck_check_new,
        name="deck_check_new",
    ),
    path(
        "<int:pk>/staff/deck-checks/<int:check_id>/",
        deck_check_detail,
        name="deck_check_detail",
    ),
    path(
        "<int:pk>/staff/deck-checks/<int:check_id>/penalty/",
        deck_check_penalty,
        name="deck_check_penalty",
    ),
]
