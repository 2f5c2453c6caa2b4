"""The tournament pages: public event pages, the player's pages and the staff dashboard.

Views only translate: they fetch through ``tournaments.selectors`` / ``tournaments.policy``
(an event the user may not see is a 404), ask ``policy`` for every decision (a missing
permission is a 403) and change state only by calling ``tournaments.services``, whose
refusals (``TournamentError``) are shown to the user. ``NotAllowed`` is a
``PermissionDenied``: left uncaught, Django answers 403.
"""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy, pgettext, pgettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from cardpool.models import CardType, Element

from . import (
    next_action,
    pagecache,
    policy,
    result_texts,
    round_data,
    selectors,
    services,
    snapshots,
)
from .engine.errors import EngineError
from .engine.games import (
    MatchOutcome,
    MatchRecord,
    adjudicate_game,
    possible_records,
    record_for_seat,
)
from .forms import DisputeForm, QuickReportForm, RegisterForm, ReportResultForm, VersionForm
from .models import EventState, MatchStatus, RegistrationStatus, RoundStage, RoundStatus
from .result_texts import engine_error_text
from .services.errors import NotAllowed, TournamentError
from .services.standings import TIEBREAK_LABELS
from .views_home import registration_closed

# Texts for the service error codes a user meets on these pages; other codes fall back to
# the service's English message.
ERROR_TEXTS = {
    "already_registered": gettext_lazy("You are already registered for this event."),
    "registration_not_open": gettext_lazy("Registration for this event is not open."),
    "registration_closed": gettext_lazy("The registration deadline has passed."),
    "staff_cannot_play": gettext_lazy("The event's staff cannot play in it."),
    "decklist_missing": gettext_lazy("Paste a decklist."),
    "decklist_too_long": gettext_lazy("The decklist is too long."),
    "deck_illegal": gettext_lazy("The decklist is not legal for this event: nothing was saved."),
    "stale_version": gettext_lazy(
        "Someone else changed this match first. Check the result below and try again."
    ),
    "already_reported": gettext_lazy("Your opponent reported: confirm or dispute their result."),
    "disputed": gettext_lazy("The result is disputed: a judge will decide."),
    "result_final": gettext_lazy("The result is already confirmed."),
    "round_closed": gettext_lazy("This round is closed."),
    "not_reported": gettext_lazy("There is no reported result to answer."),
    "reason_required": gettext_lazy("Give a reason."),
    "bye": gettext_lazy("A bye has no result to report."),
    "not_enough_players": gettext_lazy("At least two active players are needed."),
    "previous_round_open": gettext_lazy("Close the previous round first."),
    "results_missing": gettext_lazy("Some matches have no final result yet."),
    # registrations: decklists, drops, re-entry, late entry
    "decklist_locked": gettext_lazy(
        "Decklists are locked: only a judge can change your decklist now."
    ),
    "not_active": gettext_lazy(
        "This registration is not active: the player has dropped or is disqualified."
    ),
    "event_not_open": gettext_lazy("The event is not open for this change."),
    "event_not_running": gettext_lazy("The event is not in its Swiss rounds."),
    "reentry_not_allowed": gettext_lazy("This event does not allow re-entry."),
    "not_dropped": gettext_lazy("Only a dropped player can re-enter."),
    "use_late_entry": gettext_lazy(
        "The player withdrew before round 1: add them as a late entry instead."
    ),
    "use_reentry": gettext_lazy("The player has played in this event: use re-entry instead."),
    "capacity_full": gettext_lazy("All seats of the event are taken."),
    "disqualified": gettext_lazy("The player is disqualified from this event."),
    # penalties
    "invalid_kind": gettext_lazy("Choose a penalty from the list."),
    "infraction_required": gettext_lazy("Name the infraction."),
    "match_required": gettext_lazy("A game loss or a match loss needs the match it applies to."),
    "not_in_match": gettext_lazy("The player does not play in this match."),
    "wrong_event": gettext_lazy("This match belongs to another event."),
    "round_not_open": gettext_lazy("The round of this match is not open."),
    "match_has_result": gettext_lazy(
        "This match already has a result (a game loss then goes on the player's next match)."
    ),
}


