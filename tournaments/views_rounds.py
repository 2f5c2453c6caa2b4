"""Staff pages for rounds and results: generate, publish, start, close, re-pair and edit
pairings, enter or override results, top cut, printable match slips, the round clock.

Like ``tournaments.views``: fetch through ``policy`` filters (an invisible event or round
is a 404), ask ``policy`` for the permission (403), change state only through
``tournaments.services`` and show its refusals by their code.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, register_converter, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe

from . import policy, selectors, services
from .forms import GAME_END_CHOICES
from .forms_clock import ExtendTimeForm
from .forms_rounds import (
    MAX_NEW_TABLES,
    EditPairingsForm,
    OverrideResultForm,
    ReasonForm,
    decode_tables,
    encode_tables,
)
from .models import (
    EventState,
    Match,
    RegistrationStatus,
    ResultReport,
    Round,
    RoundStage,
    RoundStatus,
)
from .services import clock as services_clock
from .services.clock import MAX_EXTENSION_MINUTES, clock_state
from .services.errors import Conflict, NotAllowed, TournamentError
from .services.rounds import apply_table_changes
from .views import _event_and_access, _require_staff, attempt, error_text
from .views_public import url_pattern

ROUND_ACTIONS = {
    "publish": (services.publish_round, gettext_lazy("Round %(number)s published.")),
    "start": (services.start_round_clock, gettext_lazy("Clock of round %(number)s started.")),
    "close": (services.close_round, gettext_lazy("Round %(number)s closed.")),
}

# Texts for the codes of the services these pages call, beyond views.ERROR_TEXTS.
ROUND_ERROR_TEXTS = {
    "round_not_draft": gettext_lazy(
        "This round is already published: its pairings can no longer change."
    ),
    "top_cut_fixed": gettext_lazy(
        "Top-cut pairings follow the seeds: they cannot be re-paired or edited."
    ),
    "round_not_published": gettext_lazy("This round is not published yet."),
    "round_closed": gettext_lazy("This round is closed: its results can no longer change."),
    "round_not_open": gettext_lazy("This round is not open."),
    "event_not_running": gettext_lazy("The event is not in its Swiss rounds."),
    "event_not_in_top_cut": gettext_lazy("The event is not in its top cut."),
    "no_top_cut": gettext_lazy("This event has no top cut: finish it instead."),
    "swiss_not_complete": gettext_lazy("Play all the Swiss rounds first."),
    "swiss_complete": gettext_lazy("All Swiss rounds are paired."),
    "bracket_complete": gettext_lazy("The final has been played: finish the event."),
    "round_exists": gettext_lazy("Another request created this round first."),
    "bye": gettext_lazy("A bye has no result to enter."),
    "stale_version": gettext_lazy(
        "Someone else changed this match first. Check the current result below and try again."
    ),
}


def round_error_text(error: TournamentError) -> str:
    if error.code == "invalid_result":
        return _("These games do not give a valid result: %(detail)s") % {"detail": error.message}
    if error.code in ROUND_ERROR_TEXTS:
        return str(ROUND_ERROR_TEXTS[error.code])
    return error_text(error)


class RoundActionConverter:
    """Only the actions of :data:`ROUND_ACTIONS`: a plain slug here would swallow every
    other one-segment path after a round number (slips, re-pair, other pages' routes)."""

    regex = "|".join(ROUND_ACTIONS)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(RoundActionConverter, "roundaction")


def _visible_round(request, event, access, number: int):
    round_ = get_object_or_404(policy.rounds_visible_to(request.user, event, access), number=number)
    round_.event = event
    return round_


def _dashboard(event):
    return redirect("tournaments:dashboard", pk=event.pk)


# --- round life cycle (managers) ------------------------------------------------------


@login_required
@require_POST
def generate_round(request, pk: int):
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_run_rounds(access), "not_manager")
    attempt(
        request,
        lambda: services.generate_round(event, actor=request.user),
        lambda round_: (
            _("Round %(number)s generated: review and publish it.") % {"number": round_.number}
        ),
        texts=round_error_text,
    )
    return _dashboard(event)


