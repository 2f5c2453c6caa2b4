"""Serializers of the tournament API: read shapes for events, registrations, rounds,
pairings and standings; explicit input serializers for the command endpoints (the domain
function in ``tournaments.services`` validates the rest and answers with an error code);
the one error shape ``{"code", "message", "details"}``.

Decklists are in no read shape but :class:`DecklistSerializer`, which only ever gets
registrations from ``selectors.decklist_list``: who may see a list is
``policy.decklists_visible_to``'s decision, not this module's.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from decks.models import Format

from ..forms_event import NoBidiControls
from ..models import (
    TOP_CUT_SIZES,
    AuditEntry,
    DeckCheck,
    Event,
    EventStaff,
    Infraction,
    LateEntryPolicy,
    Match,
    MatchOutcome,
    Penalty,
    PenaltyKind,
    Registration,
    ResultReport,
    Round,
    StaffRole,
    TiebreakProfile,
    TimeoutPolicy,
)
from ..selectors import display_name
from .limits import (
    DECKLIST_CHARS,
    NOTE_CHARS,
    REASON_CHARS,
    EventTimeField,
    ModelCharField,
    ModelIntegerField,
    id_field,
)

User = get_user_model()
INFRACTION_CODE_CHARS = Infraction._meta.get_field("code").max_length


def _reason(**kwargs) -> ModelCharField:
    return ModelCharField(AuditEntry, "reason", max_length=REASON_CHARS, **kwargs)


def _deck_text(**kwargs) -> ModelCharField:
    """A decklist as pasted (its spacing kept: the parser reads it line by line)."""
    return ModelCharField(
        Registration, "deck_text", max_length=DECKLIST_CHARS, trim_whitespace=False, **kwargs
    )


# --- errors ----------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable error code, e.g. `stale_version`.")
    message = serializers.CharField(help_text="English text for logs; not for display.")
    details = serializers.DictField(
        help_text="Plain data about the error: field errors for `invalid_input`, the legality "
        "report for `deck_illegal`, the current state for state errors."
    )


# --- read shapes ---------------------------------------------------------------------


@extend_schema_field(
    {"type": "string", "enum": TimeoutPolicy.values, "description": "What a time-out means."},
    component_name="TimeoutPolicy",
)
class TimeoutPolicyField(serializers.ChoiceField):
    """Two settings share these choices: one schema component names them once."""

    def __init__(self, **kwargs) -> None:
        super().__init__(choices=TimeoutPolicy.choices, **kwargs)


class EventSerializer(serializers.ModelSerializer):
    format = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    swiss_timeout_policy = TimeoutPolicyField(read_only=True)
    top_cut_timeout_policy = TimeoutPolicyField(read_only=True)
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
            "swiss_timeout_policy",
            "top_cut_timeout_policy",
            "decklists_public_from",
            "allow_reentry",
            "late_entry_policy",
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
    outcome = serializers.ChoiceField(
        choices=MatchOutcome.choices,
        allow_blank=True,
        read_only=True,
        help_text="Empty until the result is in.",
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
    placing = serializers.IntegerField(
        help_text="Final place: the Swiss rank until a top-cut round is closed, then the "
        "bracket's order first (1 = the champion). Equal only for players outside the cut "
        "tied on every figure."
    )
    top_cut_result = serializers.CharField(
        allow_null=True,
        help_text="How far the player went in the top cut: `champion`, `finalist`, "
        "`semifinal`, `quarterfinal`, `round_of_16`, `round_of_32`, …; null outside the cut.",
    )
    rank = serializers.IntegerField(help_text="Swiss rank.")
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


class TopCutSerializer(serializers.Serializer):
    size = serializers.IntegerField(help_text="Players in the cut.")
    rounds = serializers.IntegerField(help_text="Rounds the cut plays (top 8: 3).")
    closed_rounds = serializers.IntegerField(help_text="Of which closed.")
    complete = serializers.BooleanField(help_text="The final is closed.")
    champion = serializers.CharField(
        allow_null=True, help_text="The winner's name once the final is closed."
    )


class StandingsSerializer(serializers.Serializer):
    """The answer's shape (the answer itself is built from the cached standings)."""

    count = serializers.IntegerField(help_text="Rows in all pages.")
    next = serializers.URLField(allow_null=True, help_text="The next page, if any.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page, if any.")
    profile = serializers.CharField()
    tiebreak_names = serializers.ListField(child=serializers.CharField())
    rounds = serializers.IntegerField(help_text="Closed Swiss rounds counted.")
    top_cut = TopCutSerializer(
        allow_null=True, help_text="What the closed top-cut rounds decided; null before."
    )
    rows = StandingLineSerializer(many=True, help_text="This page's rows, by placing.")