def error_text(error: TournamentError) -> str:
    if error.code == "invalid_result":
        text = engine_error_text(error)
        if text is not None:
            return text
    return str(ERROR_TEXTS.get(error.code, error.message))


def attempt(request, call, done, *, texts=error_text):
    """Run one service call for a page that answers with a message and a redirect.

    A refused permission propagates (``NotAllowed`` is a 403); any other refusal becomes an
    error message (``texts(error)``); on success ``done`` (a text, or a function of the
    call's result giving one) becomes a success message. Returns the call's result, or
    None when it was refused."""
    try:
        result = call()
    except NotAllowed:
        raise
    except TournamentError as error:
        messages.error(request, texts(error))
        return None
    messages.success(request, done(result) if callable(done) else done)
    return result


def _event_and_access(request, pk: int):
    """The event if the user may see it (else 404) and the user's access to it."""
    event = get_object_or_404(selectors.event_list(request.user), pk=pk)
    return event, policy.access_for(request.user, event)


def _require_staff(access) -> None:
    policy.require(access.is_staff, "not_staff", "event staff only")


# --- public pages ----------------------------------------------------------------------


@require_safe
def event_list(request):
    return render(
        request, "tournaments/event_list.html", {"events": selectors.event_list(request.user)}
    )


def percent(value) -> str:
    """A win percentage as shown on the pages (the engine keeps exact fractions)."""
    return "—" if value is None else f"{float(value) * 100:.2f}%"


def _working(table, names, registration_id: int) -> dict:
    """One player's tiebreak working, ready for the template: the engine's explanation
    (opponents, their records, floors or caps, each tiebreaker) in page terms."""
    working = table.explain(registration_id)
    return {
        "working": working,
        "own_match_win": working.own_match_win,
        "own_game_win": working.own_game_win,
        "final": [
            (TIEBREAK_LABELS.get(name, name), percent(value)) for name, value in working.tiebreakers
        ],
        "opponents": [
            {
                "line": opponent,
                "name": names.get(opponent.opponent, "?"),
                "match_win": percent(opponent.match_win.used),
                "match_win_raw": percent(opponent.match_win.raw),
                "game_win": percent(opponent.game_win.used) if opponent.game_win else None,
                "opponents_win": percent(opponent.opponents_win)
                if opponent.opponents_win is not None
                else None,
                "adjustment": opponent.match_win.adjustment,
            }
            for opponent in working.opponents
        ],
    }


def positive_int_param(request, name: str) -> int | None:
    """A query parameter that must be a whole number ≥ 1 (ASCII digits), else None."""
    value = request.GET.get(name, "").strip()
    if not (value.isdecimal() and value.isascii()) or int(value) < 1:
        return None
    return int(value)


@require_safe
def decklists(request, pk: int):
    """Decklists the user may see: all once the event makes them public (or for staff),
    otherwise only the user's own."""
    event, access = _event_and_access(request, pk)
    return render(
        request,
        "tournaments/decklists.html",
        {
            "event": event,
            "registrations": selectors.decklist_list(request.user, event, access),
            "public": policy.decklists_public(event),
        },
    )


# --- player pages --------------------------------------------------------------------


def _my_registration(request, event, access):
    if access.registration_id is None:
        return None
    return (
        selectors.registration_list(request.user, event, access)
        .filter(pk=access.registration_id)
        .first()
    )


# Event states in which a registration can still change (decklist, drop).
OPEN_EVENT_STATES = (EventState.REGISTRATION_OPEN, EventState.RUNNING, EventState.TOP_CUT)
ACTIVE_STATUSES = (RegistrationStatus.REGISTERED, RegistrationStatus.WAITLISTED)


