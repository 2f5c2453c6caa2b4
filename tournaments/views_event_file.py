"""The event file on the pages: download it, import one (docs/event-file.md).

* ``/events/<pk>/event-file/`` (``event_file_download``): the file as a JSON attachment
  ``event-<pk>.json``. The event's staff get the whole file; with ``?private=1`` the
  organizer (or a site admin) also gets the players' e-mail addresses. Anyone else who
  may see the event gets the **public file** once the rounds are under way (running,
  top cut, finished): what the public pages show and a verifier needs (published rounds,
  their games and results, the standings' inputs), without e-mails, staff, penalties,
  deck checks, the audit log, draft rounds, or decklists before they are public.
* ``/events/<pk>/staff/event-file/`` (``event_file_staff``): the staff's page with the
  download form (the e-mail box for the organizer only) and how to verify and move it.
* ``/events/import/`` (``event_file_import``): upload a file. Anyone who may create an
  event may import one (``policy.can_create_event``); the imported event's organizer is
  the importer unless the file's organizer has the importer's username. A file whose
  event (by ``uid``) already exists here replaces it, so only that event's organizer (or
  a site admin) may import it. A refused file shows every problem with its JSON path,
  and nothing is written (NUL anywhere in it, and a character that changes the text
  direction in the event's or a user's name, are problems too: event_file/reading.py,
  ``importing.name_problems``).

The API (``tournaments/api/event_file.py``) calls the same functions.
"""

from __future__ import annotations

import functools
import uuid

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext
from django.views.decorators.http import require_http_methods, require_safe

from . import policy, selectors
from .event_file import (
    EventFileRejected,
    ImportOutcome,
    Problem,
    export_event,
    import_event,
    load_schema,
    nul_problems,
    read_document,
)
from .event_file.limits import FILE_BYTES
from .models import Event, EventState
from .services.errors import NotAllowed

# The limit of an event file (event_file/limits.py: what the API reads as a JSON body).
EVENT_FILE_MAX_BYTES = FILE_BYTES
PUBLIC_STATES = frozenset({EventState.RUNNING, EventState.TOP_CUT, EventState.FINISHED})
PROBLEMS_SHOWN = 1000
REPLACE_REFUSED = gettext_noop(
    "This event is already on this site (the file's uid), and only its organizer may replace it."
)


# --- who gets which file ------------------------------------------------------------------


def public_file_allowed(event: Event) -> bool:
    """The public file exists once the rounds are under way (what it holds, published
    rounds and their results, is public on the pages by then)."""
    return event.state in PUBLIC_STATES


def event_file_for(event: Event, access: policy.EventAccess, *, private: bool) -> dict:
    """The document this viewer may have: the event's staff the whole file (with e-mail
    addresses only for the organizer or a site admin who asks), anyone else the public
    file once it is allowed. Raises ``NotAllowed`` (403) otherwise."""
    if private:
        policy.require(access.is_owner, "not_organizer", "only the organizer gets e-mails")
    if access.is_staff:
        return export_event(event, include_private=private)
    policy.require(
        public_file_allowed(event),
        "event_file_not_public",
        "the event file is public once the rounds are under way",
    )
    return public_document(export_event(event), decklists_public=policy.decklists_public(event))


def _without_penalty_links(games: list[dict]) -> list[dict]:
    return [{k: v for k, v in game.items() if k != "penalty"} for game in games]


