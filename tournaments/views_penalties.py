"""Penalties on the staff's pages: the issue form's infraction list (with the penalty
suggested for the player) and the event's penalty report (filterable, counted per
infraction, CSV).

Like every page, these only translate: who may see them is ``policy.can_judge`` (a missing
permission is a 403, an event the user may not see a 404), the penalty itself is issued
by ``services.issue_penalty``.
"""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import path
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from . import exports, infractions, policy, selectors
from .forms import PenaltyForm
from .models import Penalty, PenaltyKind
from .views import _event_and_access


def penalty_form_context(event, registration, penalties, matches, form=None) -> dict:
    """The player page's penalty form and the infraction list behind it, each with the
    penalty suggested for this player (one query: the event's game's active
    infractions; ``penalties``: the player's, loaded with their ``infraction_ref``)."""
    offers = infractions.offers_for(
        registration,
        infractions.active_for_event(event),
        earlier=infractions.earlier_from(penalties),
    )
    return {
        "penalty_form": form or PenaltyForm(prefix="penalty", matches=matches, offers=offers),
        "infraction_offers": list(offers.values()),
    }


def bound_penalty_form(request, event, registration, matches) -> PenaltyForm:
    """The posted form, with the infraction list (two queries)."""
    offers = infractions.offers_for(registration, infractions.active_for_event(event))
    return PenaltyForm(request.POST, prefix="penalty", matches=matches, offers=offers)


# --- the penalty report ------------------------------------------------------------------


class ReportFilter(forms.Form):
    kind = forms.ChoiceField(
        label=gettext_lazy("Penalty"),
        required=False,
        choices=[("", gettext_lazy("All penalties")), *PenaltyKind.choices],
    )


def _report_columns() -> list[exports.Column]:
    return [
        exports.Column("player", _("Player")),
        exports.Column("username", _("Username")),
        exports.Column("infraction", _("Infraction")),
        exports.Column("infraction_code", _("Infraction code")),
        exports.Column("penalty", _("Penalty")),
        exports.Column("suggested", _("Suggested penalty")),
        exports.Column("round", _("Round")),
        exports.Column("table", _("Table")),
        exports.Column("judge", _("Judge")),
        exports.Column("issued", _("Issued")),
        exports.Column("note", _("Note")),
    ]


def _report_row(penalty: Penalty) -> list:
    return [
        selectors.display_name(penalty.registration),
        penalty.registration.player.get_username(),
        penalty.infraction_name,
        penalty.infraction_ref.code if penalty.infraction_ref_id else "",
        penalty.get_kind_display(),
        penalty.get_suggested_kind_display() if penalty.suggested_kind else "",
        penalty.round.number if penalty.round_id else None,
        penalty.match.table if penalty.match_id else None,
        penalty.judge.get_username(),
        timezone.localtime(penalty.created_at).strftime("%Y-%m-%d %H:%M"),
        penalty.note,
    ]


def _counts(event) -> list[dict]:
    """Penalties per infraction (one row per listed infraction, one per free text), with
    the number of each kind; most frequent first (two queries)."""
    per_kind = {value: Count("id", filter=Q(kind=value)) for value in PenaltyKind.values}
    rows = (
        Penalty.objects.filter(event=event, infraction_ref__isnull=False)
        .values(
            "infraction_ref_id",
            "infraction_ref__name_ja",
            "infraction_ref__name_en",
            "infraction_ref__code",
        )
        .annotate(total=Count("id"), **per_kind)
    )
    free = (
        Penalty.objects.filter(event=event, infraction_ref__isnull=True)
        .values("infraction")
        .annotate(total=Count("id"), **per_kind)
    )
    japanese = infractions.is_japanese()
    result = []
    for row in rows:
        name = row["infraction_ref__name_ja"] if japanese else row["infraction_ref__name_en"]
        result.append({"name": name, "listed": True, **_kinds(row)})
    for row in free:
        result.append({"name": row["infraction"], "listed": False, **_kinds(row)})
    result.sort(key=lambda row: (-row["total"], row["name"]))
    return result


def _kinds(row) -> dict:
    return {
        "total": row["total"],
        "kinds": [(label, row[value]) for value, label in PenaltyKind.choices],
    }


@login_required
@require_safe
def penalty_report(request, pk: int):
    """Every penalty of the event (newest first), filterable by penalty, counted per
    infraction; ``?format=csv`` downloads the filtered list. For the event's staff."""
    event, access = _event_and_access(request, pk)
    policy.require(policy.can_judge(access), "not_staff", "event staff only")
    form = ReportFilter(request.GET or None)
    kind = form.cleaned_data["kind"] if form.is_bound and form.is_valid() else ""
    penalties = selectors.penalty_list(request.user, event, access).select_related("infraction_ref")
    if kind:
        penalties = penalties.filter(kind=kind)
    penalties = list(penalties)
    if request.GET.get("format") == "csv":
        table = exports.Table(
            kind="penalties",
            columns=_report_columns(),
            rows=[_report_row(penalty) for penalty in penalties],
        )
        response = HttpResponse(exports.to_csv(table), content_type="text/csv; charset=utf-8")
        filename = f"event-{event.pk}-penalties{'-' + kind if kind else ''}.csv"
        response["Content-Disposition"] = content_disposition_header(True, filename)
        response["Cache-Control"] = "private, no-cache"
        return response
    context = {
        "event": event,
        "access": access,
        "form": form,
        "kind": kind,
        "kind_label": PenaltyKind(kind).label if kind else "",
        "penalties": penalties,
        "counts": _counts(event),
        "kind_labels": PenaltyKind.labels,
    }
    return render(request, "tournaments/staff/penalty_report.html", context)


urlpatterns = [
    path("<int:pk>/staff/penalties/", penalty_report, name="penalty_report"),
]