def registration_actions(event, registration) -> dict:
    """What can be done to ``registration`` now, for showing buttons (the services decide
    again when one is used). Pure: no queries."""
    active = registration.status in ACTIVE_STATUSES and event.state in OPEN_EVENT_STATES
    return {
        "locked": services.decklist_locked(event, registration),
        "can_change_decklist": active,
        "can_drop": active,
        "reentry_possible": registration.status == RegistrationStatus.DROPPED
        and event.state == EventState.RUNNING
        and bool(registration.dropped_after_round),
    }


def deck_report_context(report, fmt) -> dict:
    """Context of ``decks/_report.html`` for a checker report or the dict stored with a
    registration (whose ``as_of`` is an ISO date string)."""
    if report is None:
        return {"report": None, "type_counts": [], "element_counts": [], "format": fmt}
    if not isinstance(report, dict):
        report = report.as_dict()
    as_of = report.get("as_of")
    if isinstance(as_of, str):
        report = {**report, "as_of": dt.date.fromisoformat(as_of)}
    return {
        "report": report,
        "format": fmt,
        "type_counts": _labelled(report.get("by_type", {}), CardType, _("unknown type")),
        "element_counts": _labelled(report.get("by_element", {}), Element, _("no element")),
    }


@login_required
@require_safe
def my_registration(request, pk: int):
    """The player's registration: status, decklist with its legality report, lock state
    and deadline, and the links to change the list, drop or re-enter."""
    event, access = _event_and_access(request, pk)
    registration = _my_registration(request, event, access)
    match = selectors.current_match(registration) if registration else None
    context = {
        "event": event,
        "registration": registration,
        "match": match,
        "can_register": event.state == EventState.REGISTRATION_OPEN and registration is None,
        **deck_report_context(registration.deck_report if registration else None, event.format),
    }
    if registration is not None:
        actions = registration_actions(event, registration)
        actions["can_reenter"] = actions["reentry_possible"] and event.allow_reentry
        context.update(actions)
    return render(request, "tournaments/my_registration.html", context)


def _labelled(counts, choices, missing_label):
    labels = dict(choices.choices)
    return [(labels.get(code, missing_label), count) for code, count in counts.items()]


@login_required
def register(request, pk: int):
    """Register with one of the player's saved decks or a pasted decklist (the service
    checks either against the event's format as of its date). An illegal deck shows the
    full report and registers nothing. Once registration is closed (not open yet, past
    its deadline, the event under way or over) the page says why and shows no form."""
    event, access = _event_and_access(request, pk)
    closed = registration_closed(event, timezone.now())
    registered = access.registration_id is not None and selectors.is_active_registration(
        access.registration_id
    )
    if closed is None and registered and request.method != "POST":
        closed = _("You are already registered for this event.")
    form = RegisterForm(request.POST or None, user=request.user, event=event)
    report = None
    if request.method == "POST" and form.is_valid():
        deck = form.cleaned_data["deck"]
        try:
            services.register_player(
                event,
                actor=request.user,
                deck=deck,
                deck_text=None if deck else form.cleaned_data["decklist"],
            )
        except services.DeckIllegal as error:
            report = error.report
            form.add_error(None, error_text(error))
        except NotAllowed:
            raise
        except TournamentError as error:
            form.add_error(None, error_text(error))
        else:
            messages.success(request, _("You are registered."))
            return redirect("tournaments:my_registration", pk=event.pk)
    return render(
        request,
        "tournaments/register.html",
        {
            "event": event,
            "form": form,
            "closed": closed,
            "registered": registered,
            "has_decks": form.fields["deck"].queryset.exists(),
            "report": report,
            "format": event.format,
            "type_counts": _labelled(report.by_type, CardType, _("unknown type")) if report else [],
            "element_counts": (
                _labelled(report.by_element, Element, _("no element")) if report else []
            ),
        },
    )