@login_required
@require_POST
def round_action(request, pk: int, number: int, action: str):
    event, access = _event_and_access(request, pk)
    round_ = _visible_round(request, event, access, number)  # hidden round: 404 first
    policy.require(policy.can_run_rounds(access), "not_manager")
    if action not in ROUND_ACTIONS:
        raise Http404
    service, done = ROUND_ACTIONS[action]
    attempt(
        request,
        lambda: service(round_, actor=request.user),
        done % {"number": number},
        texts=round_error_text,
    )
    return _dashboard(event)


@login_required
@require_POST
def repair_round(request, pk: int, number: int):
    """Pair an unpublished Swiss round again (managers), with a reason."""
    event, access = _event_and_access(request, pk)
    round_ = _visible_round(request, event, access, number)  # hidden round: 404 first
    policy.require(policy.can_run_rounds(access), "not_manager")
    form = ReasonForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, _("Give a reason for re-pairing round %(number)s.") % {"number": number}
        )
        return _dashboard(event)
    try:
        services.repair_round(round_, actor=request.user, reason=form.cleaned_data["reason"])
    except NotAllowed:
        raise
    except TournamentError as error:
        messages.error(request, round_error_text(error))
    else:
        messages.success(
            request,
            _("Round %(number)s paired again: review and publish it.") % {"number": number},
        )
    return _dashboard(event)


@login_required
@require_POST
def generate_top_cut(request, pk: int):
    """End the Swiss rounds and pair the first top-cut round (managers)."""
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_run_rounds(access), "not_manager")
    try:
        round_ = services.generate_top_cut(event, actor=request.user)
    except NotAllowed:
        raise
    except TournamentError as error:
        if error.code == "not_enough_players":
            messages.error(
                request,
                _("Not enough active players for a top %(size)s.") % {"size": event.top_cut_size},
            )
        else:
            messages.error(request, round_error_text(error))
    else:
        messages.success(
            request,
            _("Top cut generated: round %(number)s is ready to review and publish.")
            % {"number": round_.number},
        )
    return _dashboard(event)


@login_required
@require_POST
def advance_bracket(request, pk: int):
    """Pair the winners of the last, closed, top-cut round (managers)."""
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_run_rounds(access), "not_manager")
    attempt(
        request,
        lambda: services.advance_bracket(event, actor=request.user),
        lambda round_: (
            _("Bracket round %(number)s generated: review and publish it.")
            % {"number": round_.number}
        ),
        texts=round_error_text,
    )
    return _dashboard(event)


# --- editing pairings (managers) --------------------------------------------------------


def _player_choices(registrations, matches) -> tuple[list[tuple[int, str]], dict[int, str]]:
    """Registered players, plus anyone already seated in the round whatever their status
    (so the select shows them; the service then names them as not active), by name."""
    seated = {m.player1_id for m in matches} | {m.player2_id for m in matches}
    names, choices = {}, []
    for registration in registrations:
        name = selectors.display_name(registration)
        names[registration.pk] = name
        if registration.status == RegistrationStatus.REGISTERED:
            choices.append((registration.pk, name))
        elif registration.pk in seated:
            label = f"{name} ({registration.get_status_display()})"
            choices.append((registration.pk, label))
    choices.sort(key=lambda choice: (choice[1].casefold(), choice[0]))
    return choices, names


def _tables_text(tables) -> str:
    return ", ".join(str(table) for table in tables)


PAIRINGS_CHANGED_MEANWHILE = gettext_lazy(
    "Someone changed these pairings after you opened this page: nothing was saved. "
    "Here are the current tables; make your change again."
)


