"""Staff pages for rounds and results: generate, publish, start, close, re-pair and edit
pairings, enter or override results, top cut, printable match slips, the round clock."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from . import policy, services
from .models import RoundStatus
from .services.errors import NotAllowed, TournamentError
from .views import _event_and_access, _require_staff, error_text

ROUND_ACTIONS = {
    "publish": (services.publish_round, gettext_lazy("Round %(number)s published.")),
    "start": (services.start_round_clock, gettext_lazy("Clock of round %(number)s started.")),
    "close": (services.close_round, gettext_lazy("Round %(number)s closed.")),
}


@login_required
@require_POST
def generate_round(request, pk: int):
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_run_rounds(access), "not_manager")
    try:
        round_ = services.generate_round(event, actor=request.user)
    except NotAllowed:
        raise
    except TournamentError as error:
        messages.error(request, error_text(error))
    else:
        text = _("Round %(number)s generated: review and publish it.")
        messages.success(request, text % {"number": round_.number})
    return redirect("tournaments:dashboard", pk=event.pk)


@login_required
@require_POST
def round_action(request, pk: int, number: int, action: str):
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_run_rounds(access), "not_manager")
    round_ = get_object_or_404(policy.rounds_visible_to(request.user, event, access), number=number)
    if action not in ROUND_ACTIONS:
        raise Http404
    service, done = ROUND_ACTIONS[action]
    try:
        service(round_, actor=request.user)
    except NotAllowed:
        raise
    except TournamentError as error:
        messages.error(request, error_text(error))
    else:
        messages.success(request, done % {"number": number})
    return redirect("tournaments:dashboard", pk=event.pk)


def _clock_context(request, pk: int, number: int):
    event, access = _event_and_access(request, pk)
    _require_staff(access)
    round_ = get_object_or_404(policy.rounds_visible_to(request.user, event, access), number=number)
    ends_at = round_.ends_at(event.round_minutes)
    remaining = None
    if ends_at is not None and round_.status == RoundStatus.RUNNING:
        seconds = max(0, int((ends_at - timezone.now()).total_seconds()))
        remaining = f"{seconds // 60:02d}:{seconds % 60:02d}"
    return {
        "event": event,
        "round": round_,
        "ends_at": ends_at,
        "remaining": remaining,
        "fragment_url": reverse(
            "tournaments:round_clock_fragment", kwargs={"pk": event.pk, "number": number}
        ),
    }


@login_required
def round_clock(request, pk: int, number: int):
    """Full-screen round clock for a projector. The server gives the end time; htmx
    re-fetches the small fragment every few seconds (no script of ours)."""
    return render(request, "tournaments/round_clock.html", _clock_context(request, pk, number))


@login_required
def round_clock_fragment(request, pk: int, number: int):
    return render(request, "tournaments/_clock.html", _clock_context(request, pk, number))


urlpatterns = [
    path("<int:pk>/staff/rounds/generate/", generate_round, name="generate_round"),
    path("<int:pk>/staff/rounds/<int:number>/<slug:action>/", round_action, name="round_action"),
    path("<int:pk>/rounds/<int:number>/clock/", round_clock, name="round_clock"),
    path(
        "<int:pk>/rounds/<int:number>/clock/fragment/",
        round_clock_fragment,
        name="round_clock_fragment",
    ),
]