def _player_match_context(request, event, access, match, **extra):
    """Everything the match's body shows (``_match_body.html``), from the reader's side:
    the reader's seat (None for a spectator), the result and each game as the reader
    reads them, and which actions they have. No queries beyond the loaded match."""
    if match is None:
        return {"event": event, "match": None, "access": access, **extra}
    seat = (
        1
        if access.registration_id == match.player1_id
        else 2
        if access.registration_id is not None and access.registration_id == match.player2_id
        else None
    )
    names = (selectors.display_name(match.player1), selectors.display_name(match.player2))
    record = None if match.wins is None else MatchRecord(match.wins, match.losses, match.draws)
    open_round = match.round.status in (RoundStatus.PUBLISHED, RoundStatus.RUNNING)
    can_report = (
        seat is not None
        and not match.is_bye
        and open_round
        and (
            match.status == MatchStatus.PENDING
            or (
                match.status == MatchStatus.REPORTED
                and match.reported_by_id == access.registration_id
            )
        )
    )
    can_answer = (
        seat is not None
        and open_round
        and match.status == MatchStatus.REPORTED
        and policy.can_answer_report(access, match)
    )
    if record is None:
        result = ""
    elif seat is not None:
        result = result_texts.reader_result(record, seat)
    elif match.is_bye:
        result = _("%(name)s has a bye") % {"name": names[0]}
    else:
        result = result_texts.spectator_result(record, names)
    round_ends_at = match.round.ends_at(event.round_minutes)
    context = {
        "event": event,
        "match": match,
        "access": access,
        "seat": seat,
        "names": names,
        "opponent": None if seat is None else names[2 - seat],
        "result": result,
        "status_badge": STATUS_BADGES.get(match.status, ("badge--muted", match.status)),
        "reported_by_me": match.status == MatchStatus.REPORTED
        and match.reported_by_id is not None
        and match.reported_by_id == access.registration_id,
        "games": _game_lines(event, match, seat, names),
        "can_report": can_report,
        "can_answer": can_answer,
        # the round's end; _match_clock.html adds the table's extension
        "ends_at": round_ends_at,
        "mine": seat is not None,
        **extra,
    }
    if can_answer and record is not None:
        context["confirm_label"] = result_texts.confirm_label(record, seat)
    if can_report or can_answer:
        context["choices"] = _choices(match)
    return context


# The badge of each match status on the match's page: its class and a short text (the
# sentence beside the result says who waits for whom, from the reader's side).
STATUS_BADGES = {
    MatchStatus.PENDING: ("badge--muted", pgettext_lazy("match status", "No result yet")),
    MatchStatus.REPORTED: ("badge--warn", pgettext_lazy("match status", "Reported")),
    MatchStatus.CONFIRMED: ("badge--ok", pgettext_lazy("match status", "Confirmed")),
    MatchStatus.DISPUTED: ("badge--bad", pgettext_lazy("match status", "Disputed")),
    MatchStatus.FINAL: ("badge--ok", pgettext_lazy("match status", "Final")),
}


def _game_lines(event, match, seat, names) -> list[str]:
    """Each stored game as the reader reads it ("Game 1: you won — Bob's HP reached 0");
    empty when the result was given as a record. The outcome is the engine's, under the
    round's time-out policy."""
    if not match.games:
        return []
    policy_ = services.results.timeout_policy(event, match.round)
    # The game's own end rules (a Cross Universe game may have HP above CrossOver's 30):
    # from the event the match was loaded with (_visible_match joins it, no query), else
    # one query, only for a match that has games.
    if match.round._meta.get_field("event").is_cached(match.round):
        event = match.round.event
    rules = services.results.game_end_rules(event)
    lines = []
    for number, game in enumerate(match.games, 1):
        try:
            (report,) = services.results.parse_games([game])
            outcome = adjudicate_game(report, timeout_policy=policy_, rules=rules)
        except (TournamentError, EngineError):  # stored games were accepted once
            continue
        lines.append(result_texts.game_line(number, game, outcome, seat, names))
    return lines