def _pairing_error_text(error: TournamentError, result: dict, names: dict[int, str]) -> str:
    """The refusal of an edit, naming the tables and players concerned (``result``: the
    round's tables as the edit would leave them)."""
    details = error.details

    def name(pk) -> str:
        return names.get(pk, f"#{pk}")

    def tables_of(pk) -> list[int]:
        return [table for table, pair in sorted(result.items()) if pk in pair]

    if error.code == "double_booked":
        pk = details.get("registration")
        return _("%(name)s is at more than one table: tables %(tables)s.") % {
            "name": name(pk),
            "tables": _tables_text(tables_of(pk)),
        }
    if error.code == "player_not_active":
        pk = details.get("registration")
        return _(
            "Table %(table)s: %(name)s is not a registered player "
            "(dropped, disqualified or waitlisted)."
        ) % {"table": _tables_text(tables_of(pk)), "name": name(pk)}
    if error.code == "player_unpaired":
        return _(
            "These registered players have no table: %(names)s. Give each of them a table "
            "(add a table if needed)."
        ) % {"names": ", ".join(name(pk) for pk in details.get("registrations", []))}
    if error.code == "two_byes":
        byes = [table for table, (_p1, p2) in sorted(result.items()) if p2 is None]
        return _("A round has at most one bye, but tables %(tables)s are byes.") % {
            "tables": _tables_text(byes)
        }
    if error.code == "rematch":
        pairs = []
        for player1, player2 in details.get("pairs", []):
            table = next(
                (t for t, pair in sorted(result.items()) if pair == (player1, player2)), "?"
            )
            pairs.append(
                _("table %(table)s: %(player1)s – %(player2)s")
                % {"table": table, "player1": name(player1), "player2": name(player2)}
            )
        return _(
            "These players met in an earlier round: %(pairs)s. Change the pairs, or tick "
            "“Allow rematches” to keep them."
        ) % {"pairs": "; ".join(pairs)}
    return round_error_text(error)


def _form_initial(post) -> dict:
    """A submitted form's values as the initial values of a new, unbound form (for
    "Add a table", which must not validate or save anything)."""
    return {key: post.get(key) for key in post if key != "csrfmiddlewaretoken"}


@login_required
def edit_pairings(request, pk: int, number: int):
    """Every table of an unpublished Swiss round with player selects; add or remove
    tables; saved in one call of :func:`services.edit_pairing` (the whole round is
    checked: nothing changes when it refuses)."""
    event, access = _event_and_access(request, pk)
    round_ = _visible_round(request, event, access, number)  # hidden round: 404 first
    policy.require(policy.can_run_rounds(access), "not_manager")
    if round_.status != RoundStatus.DRAFT or round_.stage != RoundStage.SWISS:
        code = "round_not_draft" if round_.status != RoundStatus.DRAFT else "top_cut_fixed"
        messages.error(request, str(ROUND_ERROR_TEXTS[code]))
        return _dashboard(event)
    matches = list(selectors.pairings(request.user, round_, access))
    players, names = _player_choices(
        selectors.registration_list(request.user, event, access), matches
    )
    current = {m.table: (m.player1_id, m.player2_id) for m in matches}
    tables = [(table, *pair) for table, pair in sorted(current.items())]
    new_tables = 0
    if request.method == "POST":
        try:
            new_tables = min(max(int(request.POST.get("new_tables", 0)), 0), MAX_NEW_TABLES)
        except ValueError:
            new_tables = 0
    options = {"tables": tables, "players": players}
    status = 200
    if request.method == "POST" and "add_table" in request.POST:
        new_tables = min(new_tables + 1, MAX_NEW_TABLES)
        initial = {**_form_initial(request.POST), "new_tables": new_tables}
        initial.setdefault("loaded", encode_tables(current))
        form = EditPairingsForm(initial=initial, new_tables=new_tables, **options)
    elif request.method == "POST":
        form = EditPairingsForm(request.POST, new_tables=new_tables, **options)
        status = 400
        if form.is_valid():
            wanted = form.cleaned_data["tables"]
            result = apply_table_changes(current, wanted)
            try:
                services.edit_pairing(
                    round_,
                    actor=request.user,
                    tables=wanted,
                    reason=form.cleaned_data["reason"],
                    allow_rematch=form.cleaned_data["allow_rematch"],
                    expected=decode_tables(form.cleaned_data["loaded"]),
                )
            except NotAllowed:
                raise
            except TournamentError as error:
                if error.code == "stale_version":
                    messages.error(request, PAIRINGS_CHANGED_MEANWHILE)
                    return redirect("tournaments:edit_pairings", pk=event.pk, number=number)
                form.add_error(None, _pairing_error_text(error, result, names))
            else:
                if result == current:
                    messages.info(request, _("No table changed."))
                else:
                    messages.success(
                        request,
                        _("Pairings of round %(number)s saved.") % {"number": number},
                    )
                if request.GET.get("next") == "dashboard":  # opened from the dashboard's review
                    return _dashboard(event)
                return redirect("tournaments:pairings", pk=event.pk, number=number)
    else:
        form = EditPairingsForm(new_tables=0, initial={"loaded": encode_tables(current)}, **options)
    return render(
        request,
        "tournaments/rounds/edit_pairings.html",
        {"event": event, "round": round_, "form": form, "names": names},
        status=status,
    )


