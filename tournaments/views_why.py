"""Why this opponent: a Swiss round's pairings explained by the pairer's own objective
(``tournaments.engine.explain``): the score groups, who floated across which boundary and
why, and the reason for the bye.

Nothing is stored for it: the pairer's input for round N is rebuilt from the database —
the pool is the players the round pairs, their points, opponents and byes come from the
closed Swiss rounds before N — and the optimum is the pairer's own answer for that pool.
The explanation is cached per event revision (an edit of a draft round moves it).

Who sees it: the event's staff always (drafts too); the event's players once the round is
published; anyone else is refused (403; anonymous callers are sent to log in). A round the
viewer may not see is a 404, as everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from . import pagecache, policy, selectors, snapshots
from .engine.errors import EngineError
from .engine.explain import (
    ByeReason,
    RoundExplanation,
    TableExplanation,
    TableReason,
    explain_round,
)
from .engine.swiss import PastMatch, SwissResult, swiss_players_from_history
from .models import Event, Match, MatchOutcome, Round, RoundStage, RoundStatus

_OUTCOME_TO_SWISS = {
    MatchOutcome.PLAYER1: SwissResult.PLAYER1,
    MatchOutcome.PLAYER2: SwissResult.PLAYER2,
    MatchOutcome.DRAW: SwissResult.DRAW,
}


def can_view_reasons(access: policy.EventAccess, event: Event, round_: Round) -> bool:
    """Staff always; the event's players once the round is published (the round must be
    visible to the viewer at all: :func:`policy.can_view_round`)."""
    if not policy.can_view_round(access, event, round_):
        return False
    if access.is_staff:
        return True
    return access.registration_id is not None and round_.status != RoundStatus.DRAFT


@dataclass(frozen=True)
class RoundReasons:
    """What the page and the API show: the engine's explanation (None for a top-cut
    round, whose pairs follow the seeds) and the players' names by registration id."""

    explanation: RoundExplanation | None
    names: dict[int, str] = field(default_factory=dict)
    error: str = ""  # an engine refusal: the stored round is not a pairing of its pool


def _build(event: Event, round_: Round) -> RoundReasons:
    """Two queries: the round's tables with names, the closed Swiss rounds before it."""
    if round_.stage != RoundStage.SWISS:
        return RoundReasons(None)
    rows = Match.objects.filter(round_id=round_.pk).values_list(
        "table",
        "player1_id",
        "player2_id",
        "player1__player__username",
        "player1__player__first_name",
        "player1__player__last_name",
        "player2__player__username",
        "player2__player__first_name",
        "player2__player__last_name",
    )
    tables = []
    names: dict[int, str] = {}
    for table, player1, player2, *columns in rows:
        tables.append((table, player1, player2))
        names[player1] = selectors.name_of(*columns[:3])
        if player2 is not None:
            names[player2] = selectors.name_of(*columns[3:])
    history = [
        PastMatch(
            number,
            player1,
            player2,
            SwissResult.BYE if player2 is None else _OUTCOME_TO_SWISS[outcome],
        )
        for number, player1, player2, outcome in Match.objects.filter(
            round__event=event,
            round__stage=RoundStage.SWISS,
            round__status=RoundStatus.CLOSED,
            round__number__lt=round_.number,
        ).values_list("round__number", "player1_id", "player2_id", "outcome")
    ]
    pool = sorted(names)
    players = swiss_players_from_history(pool, history)
    try:
        explanation = explain_round(players, tables)
    except EngineError as exc:
        return RoundReasons(None, names, error=exc.message)
    return RoundReasons(explanation, names)


def round_reasons(event: Event, round_: Round) -> RoundReasons:
    """The round's explanation, cached per event revision (two queries on a miss)."""
    key = pagecache.key("why", event.pk, snapshots.revision_of(event).number, round_.number)
    return pagecache.get_or_build(key, lambda: _build(event, round_))


# --- texts -------------------------------------------------------------------------------


def _points(value: int) -> str:
    return ngettext("%(points)s pt", "%(points)s pts", value) % {"points": value}


def table_text(t: TableExplanation, names: dict[int, str], rematches: int) -> dict:
    """One table as the page shows it: the pair, the float (if any) and the reason."""
    name1, name2 = names.get(t.player1, "?"), names.get(t.player2, "?")
    float_text = ""
    if t.groups_crossed:
        down, up = (name1, name2) if t.points1 > t.points2 else (name2, name1)
        float_text = ngettext(
            "%(down)s is paired down %(gap)s points to %(up)s, across %(groups)s score "
            "group boundary.",
            "%(down)s is paired down %(gap)s points to %(up)s, across %(groups)s score "
            "group boundaries.",
            t.groups_crossed,
        ) % {"down": down, "up": up, "gap": t.point_gap, "groups": t.groups_crossed}
    if t.reason is TableReason.SAME_GROUP:
        reason = _("Both are in the %(points)s group.") % {"points": _points(t.points1)}
    elif t.reason is TableReason.ODD_GROUP:
        reason = _(
            "An odd number of players had to be paired above this boundary, so one pair "
            "had to cross it."
        )
    elif t.reason is TableReason.AVOIDS_REMATCH:
        reason = _(
            "Pairing inside the score groups would have repeated a match: this float avoids "
            "a rematch."
        )
    elif t.reason is TableReason.REMATCH:
        reason = ngettext(
            "They have played each other before. Every pairing of this round has at least "
            "%(count)s rematch.",
            "They have played each other before. Every pairing of this round has at least "
            "%(count)s rematches.",
            rematches,
        ) % {"count": rematches}
    else:
        reason = _("The engine's pairing does not need this: the pairings were changed by hand.")
    return {
        "table": t.table,
        "player1": name1,
        "player2": name2,
        "points1": _points(t.points1),
        "points2": _points(t.points2),
        "float": float_text,
        "reason": reason,
        "kind": t.reason.value,
        "ids": (t.player1, t.player2),
    }