def _choices(match) -> list[dict]:
    """The one-tap choices of this match's round, from the reporter's side, in three
    groups (wins, draws, losses); losses listed in the order of the wins they mirror."""
    top_cut = match.round.stage == RoundStage.TOP_CUT
    groups = {outcome: [] for outcome in MatchOutcome}
    for record in possible_records(winner_required=top_cut):
        groups[record.outcome].append(record)
    groups[MatchOutcome.PLAYER2].reverse()
    titles = {
        MatchOutcome.PLAYER1: pgettext("result", "Win"),
        MatchOutcome.DRAW: pgettext("result", "Draw"),
        MatchOutcome.PLAYER2: pgettext("result", "Loss"),
    }
    return [
        {
            "title": titles[outcome],
            "outcome": str(outcome),
            "records": [
                {
                    "value": f"{r.wins}-{r.losses}-{r.draws}",
                    "label": result_texts.choice_label(r),
                }
                for r in groups[outcome]
            ],
        }
        for outcome in (MatchOutcome.PLAYER1, MatchOutcome.DRAW, MatchOutcome.PLAYER2)
        if groups[outcome]
    ]


def _chosen(request, context) -> dict | None:
    """The choice the reporter tapped (``?report=2-1-0``), to confirm with one more tap;
    None when there is none or it is not one of the round's choices."""
    value = request.GET.get("report", "")
    if not value or not context.get("can_report"):
        return None
    try:  # "2-1" reads as "2-1-0"
        record = MatchRecord.parse(value[:20])
    except EngineError:
        return None
    for group in context.get("choices", ()):
        for choice in group["records"]:
            if choice["value"] == str(record):
                return {**choice, "button": result_texts.report_label(record)}
    return None


@login_required
@require_safe
def my_match(request, pk: int):
    """The player's match in the latest published round: the same body as the match's
    own page (opponent, table, result and games from the player's side, and the one-tap
    report, confirm or dispute). Two queries (the event with the viewer's access and
    revision, then the match); a phone polling it gets a 304 until the event changes.
    The clock is rendered per response (it carries the server's now), into the cached
    body."""
    event, access = selectors.viewed_event(request.user, pk)
    revision = snapshots.revision_of(event).number
    tag = pagecache.etag(request, "my-match", event.pk, revision, *pagecache.viewer_parts(request))
    if (answer := pagecache.not_modified(request, tag, weak=True)) is not None:
        return answer
    registration_id = access.registration_id

    def build() -> dict:
        match = None if registration_id is None else selectors.current_match(registration_id)
        body = _my_match_body(
            request, event, access, match, token=pagecache.CSRF_SENTINEL, clock=CLOCK_SENTINEL
        )
        clock = None
        if match is not None:
            clock = {
                "match": {"pk": match.pk, "extra_minutes": match.extra_minutes},
                "ends_at": match.round.ends_at(event.round_minutes),
                "mine": True,
            }
        return {"body": body, "clock": clock}

    cached = pagecache.get_or_build(
        # v2: the cached value became a dict (body and clock) in #11
        pagecache.key("my-match-v2", event.pk, revision, registration_id, get_language()),
        build,
    )
    clock = ""
    if cached["clock"] is not None:
        clock = render_to_string(
            "tournaments/_match_clock.html", {"event": event, **cached["clock"]}
        )
    body = cached["body"].replace(CLOCK_SENTINEL, clock)
    return pagecache.finish(_my_match_page(request, event, body), tag, weak=True)


# Stands for the clock in the cached "my match" body: the clock shows the server's now and
# the time left, so each response renders its own (no query: the cache keeps its inputs).
CLOCK_SENTINEL = "<!-- match-clock -->"