# --- results (judges and managers) -------------------------------------------------------

GAME_END_LABELS = {
    **{value: label for value, label in GAME_END_CHOICES if value},
    "penalty": gettext_lazy("Game loss (penalty)"),
}


def _game_rows(games) -> list[dict]:
    rows = []
    for number, game in enumerate(games or [], 1):
        rows.append(
            {
                "number": number,
                "end": GAME_END_LABELS.get(game.get("end"), game.get("end") or "—"),
                "hp": game.get("hp") or [None, None],
                "deck": game.get("deck") or [None, None],
                "penalty": "penalty" in game,
            }
        )
    return rows


def _staff_match(request, event, access, match_id: int):
    reports = ResultReport.objects.select_related("reporter").order_by("match_version")
    match = get_object_or_404(
        policy.matches_visible_to(request.user, event, access)
        .select_related("round", "player1__player", "player2__player")
        .prefetch_related(Prefetch("reports", queryset=reports, to_attr="history")),
        pk=match_id,
    )
    match.round.event = event
    return match


def _override_blocked(event, match) -> str:
    """Why the result of ``match`` cannot be entered now ("" when it can). Only for the
    page's display: the service decides."""
    round_ = match.round
    if match.is_bye:
        return str(ROUND_ERROR_TEXTS["bye"])
    if round_.status == RoundStatus.DRAFT:
        return _("The round is not published yet: its results are entered once it is.")
    if round_.status == RoundStatus.CLOSED and (
        round_.stage != RoundStage.SWISS or event.state != EventState.RUNNING
    ):
        return str(ROUND_ERROR_TEXTS["round_closed"])
    return ""


@login_required
def match_result(request, pk: int, match_id: int):
    """One match for the staff: players, current result and version, every submission
    (reports, confirmations, disputes, staff entries), and the form to enter or override
    the result from the games or as a record, with a reason."""
    event, access = _event_and_access(request, pk)
    match = _staff_match(request, event, access, match_id)  # hidden match: 404 first
    policy.require(policy.can_judge(access), "not_staff")
    names = (selectors.display_name(match.player1), selectors.display_name(match.player2))
    options = {
        "player1": names[0],
        "player2": names[1] or "",
        "winner_required": match.round.stage == RoundStage.TOP_CUT,
        "end_rules": services.results.game_end_rules(event),
    }
    form = OverrideResultForm(
        request.POST if request.method == "POST" else None,
        initial={"expected_version": match.version},
        **options,
    )
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                saved = services.override_result(
                    match,
                    actor=request.user,
                    expected_version=data["expected_version"],
                    reason=data["reason"],
                    games=data["games"],
                    record=data["record"],
                )
            except NotAllowed:
                raise
            except Conflict as error:
                # Show the result that won, and let the judge decide again from it.
                match = _staff_match(request, event, access, match_id)
                post = request.POST.copy()
                post["expected_version"] = str(match.version)
                form = OverrideResultForm(post, **options)
                form.is_valid()
                form.add_error(None, round_error_text(error))
                status = 409
            except TournamentError as error:
                form.add_error(None, round_error_text(error))
            else:
                messages.success(
                    request,
                    _("Result saved: %(record)s for %(name)s. It is final.")
                    % {"record": saved.record_text, "name": names[0]},
                )
                return redirect("tournaments:match_result", pk=event.pk, match_id=match.pk)
    return render(
        request,
        "tournaments/rounds/match_result.html",
        {
            "event": event,
            "match": match,
            "round": match.round,
            "names": names,
            "games": _game_rows(match.games),
            "history": [
                {"report": report, "games": _game_rows(report.games)} for report in match.history
            ],
            "blocked": _override_blocked(event, match),
            "form": form,
            "extend_form": ExtendTimeForm(),
            "can_extend": not match.is_bye
            and match.round.status in (RoundStatus.PUBLISHED, RoundStatus.RUNNING),
            "round_ends_at": match.round.ends_at(event.round_minutes)
            if match.round.status == RoundStatus.RUNNING
            else None,
        },
        status=status,
    )