def public_document(document: dict, *, decklists_public: bool) -> dict:
    """``document`` (an export without e-mails) cut to what the public pages show: no
    staff list, penalties, deck checks or audit log; published rounds only; decklists only
    once the organizer made them public; results' reasons (judges' notes) blank; only the
    users still named. Still a valid event file: the verifier replays it."""
    rounds = []
    for round_row in document["rounds"]:
        if round_row["status"] == "draft":
            continue
        matches = []
        for match in round_row["matches"]:
            submissions = [
                {**sub, "games": _without_penalty_links(sub["games"]), "reason": ""}
                for sub in match["submissions"]
            ]
            matches.append(
                {
                    **match,
                    "games": _without_penalty_links(match["games"]),
                    "submissions": submissions,
                }
            )
        rounds.append({**round_row, "matches": matches})
    kept_rounds = {row["number"] for row in rounds}
    top_cut = document["top_cut"]
    if top_cut is not None:
        top_cut = {
            **top_cut,
            "rounds": [number for number in top_cut["rounds"] if number in kept_rounds],
            "bracket": [row for row in top_cut["bracket"] if row["round"] in kept_rounds],
        }
    registrations = [
        row if decklists_public else {**row, "decklist": None} for row in document["registrations"]
    ]
    named = {document["event"]["organizer"]}
    named.update(row["player"] for row in registrations)
    for round_row in rounds:
        for match in round_row["matches"]:
            named.update(match[key] for key in ("player1", "player2", "reported_by"))
            named.update(sub["by"] for sub in match["submissions"])
    return {
        **document,
        "event": {**document["event"], "staff": []},
        "users": [row for row in document["users"] if row["username"] in named],
        "registrations": registrations,
        "rounds": rounds,
        "penalties": [],
        "deck_checks": [],
        "top_cut": top_cut,
        "audit": [],
    }