def _my_match_body(
    request, event, access, match, *, token: str, report_form=None, chosen=None, clock=None
) -> str:
    """The match and its forms, rendered with ``token`` as the forms' CSRF token (the
    cached "my match" body carries a sentinel, replaced per response) and ``clock`` in
    place of the clock when given."""
    context = _player_match_context(request, event, access, match, csrf_token=token)
    if match is not None:
        names = context["names"]
        context.update(
            chosen=chosen,
            clock_placeholder=mark_safe(clock) if clock else None,  # our own constant
            # Built only for a viewer who may report: it needs the game's end rules.
            report_form=report_form
            or (
                ReportResultForm(
                    initial={"expected_version": match.version},
                    player1=names[0],
                    player2=names[1] or "",
                    end_rules=services.results.game_end_rules(event),
                )
                if context["can_report"]
                else None
            ),
            timeout_policy=services.results.timeout_policy(event, match.round).value,
        )
    return render_to_string("tournaments/_my_match_body.html", context)


def _my_match_page(request, event, body: str, status: int = 200):
    body = body.replace(pagecache.CSRF_SENTINEL, get_token(request))
    # rendered by our own templates, escaped there
    return render(
        request,
        "tournaments/my_match.html",
        {"event": event, "body": mark_safe(body)},
        status=status,
    )


def _visible_match(request, event, access, match_id: int):
    """The match if the user may see its round (else 404): published rounds for anyone
    who may see the event, draft rounds for its staff only (``policy.can_view_round``,
    taken in SQL by ``matches_visible_to``). One query."""
    return get_object_or_404(
        policy.matches_visible_to(request.user, event, access)
        # the event's format and game: the games' end rules (_game_lines) without a query
        .select_related("round__event__format__game", "player1__player", "player2__player")
        .defer(*selectors.SEAT_DECK_FIELDS),
        pk=match_id,
    )


def _match_page(request, event, access, match, *, report_form=None, status: int = 200):
    chosen = None
    if report_form is None:
        context = _player_match_context(request, event, access, match)
        chosen = _chosen(request, context)
    body = _my_match_body(
        request,
        event,
        access,
        match,
        token=get_token(request),
        report_form=report_form,
        chosen=chosen,
    )
    return render(
        request,
        "tournaments/match.html",
        {
            "event": event,
            "match": match,
            "body": mark_safe(body),  # rendered by our own templates, escaped there
            "is_staff": access.is_staff,
        },
        status=status,
    )


@require_safe
def match_page(request, pk: int, match_id: int):
    """The page of one match (the QR code on its slip leads here): who plays at which
    table in which round, the result and the games from the reader's side, and for its
    players the one-tap report (``?report=2-1-0`` shows the confirming button), the
    opponent's confirm or dispute. Anyone who may see the round may see the page."""
    event, access = selectors.viewed_event(request.user, pk)
    match = _visible_match(request, event, access, match_id)
    return _match_page(request, event, access, match)


def _to_match(event, match):
    return redirect("tournaments:match", pk=event.pk, match_id=match.pk)


@login_required
@require_POST
def report_result(request, pk: int, match_id: int):
    """A player reports: one tap (``record`` from their own side) or the games. Back to
    the match page with a message; a refused game-by-game form is shown again."""
    event, access = _event_and_access(request, pk)
    match = _visible_match(request, event, access, match_id)
    policy.require(policy.can_report(access, match), "not_participant")
    names = (selectors.display_name(match.player1), selectors.display_name(match.player2))
    seat = 1 if access.registration_id == match.player1_id else 2
    opponent = names[2 - seat] or ""
    if "record" in request.POST:
        quick = QuickReportForm(request.POST)
        if not quick.is_valid():
            messages.error(request, _("Choose a result."))
            return _to_match(event, match)
        attempt(
            request,
            lambda: services.report_result(
                match,
                actor=request.user,
                record=quick.cleaned_data["record"],
                expected_version=quick.cleaned_data["expected_version"],
            ),
            lambda saved: _reported_text(saved, seat, opponent),
        )
        return _to_match(event, match)
    form = ReportResultForm(
        request.POST,
        player1=names[0],
        player2=names[1] or "",
        end_rules=services.results.game_end_rules(event),
    )
    if form.is_valid():
        try:
            match = services.report_result(
                match,
                actor=request.user,
                games=form.cleaned_data["games"],
                expected_version=form.cleaned_data["expected_version"],
            )
        except NotAllowed:
            raise
        except TournamentError as error:
            form.add_error(None, error_text(error))
        else:
            messages.success(request, _reported_text(match, seat, opponent))
            return _to_match(event, match)
    match.refresh_from_db()
    return _match_page(request, event, access, match, report_form=form, status=400)