EXTENSION_ERROR_TEXTS = {
    "invalid_minutes": gettext_lazy("Give between 1 and %(most)s extra minutes."),
    "too_much_time": gettext_lazy("This table already has the most extra time a table can get."),
    "round_not_open": gettext_lazy("Extra time is given while the round is published or running."),
    "bye": gettext_lazy("A bye has no clock."),
    "reason_required": gettext_lazy("Give a reason."),
}


@login_required
@require_POST
def extend_match_time(request, pk: int, match_id: int):
    """Give one table extra time (judges and managers), with a reason; back to the
    match's staff page with a message."""
    event, access = _event_and_access(request, pk)
    match = _staff_match(request, event, access, match_id)  # hidden match: 404 first
    policy.require(policy.can_judge(access), "not_staff")
    form = ExtendTimeForm(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            _("Give between 1 and %(most)s extra minutes and a reason.")
            % {"most": MAX_EXTENSION_MINUTES},
        )
    else:
        minutes = form.cleaned_data["minutes"]

        def text(error: TournamentError) -> str:
            found = EXTENSION_ERROR_TEXTS.get(error.code)
            if found is None:
                return round_error_text(error)
            return str(found) % {"most": MAX_EXTENSION_MINUTES}

        attempt(
            request,
            lambda: services_clock.extend_match_time(
                match, actor=request.user, minutes=minutes, reason=form.cleaned_data["reason"]
            ),
            lambda saved: (
                _("Table %(table)s has %(minutes)s extra minutes in all.")
                % {"table": saved.table, "minutes": saved.extra_minutes}
            ),
            texts=text,
        )
    return redirect("tournaments:match_result", pk=event.pk, match_id=match.pk)


# --- printing and the clock (staff) ------------------------------------------------------

SLIPS_PER_PAGE = 3


@login_required
@require_safe
def match_slips(request, pk: int, number: int):
    """One slip per table of the round (byes need none), three to an A4 page, for the
    players to write the games, the result and sign; each with a QR code to its match's
    page and the table's extra time, if any."""
    event, access = _event_and_access(request, pk)
    round_ = _visible_round(request, event, access, number)  # hidden round: 404 first
    _require_staff(access)
    # Each slip's QR code leads to its match's page, on the host the staff printed from.
    head, tail = url_pattern("tournaments:match", event.pk)
    head = request.build_absolute_uri(head)
    slips, byes = [], []
    for match in selectors.pairings(request.user, round_, access):
        names = (selectors.display_name(match.player1), selectors.display_name(match.player2))
        if match.is_bye:
            byes.append({"match": match, "name": names[0]})
        else:
            slips.append({"match": match, "names": names, "url": f"{head}{match.pk}{tail}"})
    pages = [
        slips[start : start + SLIPS_PER_PAGE] for start in range(0, len(slips), SLIPS_PER_PAGE)
    ]
    return render(
        request,
        "tournaments/rounds/match_slips.html",
        {
            "event": event,
            "round": round_,
            "pages": pages,
            "byes": byes,
            "game_numbers": (1, 2, 3),
        },
    )


# --- the round clock (public) --------------------------------------------------------------

CLOCK_ROUND_FIELDS = ("id", "number", "stage", "status", "started_at")


def refused(request, status: int = 404, *, event=None):
    """The styled, translated page of a refusal on the public clock pages (instead of
    Django's bare text): the round does not exist for this visitor."""
    return render(request, "tournaments/rounds/refused.html", {"event": event}, status=status)


