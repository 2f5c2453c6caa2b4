"""Why this opponent, read-only::

    events/{event_pk}/rounds/{number}/why/     a Swiss round's pairings explained

The same data as the page (``tournaments.views_why``): the pairer's objective for these
pairings and the best possible one, the score groups, the boundaries between them, each
table's float and reason, and the bye's reason. The same rule too: the event's staff
always, its players once the round is published, anyone else 403 (``not_participant``;
anonymous callers ``not_authenticated``); a round the caller may not see is a 404.
"""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.response import Response

from .. import policy, snapshots
from ..views_why import can_view_reasons, round_reasons
from .exports import OneObjectSchema
from .views import EVENT_PK, EventScopedMixin, errors


class ObjectiveSerializer(serializers.Serializer):
    rematches = serializers.IntegerField()
    second_byes = serializers.IntegerField()
    bye_groups_skipped = serializers.IntegerField()
    floats = serializers.IntegerField()
    score_gap_sum = serializers.IntegerField()


class ScoreGroupSerializer(serializers.Serializer):
    level = serializers.IntegerField(help_text="0 is the top group.")
    points = serializers.IntegerField()
    size = serializers.IntegerField()
    without_bye = serializers.IntegerField()


class BoundarySerializer(serializers.Serializer):
    level = serializers.IntegerField(help_text="Between group `level` and the next one.")
    upper_points = serializers.IntegerField()
    lower_points = serializers.IntegerField()
    gap = serializers.IntegerField()
    players_above = serializers.IntegerField(help_text="Paired players above (not the bye).")
    minimum = serializers.IntegerField(help_text="1 when an odd number above must cross.")
    crossings = serializers.IntegerField()
    extra = serializers.IntegerField(help_text="Crossings beyond the minimum.")


class WhyTableSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    player1 = serializers.IntegerField(help_text="Registration id.")
    player2 = serializers.IntegerField()
    player1_name = serializers.CharField()
    player2_name = serializers.CharField()
    points1 = serializers.IntegerField()
    points2 = serializers.IntegerField()
    groups_crossed = serializers.IntegerField()
    point_gap = serializers.IntegerField()
    rematch = serializers.BooleanField()
    paired_down = serializers.IntegerField(allow_null=True)
    paired_up = serializers.IntegerField(allow_null=True)
    reason = serializers.ChoiceField(
        choices=["same_group", "odd_group", "avoids_rematch", "not_optimal", "rematch"]
    )


class WhyByeSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    player_name = serializers.CharField()
    points = serializers.IntegerField()
    had_bye_before = serializers.BooleanField()
    groups_skipped = serializers.IntegerField()
    lowest_eligible_points = serializers.IntegerField()
    reason = serializers.ChoiceField(
        choices=["lowest_eligible", "everyone_had_bye", "avoids_rematch", "not_optimal"]
    )


class WhySerializer(serializers.Serializer):
    round = serializers.IntegerField()
    stage = serializers.CharField()
    explained = serializers.BooleanField(help_text="False for a top-cut round (seeded).")
    optimal = serializers.BooleanField(allow_null=True)
    score_gap_over_optimum = serializers.IntegerField(allow_null=True)
    objective = ObjectiveSerializer(allow_null=True)
    optimum = ObjectiveSerializer(allow_null=True)
    lower_bound = ObjectiveSerializer(allow_null=True)
    groups = ScoreGroupSerializer(many=True)
    boundaries = BoundarySerializer(many=True)
    tables = WhyTableSerializer(many=True)
    bye = WhyByeSerializer(allow_null=True)


def why_document(round_, reasons) -> dict:
    explanation = reasons.explanation
    if explanation is None:
        return {
            "round": round_.number,
            "stage": round_.stage,
            "explained": False,
            "optimal": None,
            "score_gap_over_optimum": None,
            "objective": None,
            "optimum": None,
            "lower_bound": None,
            "groups": [],
            "boundaries": [],
            "tables": [],
            "bye": None,
        }
    names = reasons.names
    data = explanation.as_dict()
    for table in data["tables"]:
        table["player1_name"] = names.get(table["player1"], "")
        table["player2_name"] = names.get(table["player2"], "")
    if data["bye"] is not None:
        data["bye"]["player_name"] = names.get(data["bye"]["player"], "")
    return {"round": round_.number, "stage": round_.stage, "explained": True, **data}


@extend_schema(tags=["rounds"])
class WhyViewSet(EventScopedMixin, viewsets.ViewSet):
    schema = OneObjectSchema()

    @extend_schema(
        operation_id="events_rounds_why",
        summary="Why this opponent: the round's pairings explained",
        description="The pairer's objective for the round's pairings against the best "
        "possible for the same players (rematches, second byes, score groups skipped by the "
        "bye, floats, score gaps), the score groups, the boundaries with how many pairs must "
        "and do cross them, each table's float and reason, and the bye's reason. The "
        "event's staff always; its players once the round is published (`not_participant` "
        "for anyone else).",
        parameters=[EVENT_PK],
        responses={200: WhySerializer, **errors(403, 404)},
    )
    def list(self, request, event_pk=None, number=None):
        event, access = self.event, self.access
        round_ = snapshots.round_of(event, int(number))
        if round_ is None or not policy.can_view_round(access, event, round_):
            raise Http404
        if not request.user.is_authenticated and not can_view_reasons(access, event, round_):
            policy.require(False, "not_authenticated", "sign in first")
        policy.require(
            can_view_reasons(access, event, round_),
            "not_participant",
            "the event's staff and players only",
        )
        return Response(WhySerializer(why_document(round_, round_reasons(event, round_))).data)


def register_routes(router, nested: str) -> None:
    router.register(
        nested + "/rounds/(?P<number>[0-9]+)/why", WhyViewSet, basename="event-round-why"
    )