# --- command inputs ------------------------------------------------------------------


class RegisterInputSerializer(serializers.Serializer):
    deck_text = _deck_text(required=False, allow_blank=True, help_text="Optional now.")
    join_waitlist = serializers.BooleanField(
        default=True, help_text="False: refuse with `capacity_full` instead of waitlisting."
    )


class DecklistInputSerializer(serializers.Serializer):
    deck_text = _deck_text()
    reason = _reason(
        required=False, allow_blank=True, default="", help_text="Needed once lists are locked."
    )


class ReasonInputSerializer(serializers.Serializer):
    reason = _reason(required=False, allow_blank=True, default="")


class VersionInputSerializer(serializers.Serializer):
    expected_version = ModelIntegerField(
        Match,
        "version",
        min_value=1,
        help_text="The match `version` you saw; a stale one is `stale_version`.",
    )


class ReportInputSerializer(VersionInputSerializer):
    """Either ``games`` or ``record`` (one tap: the result from the reporter's side)."""

    games = serializers.ListField(
        child=serializers.DictField(),
        allow_empty=False,
        required=False,
        help_text="Each game as it ended (`end`, `hp`, `deck`, `conceded`, `penalized`; "
        "pairs are player 1, player 2); the engine decides the record. Or give `record`.",
    )
    record = ModelCharField(
        ResultReport,
        "record",
        required=False,
        help_text="Instead of games: the result from **your own** side, wins-losses[-draws], "
        'e.g. `"2-1"` (you won two games to one), `"1-2"`, `"1-1-1"`, `"0-0-3"`. Stored '
        "from player 1's side; games a game-loss penalty decided must be included "
        "(`record_below_fixed_games`); a top cut refuses a draw (`winner_required`).",
    )


class DisputeInputSerializer(VersionInputSerializer):
    reason = ModelCharField(ResultReport, "reason", max_length=REASON_CHARS, allow_blank=True)
    games = serializers.ListField(
        child=serializers.DictField(), required=False, help_text="Your account of the games."
    )
    record = ModelCharField(
        ResultReport,
        "record",
        required=False,
        help_text='Instead of games: the result as you see it, from your own side (`"2-1"`).',
    )


class OverrideInputSerializer(VersionInputSerializer):
    reason = _reason(allow_blank=True)
    games = serializers.ListField(child=serializers.DictField(), required=False)
    record = ModelCharField(
        ResultReport, "record", required=False, help_text='Instead of games, e.g. "2-1" or "0-0-3".'
    )


class PenaltyInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=PenaltyKind.choices,
        required=False,
        allow_blank=True,
        default="",
        help_text="The penalty. With `infraction_code` it may be left out: the suggested "
        "penalty (the default, upgraded for a repeat) is issued; another one needs a `note`.",
    )
    infraction_code = serializers.SlugField(
        max_length=INFRACTION_CODE_CHARS,
        required=False,
        allow_blank=True,
        default="",
        help_text="Code of an active infraction of the event's game's list (e.g. `slow_play`).",
    )
    infraction = ModelCharField(
        Penalty,
        "infraction",
        required=False,
        allow_blank=True,
        default="",
        help_text="Free text, for an infraction not in the list (then `kind` is required).",
    )
    note = ModelCharField(
        Penalty, "note", max_length=NOTE_CHARS, required=False, allow_blank=True, default=""
    )
    match = id_field(
        required=False, allow_null=True, help_text="Match id; needed for game and match losses."
    )


class PenaltySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    registration = serializers.IntegerField(source="registration_id")
    player = serializers.CharField(source="registration.player.username")
    kind = serializers.CharField()
    infraction = serializers.CharField(
        source="infraction_name", help_text="In the reader's language when from the list."
    )
    infraction_code = serializers.CharField(
        source="infraction_ref.code",
        default=None,
        allow_null=True,
        help_text="Null for a written infraction.",
    )
    suggested_kind = serializers.CharField(help_text="Empty for a written infraction.")
    note = serializers.CharField()
    round = serializers.IntegerField(
        source="round.number", default=None, allow_null=True, help_text="Null outside a round."
    )
    match = serializers.IntegerField(source="match_id", allow_null=True)
    judge = serializers.CharField(source="judge.username")
    created_at = serializers.DateTimeField()


# --- events: settings, life cycle, staff -----------------------------------------------


class StrictInputSerializer(serializers.Serializer):
    """Refuses fields it does not know, each named in the error: a misspelt setting is
    an error, not silently nothing."""

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: [_("Unknown field.")] for name in unknown})
        return attrs


def _choices(enum) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=enum.choices, required=False)


class EventSettingsFields(StrictInputSerializer):
    """The event's settings. A value out of range is `invalid_setting` (the field in
    `details.field`); a setting that may no longer change in the event's state is
    `setting_locked`; an unknown field is `invalid_input`."""

    # Every setting of services.events.SETTINGS, all optional here. Types only: the
    # service checks the values and the states in which each may still change.

    name = ModelCharField(
        Event,
        "name",
        required=False,
        validators=[NoBidiControls("name")],
        help_text="1 to 200 characters; no direction-changing characters (U+202A–U+202E, "
        "U+2066–U+2069).",
    )
    format = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Format.objects.all(),
        required=False,
        help_text="The format's slug, e.g. `crossover`. Draft events only.",
    )
    date = serializers.DateField(
        required=False, help_text="Decklists are checked as of this date. Draft events only."
    )
    capacity = ModelIntegerField(Event, "capacity", required=False, help_text="At least 2.")
    registration_deadline = EventTimeField(
        required=False, allow_null=True, help_text="From 2000 to 8999."
    )
    decklist_deadline = EventTimeField(
        required=False,
        allow_null=True,
        help_text="Decklists lock at this time (from 2000 to 8999).",
    )
    swiss_rounds = ModelIntegerField(
        Event,
        "swiss_rounds",
        required=False,
        allow_null=True,
        help_text="Null: suggested from the number of players when the event starts.",
    )
    round_minutes = ModelIntegerField(
        Event, "round_minutes", required=False, help_text="At least 1."
    )
    tiebreak_profile = _choices(TiebreakProfile)
    top_cut_size = serializers.ChoiceField(
        choices=[(size, str(size)) for size in TOP_CUT_SIZES],
        required=False,
        help_text="0 for no top cut; at most the capacity.",
    )
    swiss_timeout_policy = TimeoutPolicyField(required=False)
    top_cut_timeout_policy = TimeoutPolicyField(required=False)
    decklists_public_from = EventTimeField(
        required=False,
        allow_null=True,
        help_text="Null: decklists stay private (from 2000 to 8999).",
    )
    allow_reentry = serializers.BooleanField(required=False)
    late_entry_policy = _choices(LateEntryPolicy)


class EventCreateInputSerializer(EventSettingsFields):
    name = ModelCharField(
        Event,
        "name",
        validators=[NoBidiControls("name")],
        help_text="1 to 200 characters; no direction-changing characters (U+202A–U+202E, "
        "U+2066–U+2069).",
    )
    format = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Format.objects.all(),
        help_text="The format's slug, e.g. `crossover`.",
    )
    date = serializers.DateField(help_text="Decklists are checked as of this date.")
    capacity = ModelIntegerField(Event, "capacity", help_text="At least 2.")


class EventUpdateInputSerializer(EventSettingsFields):
    reason = _reason(
        required=False, allow_blank=True, default="", help_text="Kept in the audit log."
    )