def _clock_context(request, pk: int, number: int) -> dict | None:
    """The clock of round ``number`` for anyone who may see the round
    (``policy.can_view_round``: published rounds of a visible event; drafts for the
    staff), with the viewer's own table and its extension; None when they may not.
    Two queries (the event with the viewer's access, the round), three for a player."""
    try:
        event, access = selectors.viewed_event(request.user, pk)
    except Http404:
        return None
    round_ = Round.objects.filter(event=event, number=number).only(*CLOCK_ROUND_FIELDS).first()
    if round_ is None or not policy.can_view_round(access, event, round_):
        return None
    round_.event = event
    now = timezone.now()
    mine = None
    if access.registration_id is not None:
        match = (
            Match.objects.filter(round=round_, participants__registration_id=access.registration_id)
            .only("id", "table", "extra_minutes", "round_id", "player1_id", "player2_id")
            .first()
        )
        if match is not None and not match.is_bye:
            mine = {"match": match, "ends_at": round_.ends_at(event.round_minutes)}
    return {
        "event": event,
        "access": access,
        "round": round_,
        "clock": clock_state(round_, event.round_minutes, now=now),
        "mine": mine,
        "live_url": reverse("tournaments:live", args=[event.pk]),
        "projector_url": reverse("tournaments:event_clock", args=[event.pk]),
    }


@require_safe
def round_clock(request, pk: int, number: int):
    """The round clock for everyone who may see the round: time left in minutes (counted
    down by live.js from the server's now), the end time (also without script), the
    viewer's own table with its extension. live.js polls the event's live JSON and
    refreshes the clock when it is started, closed or a table extended."""
    context = _clock_context(request, pk, number)
    if context is None:
        return refused(request)
    return render(request, "tournaments/round_clock.html", context)


@require_safe
def round_clock_fragment(request, pk: int, number: int):
    """The clock section alone (the same as the page's ``#clock-<event>``)."""
    context = _clock_context(request, pk, number)
    if context is None:
        return refused(request)
    return render(request, "tournaments/_clock.html", context)


@require_safe
def poster(request, pk: int):
    """The printable "scan for pairings" poster: a big QR code to the event's current
    pairings (absolute, on this request's host), the event's name and the short URL.
    For anyone who may see the event (staff print it; nothing on it is private)."""
    try:
        event, _access = selectors.viewed_event(request.user, pk)
    except Http404:
        return refused(request)
    pairings_url = request.build_absolute_uri(
        reverse("tournaments:current_pairings", args=[event.pk])
    )
    short_url = pairings_url.split("://", 1)[-1]
    return render(
        request,
        "tournaments/poster.html",
        {"event": event, "pairings_url": pairings_url, "short_url": short_url},
    )


urlpatterns = [
    path("<int:pk>/staff/rounds/generate/", generate_round, name="generate_round"),
    path(
        "<int:pk>/staff/rounds/<int:number>/<roundaction:action>/",
        round_action,
        name="round_action",
    ),
    path("<int:pk>/staff/rounds/<int:number>/repair/", repair_round, name="repair_round"),
    path("<int:pk>/staff/rounds/<int:number>/pairings/edit/", edit_pairings, name="edit_pairings"),
    path("<int:pk>/staff/rounds/<int:number>/slips/", match_slips, name="match_slips"),
    path("<int:pk>/staff/top-cut/generate/", generate_top_cut, name="generate_top_cut"),
    path("<int:pk>/staff/top-cut/advance/", advance_bracket, name="advance_bracket"),
    path("<int:pk>/staff/matches/<int:match_id>/", match_result, name="match_result"),
    path(
        "<int:pk>/staff/matches/<int:match_id>/extend/",
        extend_match_time,
        name="extend_match_time",
    ),
    path("<int:pk>/poster/", poster, name="poster"),
    path("<int:pk>/rounds/<int:number>/clock/", round_clock, name="round_clock"),
    path(
        "<int:pk>/rounds/<int:number>/clock/fragment/",
        round_clock_fragment,
        name="round_clock_fragment",
    ),
]