def file_response(document: dict, event_pk: int) -> JsonResponse:
    response = JsonResponse(document, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="event-{event_pk}.json"'
    return response


# --- importing ----------------------------------------------------------------------------


def _as_importer(document, user):
    """The document with ``user`` as the event's organizer, unless the file's organizer
    already has that username (the same person moving their own event). A malformed file
    is returned as it is: ``import_event`` refuses it with every problem."""
    if not isinstance(document, dict):
        return document
    event, users = document.get("event"), document.get("users")
    username = user.get_username()
    if not isinstance(event, dict) or not isinstance(users, list):
        return document
    if event.get("organizer") == username:
        return document
    staff = event.get("staff")
    if isinstance(staff, list):  # the organizer is not also a judge of their event
        staff = [
            row for row in staff if not (isinstance(row, dict) and row.get("user") == username)
        ]
    document = {**document, "event": {**event, "organizer": username, "staff": staff}}
    if not any(isinstance(row, dict) and row.get("username") == username for row in users):
        row = {
            "username": username,
            "display_name": user.get_full_name() or username,
            "first_name": user.first_name,
            "last_name": user.last_name,
        }
        # Last, so a problem in the file's own rows keeps the path it has in the file.
        document["users"] = [*users, row]
    return document


def import_as(document, user) -> ImportOutcome:
    """Import ``document`` for ``user`` (the pages' and the API's one path). Raises
    ``NotAllowed`` when ``user`` may not create events, or when the file's event exists
    here and ``user`` is not its organizer (importing would replace it);
    ``EventFileRejected`` with every problem otherwise refused (nothing written)."""
    policy.require(policy.can_create_event(user), "not_allowed", "sign in to import")
    # NUL is named by its path in the file as uploaded (the importer's changes below move
    # the staff rows); import_event checks again for its other callers.
    problems = nul_problems(document)
    if problems:
        raise EventFileRejected(problems)
    if isinstance(document, dict) and isinstance(document.get("event"), dict):
        try:
            uid = uuid.UUID(str(document["event"].get("uid")))
        except ValueError:
            uid = None  # import_event names the problem
        if uid is not None:
            existing = Event.objects.filter(uid=uid).values_list("organizer_id", flat=True)
            existing = list(existing[:1])
            policy.require(
                not existing or user.is_superuser or existing[0] == user.pk,
                "not_organizer",
                "this event exists here: only its organizer may replace it",
            )
    return import_event(_as_importer(document, user), actor=user)


class ImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Event file (JSON)"),
        help_text=gettext_lazy("A file downloaded from an event's staff pages (event-….json)."),
        widget=forms.ClearableFileInput(attrs={"accept": ".json,application/json"}),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > EVENT_FILE_MAX_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(size)s MB.")
                % {"size": EVENT_FILE_MAX_BYTES // (1024 * 1024)}
            )
        return upload


# --- pages --------------------------------------------------------------------------------


@require_safe
def event_file_download(request, pk: int):
    """The event file as ``event-<pk>.json``: whole for the staff (``?private=1``: with
    e-mails, organizer only), public for the others once allowed, else 403."""
    event, access = selectors.viewed_event(request.user, pk)
    private = request.GET.get("private") in ("1", "on", "true")
    return file_response(event_file_for(event, access, private=private), event.pk)


@require_safe
@login_required
def event_file_staff(request, pk: int):
    """The staff's page: download (e-mails for the organizer), verify, move."""
    event, access = selectors.viewed_event(request.user, pk)
    policy.require(access.is_staff, "not_staff", "event staff only")
    return render(
        request,
        "tournaments/event_file/staff.html",
        {
            "event": event,
            "access": access,
            "verify_command": f"python -m tournaments.engine.replay event-{event.pk}.json",
            "public_allowed": public_file_allowed(event),
        },
    )


@require_http_methods(["GET", "POST"])
@login_required
def event_file_import(request):
    """Upload an event file: every problem with its JSON path on refusal (400, nothing
    written); on success the imported event's page."""
    policy.require(policy.can_create_event(request.user), "not_allowed", "sign in to import")
    problems: list[Problem] = []
    status = 400 if request.method == "POST" else 200
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        document, problems = read_document(form.cleaned_data["file"].read())
        if not problems:
            try:
                outcome = import_as(document, request.user)
            except EventFileRejected as rejected:
                problems = rejected.problems
            except NotAllowed:
                status = 403
                problems = [Problem("event.uid", _(REPLACE_REFUSED))]
            else:
                messages.success(request, imported_message(outcome))
                return redirect("tournaments:event_detail", outcome.event.pk)
    return render(
        request,
        "tournaments/event_file/import.html",
        {
            "form": form,
            "problems": problems[:PROBLEMS_SHOWN],
            "problem_count": len(problems),
            "max_mb": EVENT_FILE_MAX_BYTES // (1024 * 1024),
        },
        status=status,
    )


def imported_message(outcome: ImportOutcome) -> str:
    counts = outcome.counts
    text = (
        _("Imported: %(players)s players, %(rounds)s rounds, %(matches)s matches.")
        if outcome.created
        else _(
            "The event was already here and is replaced by the file: %(players)s players, "
            "%(rounds)s rounds, %(matches)s matches."
        )
    ) % {
        "players": counts.get("registrations", 0),
        "rounds": counts.get("rounds", 0),
        "matches": counts.get("matches", 0),
    }
    if outcome.users_created:
        text += " " + ngettext(
            "%(count)s account was created for a player not on this site yet (inactive "
            "until claimed).",
            "%(count)s accounts were created for players not on this site yet (inactive "
            "until claimed).",
            len(outcome.users_created),
        ) % {"count": len(outcome.users_created)}
    return text


@functools.cache
def format_documentation() -> str:
    """docs/event-file.md as text (the pages show it as it is: Markdown reads as text)."""
    try:
        return (settings.BASE_DIR / "docs" / "event-file.md").read_text(encoding="utf-8")
    except OSError:
        return ""


@require_safe
def event_verify(request, pk: int):
    """How anyone can verify the event: the public file, the command, the format (one
    query: the event with the viewer's access)."""
    event, access = selectors.viewed_event(request.user, pk)
    return render(
        request,
        "tournaments/event_file/verify.html",
        {
            "event": event,
            "access": access,
            "public_allowed": public_file_allowed(event) or access.is_staff,
            "verify_command": f"python -m tournaments.engine.replay event-{event.pk}.json",
            "documentation": format_documentation(),
            "documentation_name": "docs/event-file.md",
        },
    )


@require_safe
def event_file_schema(request):
    """The JSON Schema of ``crossover-event/1`` (public)."""
    response = JsonResponse(load_schema(), json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = 'inline; filename="crossover-event-1.schema.json"'
    return response


urlpatterns = [
    path("import/", event_file_import, name="event_file_import"),
    path("event-file/schema.json", event_file_schema, name="event_file_schema"),
    path("<int:pk>/verify/", event_verify, name="event_verify"),
    path("<int:pk>/event-file/", event_file_download, name="event_file_download"),
    path("<int:pk>/staff/event-file/", event_file_staff, name="event_file_staff"),
]