def _reported_text(match, seat: int, opponent: str) -> str:
    record = MatchRecord(match.wins, match.losses, match.draws)
    return _("Reported: %(result)s. %(name)s now confirms or disputes it.") % {
        "result": result_texts.choice_label(record_for_seat(record, seat)),
        "name": opponent,
    }


@login_required
@require_POST
def result_preview(request, pk: int, match_id: int):
    """The report form's live preview (htmx, on every change): each game's outcome and
    the match record the engine makes of the games entered so far. Saves nothing. For
    the match's players and the event's staff."""
    event, access = _event_and_access(request, pk)
    match = _visible_match(request, event, access, match_id)
    policy.require(policy.can_report(access, match) or policy.can_judge(access), "not_participant")
    names = (selectors.display_name(match.player1), selectors.display_name(match.player2))
    form = ReportResultForm(
        request.POST,
        player1=names[0],
        player2=names[1] or "",
        end_rules=services.results.game_end_rules(event),
    )
    context = {"names": names}
    if form.is_valid():
        try:
            games = form.cleaned_data["games"]
            outcomes, record = services.preview_result(event, match.round, games)
        except TournamentError as error:
            context["error"] = error_text(error)
        else:
            seat = (
                1
                if access.registration_id == match.player1_id
                else 2
                if access.registration_id == match.player2_id
                else None
            )
            context["lines"] = [
                result_texts.game_line(number, game, outcome, seat, names)
                for number, (game, outcome) in enumerate(zip(games, outcomes, strict=True), 1)
            ]
            context["record"] = str(record)
            context["result"] = (
                result_texts.reader_result(record, seat)
                if seat is not None
                else result_texts.spectator_result(record, names)
            )
    return render(request, "tournaments/_result_preview.html", context)


def _answer(request, pk: int, match_id: int, *, confirm: bool):
    event, access = _event_and_access(request, pk)
    match = _visible_match(request, event, access, match_id)
    policy.require(policy.is_participant(access, match), "not_participant")
    form = (VersionForm if confirm else DisputeForm)(request.POST)
    if form.is_valid():
        if confirm:
            attempt(
                request,
                lambda: services.confirm_result(
                    match,
                    actor=request.user,
                    expected_version=form.cleaned_data["expected_version"],
                ),
                _("Result confirmed."),
            )
        else:
            attempt(
                request,
                lambda: services.dispute_result(
                    match,
                    actor=request.user,
                    expected_version=form.cleaned_data["expected_version"],
                    reason=form.cleaned_data["reason"],
                    record=form.cleaned_data["record"] or None,
                ),
                _("Result disputed: a judge will come to your table."),
            )
    else:
        messages.error(request, _("Give a reason for the dispute."))
    return _to_match(event, match)


@login_required
@require_POST
def confirm_result(request, pk: int, match_id: int):
    return _answer(request, pk, match_id, confirm=True)


@login_required
@require_POST
def dispute_result(request, pk: int, match_id: int):
    return _answer(request, pk, match_id, confirm=False)


# --- staff ---------------------------------------------------------------------------

AUDIT_ROWS = 50
DASH_PLAYERS_PER_PAGE = 50  # the dashboard's player list, a page at a time
DASH_REVIEW_TABLES = 100  # tables of a draft round shown for review (all: its pairings page)
DASH_OUTSTANDING_ROWS = 100  # outstanding matches listed (the count says how many in all)
DASH_MISSING_TABLES = 5  # tables named in the "results missing" button


def _round_summaries(rounds) -> list[next_action.RoundSummary]:
    return [
        next_action.RoundSummary(
            number=r.number,
            stage=r.stage,
            status=r.status,
            match_count=r.match_count,
            open_match_count=r.open_match_count,
            disputed_count=r.disputed_count,
        )
        for r in rounds
    ]