def bye_text(explanation: RoundExplanation, names: dict[int, str]) -> str:
    bye = explanation.bye
    if bye is None:
        return ""
    values = {
        "name": names.get(bye.player, "?"),
        "points": _points(bye.points),
        "lowest": _points(bye.lowest_eligible_points),
    }
    if bye.reason is ByeReason.LOWEST_ELIGIBLE:
        return (
            _(
                "%(name)s (%(points)s) has the bye: the lowest score group with a player who "
                "has not had a bye yet."
            )
            % values
        )
    if bye.reason is ByeReason.EVERYONE_HAD_BYE:
        return (
            _(
                "%(name)s (%(points)s) has the bye: everyone has had one already, so it goes "
                "to the lowest score group."
            )
            % values
        )
    if bye.reason is ByeReason.AVOIDS_REMATCH:
        return (
            _(
                "%(name)s (%(points)s) has the bye: a bye in the %(lowest)s group would have "
                "forced a rematch."
            )
            % values
        )
    return (
        _(
            "%(name)s (%(points)s) has the bye, though it should go to the %(lowest)s group: "
            "the pairings were changed by hand."
        )
        % values
    )


def summary_text(explanation: RoundExplanation) -> str:
    o, best = explanation.objective, explanation.optimum
    values = {
        "rematches": o.rematches,
        "floats": o.floats,
        "gaps": o.score_gap_sum,
        "best": best.score_gap_sum,
        "over": explanation.score_gap_over_optimum,
    }
    if explanation.optimal:
        return (
            _(
                "These pairings are the best possible for these players: %(rematches)s "
                "rematches, %(floats)s floats, %(gaps)s points of score gap in all."
            )
            % values
        )
    return (
        _(
            "These pairings were changed by hand: %(rematches)s rematches, %(floats)s "
            "floats, %(gaps)s points of score gap in all (the best possible: %(best)s)."
        )
        % values
    )


def page_context(reasons: RoundReasons, access: policy.EventAccess) -> dict:
    explanation = reasons.explanation
    if explanation is None:
        return {"explanation": None, "error": reasons.error}
    names = reasons.names
    rematches = explanation.optimum.rematches
    tables = [table_text(t, names, rematches) for t in explanation.tables]
    mine = None
    me = access.registration_id
    if me is not None:
        mine = next((row for row in tables if me in row["ids"]), None)
    crossing = {b.level: b for b in explanation.boundaries}
    groups = []
    for group in explanation.groups:
        below = crossing.get(group.level)
        groups.append(
            {
                "points": _points(group.points),
                "size": group.size,
                "without_bye": group.without_bye,
                "crossings": below.crossings if below else None,
                "minimum": below.minimum if below else None,
            }
        )
    return {
        "explanation": explanation,
        "summary": summary_text(explanation),
        "bye": bye_text(explanation, names),
        "my_bye": explanation.bye is not None and explanation.bye.player == me,
        "mine": mine,
        "groups": groups,
        "floats": [row for row in tables if row["kind"] != TableReason.SAME_GROUP],
        "same_group_count": sum(row["kind"] == TableReason.SAME_GROUP for row in tables),
        "objective_rows": [
            (_("Rematches"), explanation.objective.rematches, explanation.optimum.rematches),
            (_("Second byes"), explanation.objective.second_byes, explanation.optimum.second_byes),
            (
                _("Score groups skipped by the bye"),
                explanation.objective.bye_groups_skipped,
                explanation.optimum.bye_groups_skipped,
            ),
            (_("Floats"), explanation.objective.floats, explanation.optimum.floats),
            (
                _("Score gap (points)"),
                explanation.objective.score_gap_sum,
                explanation.optimum.score_gap_sum,
            ),
        ],
    }


# --- the page ----------------------------------------------------------------------------


def reasons_for_viewer(request, event: Event, access: policy.EventAccess, number: int):
    """The round if the viewer may read its reasons: 404 when the round is hidden from
    them, a login redirect for an anonymous caller, 403 for anyone else refused."""
    round_ = snapshots.round_of(event, number)
    if round_ is None or not policy.can_view_round(access, event, round_):
        raise Http404
    if not can_view_reasons(access, event, round_):
        if not request.user.is_authenticated:
            return round_, redirect_to_login(request.get_full_path())
        policy.require(False, "not_participant", "the event's staff and players only")
    return round_, None


@require_safe
def why_pairings(request, pk: int, number: int):
    """Round ``number``'s pairings explained: the summary against the best possible
    pairing, the viewer's own table, the score groups, the bye and every table paired
    across score groups. Three queries on a cold cache (event, round's tables, history);
    one when cached."""
    event, access = selectors.viewed_event(request.user, pk)
    round_, refusal = reasons_for_viewer(request, event, access, number)
    if refusal is not None:
        return refusal
    reasons = round_reasons(event, round_)
    context = page_context(reasons, access)
    context.update({"event": event, "round": round_, "access": access})
    return render(request, "tournaments/why_pairings.html", context)