class StaffSerializer(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username", read_only=True)
    name = serializers.SerializerMethodField()

    class Meta:
        model = EventStaff
        fields = ["id", "user", "name", "role", "created_at"]
        read_only_fields = fields

    def get_name(self, staff) -> str:
        return staff.user.get_full_name() or staff.user.get_username()


class StaffInputSerializer(serializers.Serializer):
    username = ModelCharField(
        User, "username", help_text="The user to add; `user_not_found` if none."
    )
    role = serializers.ChoiceField(choices=StaffRole.choices)


# --- registrations -------------------------------------------------------------------


class LateEntryInputSerializer(serializers.Serializer):
    username = ModelCharField(
        User, "username", help_text="The player to add; `user_not_found` if none."
    )
    deck_text = _deck_text(
        required=False,
        allow_blank=True,
        help_text="Needed unless the player submitted a legal list earlier (e.g. waitlisted).",
    )
    reason = _reason(required=False, allow_blank=True, default="")


class ReportItemSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.SerializerMethodField(help_text="In the request's language.")

    def get_message(self, item) -> str:
        language = get_language() or "en"
        key = "message_ja" if language.lower().startswith("ja") else "message_en"
        return item.get(key) or item.get("message_en") or ""


class LegalitySummarySerializer(serializers.Serializer):
    """The stored legality report of a decklist, without its per-card entries."""

    legal = serializers.BooleanField()
    format = serializers.CharField()
    format_version = serializers.IntegerField()
    as_of = serializers.DateField()
    main_count = serializers.IntegerField()
    sideboard_count = serializers.IntegerField()
    by_type = serializers.DictField(child=serializers.IntegerField())
    by_element = serializers.DictField(child=serializers.IntegerField())
    violations = ReportItemSerializer(many=True)
    notices = ReportItemSerializer(many=True)


class DecklistSerializer(serializers.ModelSerializer):
    """A submitted decklist as the player sent it, with its legality report."""

    # Only ever given registrations from selectors.decklist_list (the policy's choice).

    registration = serializers.IntegerField(source="pk", read_only=True)
    player = serializers.CharField(source="player.username", read_only=True)
    name = serializers.SerializerMethodField()
    submitted_at = serializers.DateTimeField(source="deck_submitted_at", read_only=True)
    report = serializers.SerializerMethodField()

    class Meta:
        model = Registration
        fields = [
            "registration",
            "player",
            "name",
            "deck_text",
            "submitted_at",
            "locked",
            "report",
        ]
        read_only_fields = fields

    def get_name(self, registration) -> str:
        return display_name(registration)

    @extend_schema_field(LegalitySummarySerializer(allow_null=True))
    def get_report(self, registration):
        if not registration.deck_report:
            return None
        return LegalitySummarySerializer(registration.deck_report).data


# --- rounds --------------------------------------------------------------------------


class EditPairingInputSerializer(serializers.Serializer):
    tables = serializers.DictField(
        child=serializers.ListField(
            child=id_field(allow_null=True),
            min_length=2,
            max_length=2,
            allow_null=True,
        ),
        allow_empty=False,
        help_text="Table number → `[player 1, player 2]` (registration ids; player 2 null "
        "for a bye), or null to remove the table. Tables not named keep their players.",
    )
    reason = _reason(allow_blank=True)
    allow_rematch = serializers.BooleanField(
        default=False, help_text="Allow pairs that met in a closed Swiss round."
    )

    def validate_tables(self, tables):
        numbers = {}
        for key, players in tables.items():
            try:
                number = int(key)
            except ValueError:
                raise serializers.ValidationError(
                    _("Table numbers are whole numbers: %(key)s") % {"key": key}
                ) from None
            numbers[number] = None if players is None else tuple(players)
        return numbers


# --- audit log -----------------------------------------------------------------------


class AuditEntrySerializer(serializers.ModelSerializer):
    actor = serializers.CharField(
        source="actor.username", read_only=True, allow_null=True, default=None
    )
    before = serializers.JSONField(read_only=True)
    after = serializers.JSONField(read_only=True)

    class Meta:
        model = AuditEntry
        fields = [
            "id",
            "created_at",
            "actor",
            "action",
            "object_type",
            "object_id",
            "object_version",
            "reason",
            "before",
            "after",
        ]
        read_only_fields = fields


# --- deck checks (rule 1−2−4) -------------------------------------------------------------


class CountedCardSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, help_text="The card's name, in any spelling.")
    printing = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        allow_null=True,
        default=None,
        help_text="A set code or name (`base`, `βedition`); empty: any printing.",
    )
    main = serializers.IntegerField(min_value=0, max_value=999, default=0)
    side = serializers.IntegerField(min_value=0, max_value=999, default=0)


