"""Serializers of the tournament API: read shapes for events, registrations, rounds,
pairings and standings; explicit input serializers for the command endpoints (the domain
function in ``tournaments.services`` validates the rest and answers with an error code);
the one error shape ``{"code", "message", "details"}``.

Decklists are never part of a read shape here: who may see them is
``policy.decklists_visible_to``'s decision, not this module's.
"""

from __future__ import annotations

from rest_framework import serializers

from ..models import Event, Match, PenaltyKind, Registration, Round
from ..selectors import display_name

# --- errors ----------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable error code, e.g. `stale_version`.")
    message = serializers.CharField(help_text="English text for logs; not for display.")
    details = serializers.DictField(
        help_text="Plain data about the error: field errors for `invalid_input`, the legality "
        "report for `deck_illegal`, the current state for state errors."
    )


# --- read shapes ---------------------------------------------------------------------


class EventSerializer(serializers.ModelSerializer):
    format = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    game = serializers.CharField(source="format.game.slug", read_only=True)
    organizer = serializers.CharField(source="organizer.username", read_only=True)
    registered_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Event
        fields = [
            "id",
            "name",
            "date",
            "game",
            "format",
            "organizer",
            "state",
            "capacity",
            "registered_count",
            "registration_deadline",
            "decklist_deadline",
            "swiss_rounds",
            "round_minutes",
            "top_cut_size",
            "tiebreak_profile",
        ]
        read_only_fields = fields


class RegistrationSerializer(serializers.ModelSerializer):
    player = serializers.CharField(source="player.username", read_only=True)
    name = serializers.SerializerMethodField()
    has_decklist = serializers.BooleanField(read_only=True)

    class Meta:
        model = Registration
        fields = [
            "id",
            "player",
            "name",
            "status",
            "has_decklist",
            "dropped_after_round",
            "late_entry_round",
        ]
        read_only_fields = fields

    def get_name(self, registration) -> str:
        return display_name(registration)


class RoundSerializer(serializers.ModelSerializer):
    match_count = serializers.IntegerField(read_only=True, default=None)
    open_match_count = serializers.IntegerField(read_only=True, default=None)

    class Meta:
        model = Round
        fields = [
            "number",
            "stage",
            "status",
            "match_count",
            "open_match_count",
            "published_at",
            "started_at",
            "closed_at",
        ]
        read_only_fields = fields


class SeatSerializer(serializers.Serializer):
    registration = serializers.IntegerField(source="pk")
    name = serializers.SerializerMethodField()

    def get_name(self, registration) -> str:
        return display_name(registration)


class MatchSerializer(serializers.ModelSerializer):
    round = serializers.IntegerField(source="round.number", read_only=True)
    player1 = SeatSerializer(read_only=True)
    player2 = SeatSerializer(read_only=True, allow_null=True, help_text="Null for a bye.")
    record = serializers.CharField(
        source="record_text", read_only=True, help_text="From player 1's side, e.g. `2-1-0`."
    )
    reported_by = serializers.IntegerField(
        source="reported_by_id", read_only=True, allow_null=True, help_text="Registration id."
    )

    class Meta:
        model = Match
        fields = [
            "id",
            "round",
            "table",
            "player1",
            "player2",
            "status",
            "outcome",
            "record",
            "games",
            "reported_by",
            "version",
        ]
        read_only_fields = fields


class StandingLineSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    registration = serializers.IntegerField(source="registration.pk")
    name = serializers.SerializerMethodField()
    match_points = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()
    byes = serializers.IntegerField()
    dropped = serializers.BooleanField()
    missed_rounds = serializers.IntegerField()
    tiebreakers = serializers.DictField(
        child=serializers.FloatField(), help_text="Figure name → value, in tiebreak order."
    )

    def get_name(self, line) -> str:
        return display_name(line.registration)


class StandingsSerializer(serializers.Serializer):
    profile = serializers.CharField()
    tiebreak_names = serializers.ListField(child=serializers.CharField())
    rounds = serializers.IntegerField(help_text="Closed Swiss rounds counted.")
    rows = StandingLineSerializer(many=True)


# --- command inputs ------------------------------------------------------------------


class RegisterInputSerializer(serializers.Serializer):
    deck_text = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False, help_text="Optional now."
    )
    join_waitlist = serializers.BooleanField(
        default=True, help_text="False: refuse with `capacity_full` instead of waitlisting."
    )


class DecklistInputSerializer(serializers.Serializer):
    deck_text = serializers.CharField(trim_whitespace=False)
    reason = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Needed once lists are locked."
    )


class ReasonInputSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class VersionInputSerializer(serializers.Serializer):
    expected_version = serializers.IntegerField(
        min_value=1, help_text="The match `version` you saw; a stale one is `stale_version`."
    )


class ReportInputSerializer(VersionInputSerializer):
    games = serializers.ListField(child=serializers.DictField(), allow_empty=False)


class DisputeInputSerializer(VersionInputSerializer):
    reason = serializers.CharField(allow_blank=True)
    games = serializers.ListField(
        child=serializers.DictField(), required=False, help_text="Your account of the games."
    )


class OverrideInputSerializer(VersionInputSerializer):
    reason = serializers.CharField(allow_blank=True)
    games = serializers.ListField(child=serializers.DictField(), required=False)
    record = serializers.CharField(
        required=False, help_text='Instead of games, e.g. "2-1" or "0-0-3".'
    )


class PenaltyInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=PenaltyKind.choices)
    infraction = serializers.CharField(allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")
    match = serializers.IntegerField(
        required=False, allow_null=True, help_text="Match id; needed for game and match losses."
    )


class PenaltySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    registration = serializers.IntegerField(source="registration_id")
    kind = serializers.CharField()
    infraction = serializers.CharField()
    note = serializers.CharField()
    round = serializers.IntegerField(source="round.number", default=None)
    match = serializers.IntegerField(source="match_id", allow_null=True)
    judge = serializers.CharField(source="judge.username")