def _dash_players(request, event, access) -> dict:
    """The dashboard's player list: searched by username or name (GET ``q``), a page
    at a time (GET ``page``). Two queries (the count, the page) whatever the number of
    players."""
    from .views_public import _page_number, _pager, _query  # views_public imports us

    query = _query(request)
    rows = selectors.registration_list(request.user, event, access).defer(*selectors.DECK_FIELDS)
    if query:
        rows = rows.filter(
            Q(player__username__icontains=query)
            | Q(player__first_name__icontains=query)
            | Q(player__last_name__icontains=query)
        )
    pager = _pager(_page_number(request), rows.count(), DASH_PLAYERS_PER_PAGE)
    start = (pager["number"] - 1) * DASH_PLAYERS_PER_PAGE
    return {
        "registrations": rows[start : start + DASH_PLAYERS_PER_PAGE],
        "players_query": query,
        "players_pager": pager,
        "players_extra": urlencode({"q": query}) + "&" if query else "",
    }


def _dash_review(event, round_) -> dict:
    """A draft round's pairings for review on the dashboard: the first tables (with each
    player's points and record as they enter the round), the bye, the number of tables.
    The pairings come from the round's cached snapshot."""
    from .views_public import _pairing_rows  # views_public imports us

    snapshot = snapshots.pairings(event, round_)
    infos = round_data.rounds(event)
    info = next(info for info in infos if info.number == round_.number)
    shown = snapshot.rows[:DASH_REVIEW_TABLES]
    byes = [row.player1 for row in snapshot.rows if row.player2_id is None]
    return {
        "review_rows": _pairing_rows(
            shown,
            by_name=False,
            records=round_data.records_before(event, info, infos),
            extensions={},
        ),
        "review_tables": len(snapshot.rows),
        "review_more": len(snapshot.rows) > len(shown),
        "review_byes": byes,
    }


@login_required
@require_safe
def dashboard(request, pk: int):
    """Organizer and judge dashboard, next action first: the one next step of the event
    (tournaments.next_action) with what it needs (a draft round's pairings to review, the
    matches still waiting for a result), then the rounds, outstanding results (disputes
    first), players (searched, a page at a time), penalties and the latest audit
    entries."""
    event, access = _event_and_access(request, pk)
    _require_staff(access)
    rounds = list(
        selectors.round_list(request.user, event, access).annotate(
            disputed_count=Count("matches", filter=Q(matches__status=MatchStatus.DISPUTED))
        )
    )
    action = next_action.next_action(
        event.state,
        swiss_rounds=event.swiss_rounds,
        top_cut_size=event.top_cut_size,
        rounds=_round_summaries(rounds),
    )
    latest = rounds[-1] if rounds else None
    can_run_rounds = policy.can_run_rounds(access)
    outstanding = selectors.outstanding_matches(request.user, event, access).defer(
        "games", *selectors.SEAT_DECK_FIELDS
    )
    context = {
        "event": event,
        "access": access,
        "can_run_rounds": can_run_rounds,
        "action": action,
        "latest": latest,
        "rounds": rounds,
        "outstanding": list(outstanding[:DASH_OUTSTANDING_ROWS]),
        "penalties": selectors.penalty_list(request.user, event, access),
        "audit": selectors.audit_log(request.user, event, access)[:AUDIT_ROWS],
        **_dash_players(request, event, access),
    }
    if action.kind == next_action.REVIEW_AND_PUBLISH and latest is not None:
        context.update(_dash_review(event, latest))
    if action.kind in (next_action.CHASE_RESULTS, next_action.START_CLOCK):
        tables = [
            match.table
            for match in context["outstanding"][:DASH_MISSING_TABLES]
            if match.round_id == latest.pk
        ]
        context["missing_tables"] = ", ".join(str(table) for table in tables)
        context["missing_more"] = action.outstanding > len(tables)
    return render(request, "tournaments/dashboard.html", context)