class DeckCheckInputSerializer(StrictInputSerializer):
    registration = id_field(help_text="The id of the player's registration.")
    round = ModelIntegerField(
        Round,
        "number",
        required=False,
        allow_null=True,
        help_text="The number of the round being played.",
    )
    counted_text = ModelCharField(
        DeckCheck,
        "counted_text",
        max_length=DECKLIST_CHARS,
        required=False,
        allow_blank=True,
        default="",
        help_text="The cards on the table as a decklist (the sideboard under a heading).",
    )
    cards = CountedCardSerializer(
        many=True,
        required=False,
        default=list,
        help_text="Or the copies counted per card, in the deck (`main`) and sideboard "
        "(`side`); both may be given.",
    )
    note = ModelCharField(
        DeckCheck, "note", max_length=NOTE_CHARS, required=False, allow_blank=True, default=""
    )


class DeckCheckSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    registration = serializers.IntegerField(source="registration_id")
    player = serializers.CharField(source="registration.player.username")
    round = serializers.IntegerField(
        source="round.number", default=None, allow_null=True, help_text="Null outside a round."
    )
    judge = serializers.CharField(source="judge.username")
    method = serializers.CharField(help_text="`count` (per card) or `paste`.")
    ok = serializers.BooleanField(
        help_text="True when the cards are the registered list after legal swaps (1−2−4)."
    )
    result = serializers.SerializerMethodField(
        help_text="Deck and sideboard sizes counted and registered, the swaps made and every "
        "discrepancy (`code`, `rule`, `name`, `count`, `printing`, `found_printing`, "
        "`message_en`, `message_ja`, `message` in the request's language)."
    )
    counted = serializers.JSONField(
        help_text='{"main": [[name, set code or null, copies], …], "side": […]}'
    )
    counted_text = serializers.CharField()
    note = serializers.CharField()
    penalties = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    @extend_schema_field(serializers.DictField())
    def get_result(self, check) -> dict:
        language = (get_language() or "en").lower()
        key = "message_ja" if language.startswith("ja") else "message_en"
        result = dict(check.result)
        result["discrepancies"] = [
            {**item, "message": item.get(key, "")} for item in result.get("discrepancies", [])
        ]
        return result

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_penalties(self, check) -> list[int]:
        return [penalty.pk for penalty in check.penalties.all()]


class DeckCheckPenaltyInputSerializer(StrictInputSerializer):
    # The schema names the penalty kinds' enum once (ENUM_NAME_OVERRIDES in settings).
    kind = serializers.ChoiceField(
        choices=PenaltyKind.choices,
        required=False,
        allow_blank=True,
        default="",
        help_text="Left out: the penalty the list suggests for the infraction.",
    )
    infraction_code = serializers.SlugField(
        max_length=INFRACTION_CODE_CHARS,
        required=False,
        allow_blank=True,
        default="deck_mismatch",
        help_text="Default `deck_mismatch` (the deck differs from its list).",
    )
    note = ModelCharField(
        Penalty,
        "note",
        max_length=NOTE_CHARS,
        required=False,
        allow_blank=True,
        default=None,
        allow_null=True,
        help_text="Left out: the deck check's discrepancies, in the request's language.",
    )
    match = id_field(
        required=False, allow_null=True, help_text="Match id; needed for game and match losses."
    )


class DeckCheckPenaltySerializer(PenaltySerializer):
    deck_check = serializers.IntegerField(source="deck_check_id", allow_null=True)
