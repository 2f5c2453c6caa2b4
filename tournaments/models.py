"""Events, registrations, rounds, matches, results, penalties and the audit log.

Models stay slim: every change goes through one function in ``tournaments.services``
(which checks the state, saves with ``update_fields`` and writes the :class:`AuditEntry`
in the same transaction); reads that lists use live in ``tournaments.selectors``; who may
do what is decided in ``tournaments.policy``. The database enforces the invariants that
concurrent writers could otherwise break (checklist B4): one registration per player and
event, one round per number, one match per table, one match per registration and round
(:class:`MatchParticipant`), no self-pairing, result bounds, one result change per match
version.
"""

from __future__ import annotations

import datetime as dt
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import F, Q
from django.db.models.lookups import LessThanOrEqual
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from config.jobs import TrackedJob

# The values of these choices are the engine's enum values (tournaments.engine.*), so a
# stored value converts with ``TimeoutPolicy(event.swiss_timeout_policy)`` and back.


class EventState(models.TextChoices):
    DRAFT = "draft", _("Draft")
    REGISTRATION_OPEN = "registration_open", _("Registration open")
    RUNNING = "running", _("Swiss rounds")
    TOP_CUT = "top_cut", _("Top cut")
    FINISHED = "finished", _("Finished")


class TiebreakProfile(models.TextChoices):
    MTR = "mtr", _("Magic Tournament Rules (OMW%, GW%, OGW%)")
    POKEMON = "pokemon", _("Play! Pokémon (OWP, OOWP)")


class TimeoutPolicy(models.TextChoices):
    DRAW = "draw", _("Draw")
    MORE_HP_WINS = "more_hp_wins", _("More HP wins")


class LateEntryPolicy(models.TextChoices):
    LOSSES = "losses", _("A loss for every missed round")
    NOTHING = "nothing", _("Nothing for missed rounds")


class StaffRole(models.TextChoices):
    CO_ORGANIZER = "co_organizer", _("Co-organizer")
    JUDGE = "judge", _("Judge")


class RegistrationStatus(models.TextChoices):
    REGISTERED = "registered", _("Registered")
    WAITLISTED = "waitlisted", _("Waitlisted")
    DROPPED = "dropped", _("Dropped")
    DISQUALIFIED = "disqualified", _("Disqualified")


class RoundStage(models.TextChoices):
    SWISS = "swiss", _("Swiss")
    TOP_CUT = "top_cut", _("Top cut")


class RoundStatus(models.TextChoices):
    DRAFT = "draft", pgettext_lazy("round", "Not published")
    PUBLISHED = "published", pgettext_lazy("round", "Published")
    RUNNING = "running", pgettext_lazy("round", "Clock running")
    CLOSED = "closed", pgettext_lazy("round", "Closed")


class MatchStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for a result")
    REPORTED = "reported", _("Reported, waiting for the opponent")
    CONFIRMED = "confirmed", _("Confirmed by both players")
    DISPUTED = "disputed", _("Disputed")
    FINAL = "final", _("Final")


# A round can close when every match is in one of these.
SETTLED_MATCH_STATUSES = (MatchStatus.CONFIRMED, MatchStatus.FINAL)


class MatchOutcome(models.TextChoices):
    PLAYER1 = "player1", _("Player 1 won")
    PLAYER2 = "player2", _("Player 2 won")
    DRAW = "draw", _("Draw")


class ReportKind(models.TextChoices):
    REPORT = "report", _("Reported")
    CONFIRM = "confirm", _("Confirmed")
    DISPUTE = "dispute", _("Disputed")
    OVERRIDE = "override", _("Entered by staff")
    PENALTY = "penalty", _("Penalty applied")


class PenaltyKind(models.TextChoices):
    WARNING = "warning", _("Warning")
    GAME_LOSS = "game_loss", _("Game loss")
    MATCH_LOSS = "match_loss", _("Match loss")
    DISQUALIFICATION = "disqualification", _("Disqualification")


TOP_CUT_SIZES = (0, 2, 4, 8, 16, 32, 64, 128, 256)


class Event(models.Model):
    organizer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="organized_events",
        verbose_name=_("organizer"),
    )
    format = models.ForeignKey(
        "decks.Format", on_delete=models.PROTECT, related_name="events", verbose_name=_("format")
    )
    name = models.CharField(_("name"), max_length=200)
    date = models.DateField(_("date"), help_text=_("Decklists are checked as of this date."))
    capacity = models.PositiveIntegerField(_("capacity"))
    registration_deadline = models.DateTimeField(_("registration deadline"), null=True, blank=True)
    decklist_deadline = models.DateTimeField(
        _("decklist deadline"),
        null=True,
        blank=True,
        help_text=_("Decklists lock at this time; afterwards only a judge can change one."),
    )
    swiss_rounds = models.PositiveSmallIntegerField(
        _("Swiss rounds"),
        null=True,
        blank=True,
        help_text=_("Empty: suggested from the number of players when the event starts."),
    )
    round_minutes = models.PositiveSmallIntegerField(_("round length (minutes)"), default=50)
    tiebreak_profile = models.CharField(
        _("tiebreakers"),
        max_length=10,
        choices=TiebreakProfile.choices,
        default=TiebreakProfile.MTR,
    )
    top_cut_size = models.PositiveSmallIntegerField(
        _("top cut"), default=0, help_text=_("0 for no top cut; otherwise 2, 4, 8, …")
    )
    swiss_timeout_policy = models.CharField(
        _("time-out in Swiss rounds"),
        max_length=20,
        choices=TimeoutPolicy.choices,
        default=TimeoutPolicy.DRAW,
    )
    top_cut_timeout_policy = models.CharField(
        _("time-out in the top cut"),
        max_length=20,
        choices=TimeoutPolicy.choices,
        default=TimeoutPolicy.MORE_HP_WINS,
    )
    decklists_public_from = models.DateTimeField(
        _("decklists public from"),
        null=True,
        blank=True,
        help_text=_("Empty: decklists stay private."),
    )
    allow_reentry = models.BooleanField(_("dropped players may re-enter"), default=False)
    late_entry_policy = models.CharField(
        _("missed rounds of late entries"),
        max_length=10,
        choices=LateEntryPolicy.choices,
        default=LateEntryPolicy.LOSSES,
    )
    state = models.CharField(
        _("state"), max_length=20, choices=EventState.choices, default=EventState.DRAFT
    )
    # Seeds the engine's random order (pairings, last tiebreak): same seed, same pairings.
    pairing_seed = models.CharField(max_length=32, editable=False)
    # Names the event in its event file (docs/event-file.md): importing the file again on
    # another site finds the event it created the first time instead of making a second.
    uid = models.UUIDField(
        _("event file identifier"), default=uuid.uuid4, unique=True, editable=False
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name = _("event")
        verbose_name_plural = _("events")
        constraints = [
            models.CheckConstraint(condition=Q(capacity__gte=2), name="event_capacity_min"),
            models.CheckConstraint(
                condition=Q(top_cut_size__in=TOP_CUT_SIZES), name="event_top_cut_power_of_two"
            ),
            models.CheckConstraint(condition=Q(round_minutes__gte=1), name="event_round_minutes"),
            models.CheckConstraint(
                condition=Q(swiss_rounds__isnull=True) | Q(swiss_rounds__gte=1),
                name="event_swiss_rounds_min",
            ),
            models.CheckConstraint(
                condition=Q(state__in=EventState.values), name="event_state_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class EventRevision(models.Model):
    """How many times the event changed: the version its cached pages are stored under.

    ``number`` goes up with every audited change (``services.audit.record``, in the
    change's own transaction); ``standings`` only with the changes that can alter the
    Swiss standings (not a result reported in a round still open, for one). A row of its
    own rather than a column of ``Event``: every confirmed result bumps it, and the event
    row is what closing a round locks first (a column there would make each confirmation
    wait for, or deadlock with, a round being closed). The bump is the last write of a
    change, so the row is held only while the change commits.
    """

    event = models.OneToOneField(
        Event, on_delete=models.CASCADE, primary_key=True, related_name="revision"
    )
    number = models.PositiveBigIntegerField(default=0)
    standings = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name = _("event revision")
        verbose_name_plural = _("event revisions")

    def __str__(self) -> str:
        return f"{self.event_id} r{self.number}/s{self.standings}"


@receiver(post_save, sender=Event)
def _create_revision(sender, instance: Event, created: bool, raw: bool = False, **kwargs):
    """Every event has its revision row from the start (loaddata brings its own)."""
    if created and not raw:
        EventRevision.objects.get_or_create(event=instance)


# What a player's or organizer's name on the event's pages is made of.
NAME_FIELDS = frozenset({"username", "first_name", "last_name"})


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def _user_renamed(sender, instance, created: bool, update_fields=None, raw: bool = False, **kwargs):
    """A user's name shows on the pages of every event they play in or organize: a
    rename (the user admin) is a change of those events, though no service makes it.
    Saves that touch no name (the last login at every sign-in) change nothing."""
    if created or raw or (update_fields is not None and not NAME_FIELDS & set(update_fields)):
        return
    played = Registration.objects.filter(player=instance).values("event_id")
    EventRevision.objects.filter(
        Q(event__in=played) | Q(event__organizer=instance) | Q(event__staff__user=instance)
    ).update(number=F("number") + 1, standings=F("standings") + 1)


class UsernameSkeleton(models.Model):
    """The look-alike key of each account's username (``tournaments.usernames.skeleton``):
    a new name whose skeleton is here looks like an existing account's and is refused.
    Kept by the user model's ``post_save`` below, and by
    ``tournaments.usernames.record_skeletons`` after a ``bulk_create`` of users."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="username_skeleton",
        verbose_name=_("user"),
    )
    skeleton = models.TextField(_("skeleton"))

    class Meta:
        verbose_name = _("username skeleton")
        verbose_name_plural = _("username skeletons")
        indexes = [models.Index(fields=["skeleton"], name="usernameskeleton_skeleton")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.skeleton}"


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def _record_username_skeleton(sender, instance, created: bool, update_fields=None, **kwargs):
    """Every saved account's skeleton is current (fixtures' raw saves included); saves
    that leave the username alone (the last login at every sign-in) write nothing."""
    if not created and update_fields is not None and "username" not in update_fields:
        return
    from .usernames import record_skeletons

    record_skeletons([instance])


class EventStaff(models.Model):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="staff", verbose_name=_("event")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="event_roles",
        verbose_name=_("user"),
    )
    role = models.CharField(_("role"), max_length=20, choices=StaffRole.choices)
    created_at = models.DateTimeField(_("added"), auto_now_add=True)

    class Meta:
        ordering = ["event", "role", "id"]
        verbose_name = _("event staff member")
        verbose_name_plural = _("event staff")
        constraints = [
            models.UniqueConstraint(fields=["event", "user"], name="eventstaff_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()})"


class Registration(models.Model):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="registrations", verbose_name=_("event")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="event_registrations",
        verbose_name=_("player"),
    )
    status = models.CharField(
        _("status"),
        max_length=20,
        choices=RegistrationStatus.choices,
        default=RegistrationStatus.REGISTERED,
    )
    # Waitlist order; reset when a dropped player registers again.
    registered_at = models.DateTimeField(_("registered"))
    # The decklist as submitted (a snapshot: editing the stored deck later changes nothing).
    deck_text = models.TextField(_("decklist"), blank=True)
    deck_report = models.JSONField(_("legality report"), null=True, blank=True)
    deck = models.ForeignKey(
        "decks.Deck",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="registrations",
        verbose_name=_("stored deck"),
    )
    deck_submitted_at = models.DateTimeField(_("decklist submitted"), null=True, blank=True)
    locked = models.BooleanField(
        _("decklist locked"), default=False, help_text=_("Only a judge can change it.")
    )
    dropped_after_round = models.PositiveSmallIntegerField(
        _("dropped after round"),
        null=True,
        blank=True,
        help_text=_("0: withdrew before round 1."),
    )
    late_entry_round = models.PositiveSmallIntegerField(
        _("entered late in round"), null=True, blank=True
    )

    class Meta:
        ordering = ["event", "registered_at", "id"]
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="registration_unique_player"),
            models.CheckConstraint(
                condition=Q(status__in=RegistrationStatus.values), name="registration_status_valid"
            ),
        ]
        indexes = [models.Index(fields=["event", "status"], name="registration_event_status")]

    def __str__(self) -> str:
        return f"{self.player} @ {self.event}"

    @property
    def has_decklist(self) -> bool:
        return bool(self.deck_submitted_at)


class Round(models.Model):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("event")
    )
    number = models.PositiveSmallIntegerField(pgettext_lazy("round", "number"))
    stage = models.CharField(_("stage"), max_length=10, choices=RoundStage.choices)
    status = models.CharField(
        _("status"), max_length=10, choices=RoundStatus.choices, default=RoundStatus.DRAFT
    )
    # Re-pairing an unpublished round counts up, so it may give other (equally good) pairs.
    pairing_attempt = models.PositiveSmallIntegerField(default=0, editable=False)
    pairing_info = models.JSONField(_("how the pairing was made"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    published_at = models.DateTimeField(_("published"), null=True, blank=True)
    started_at = models.DateTimeField(_("clock started"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)

    class Meta:
        ordering = ["event", "number"]
        verbose_name = pgettext_lazy("round", "round")
        verbose_name_plural = pgettext_lazy("round", "rounds")
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="round_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_min"),
        ]

    def __str__(self) -> str:
        return f"{self.event} R{self.number}"

    def ends_at(self, round_minutes: int) -> dt.datetime | None:
        if self.started_at is None:
            return None
        return self.started_at + dt.timedelta(minutes=round_minutes)


class Match(models.Model):
    round = models.ForeignKey(
        Round,
        on_delete=models.CASCADE,
        related_name="matches",
        verbose_name=pgettext_lazy("round", "round"),
    )
    table = models.PositiveSmallIntegerField(_("table"))
    player1 = models.ForeignKey(
        Registration,
        on_delete=models.PROTECT,
        related_name="matches_as_player1",
        verbose_name=_("player 1"),
    )
    player2 = models.ForeignKey(
        Registration,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="matches_as_player2",
        verbose_name=_("player 2"),
        help_text=_("Empty for a bye."),
    )
    # Every game as reported (engine GameReport fields); a game added by a game-loss
    # penalty carries "penalty": <penalty id>.
    games = models.JSONField(_("games"), default=list, blank=True)
    # The match record from player 1's side (engine MatchRecord), once there is one.
    wins = models.PositiveSmallIntegerField(_("wins"), null=True, blank=True)
    losses = models.PositiveSmallIntegerField(_("losses"), null=True, blank=True)
    draws = models.PositiveSmallIntegerField(_("draws"), null=True, blank=True)
    outcome = models.CharField(_("result"), max_length=10, choices=MatchOutcome.choices, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=MatchStatus.choices, default=MatchStatus.PENDING
    )
    reported_by = models.ForeignKey(
        Registration,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("reported by"),
    )
    # Compare-and-swap counter: every change of the result goes from version v to v + 1.
    version = models.PositiveIntegerField(_("result version"), default=1)
    # Top cut only: place in the bracket and the seeds (engine BracketMatch).
    bracket_position = models.PositiveSmallIntegerField(
        _("place in the bracket"), null=True, blank=True
    )
    seed1 = models.PositiveSmallIntegerField(_("seed of player 1"), null=True, blank=True)
    seed2 = models.PositiveSmallIntegerField(_("seed of player 2"), null=True, blank=True)
    # Time a judge added to this table (a deck check, a long ruling): its clock ends
    # this many minutes after the round's (services.clock.extend_match_time).
    extra_minutes = models.PositiveSmallIntegerField(_("extra time (minutes)"), default=0)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["round", "table"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        constraints = [
            models.UniqueConstraint(fields=["round", "table"], name="match_unique_table"),
            models.CheckConstraint(condition=~Q(player1=F("player2")), name="match_players_differ"),
            models.CheckConstraint(
                condition=(
                    Q(wins__isnull=True, losses__isnull=True, draws__isnull=True)
                    | (
                        Q(wins__lte=2, losses__lte=2, draws__lte=3)
                        & Q(LessThanOrEqual(F("wins") + F("losses") + F("draws"), 3))
                    )
                ),
                name="match_record_bounds",
            ),
            models.CheckConstraint(
                condition=Q(status__in=MatchStatus.values), name="match_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.round} T{self.table}"

    @property
    def is_bye(self) -> bool:
        return self.player2_id is None

    def ends_at(self, round_ends_at: dt.datetime | None) -> dt.datetime | None:
        """When this table's time is up: the round's end plus the table's extension."""
        if round_ends_at is None:
            return None
        return round_ends_at + dt.timedelta(minutes=self.extra_minutes)

    @property
    def record_text(self) -> str:
        if self.wins is None:
            return ""
        return f"{self.wins}-{self.losses}-{self.draws}"


class MatchParticipant(models.Model):
    """One seat of a match. ``round`` repeats ``match.round`` so that the database can
    refuse a registration in two matches of one round (two FK columns on Match cannot)."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="participants", verbose_name=_("match")
    )
    round = models.ForeignKey(
        Round,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=pgettext_lazy("round", "round"),
    )
    registration = models.ForeignKey(
        Registration,
        on_delete=models.PROTECT,
        related_name="participations",
        verbose_name=_("registration"),
    )
    seat = models.PositiveSmallIntegerField(_("seat"))

    class Meta:
        verbose_name = _("match participant")
        verbose_name_plural = _("match participants")
        constraints = [
            models.UniqueConstraint(
                fields=["round", "registration"], name="participant_one_match_per_round"
            ),
            models.UniqueConstraint(fields=["match", "seat"], name="participant_unique_seat"),
            models.CheckConstraint(condition=Q(seat__in=(1, 2)), name="participant_seat_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}"


class ResultReport(models.Model):
    """Every submission that changed a match's result, in order: reports, confirmations,
    disputes, staff entries and penalties. ``match_version`` is the version it produced."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="reports", verbose_name=_("match")
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("submitted by"),
    )
    kind = models.CharField(_("kind"), max_length=10, choices=ReportKind.choices)
    games = models.JSONField(_("games"), default=list, blank=True)
    record = models.CharField(_("record"), max_length=10, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    match_version = models.PositiveIntegerField(_("result version"))
    created_at = models.DateTimeField(_("submitted"), auto_now_add=True)
    # Written by an event-file import: what the file states, shown as "per the imported
    # file", never as an act of a user of this site.
    imported = models.BooleanField(_("from an imported file"), default=False, editable=False)

    class Meta:
        ordering = ["match", "match_version"]
        verbose_name = _("result submission")
        verbose_name_plural = _("result submissions")
        constraints = [
            models.UniqueConstraint(
                fields=["match", "match_version"], name="resultreport_one_per_version"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} v{self.match_version} {self.kind}"


class InfractionCategory(models.TextChoices):
    TOURNAMENT = "tournament", _("Tournament procedure")
    DECK = "deck", _("Deck and decklist")
    GAME_PLAY = "game_play", _("Game play")
    CONDUCT = "conduct", _("Conduct")
    SERIOUS = "serious", _("Serious violation")


class UpgradeRule(models.TextChoices):
    NONE = "none", _("No upgrade")
    STEP = "step", _("One step up for each earlier offence")
    TO = "to", _("From the repeat on: the penalty chosen below")


class RepeatScope(models.TextChoices):
    INFRACTION = "infraction", _("The same infraction")
    CATEGORY = "category", _("Any infraction of the same category")


class Infraction(models.Model):
    """An infraction a judge picks when issuing a penalty, with its default penalty and
    what a repeat in the same event upgrades it to. One list per game; the built-in
    entries come from ``tournaments/builtin_infractions.json`` and organizers edit them
    in the admin. The upgrade itself is computed by ``tournaments.infractions``."""

    game = models.ForeignKey(
        "cardpool.Game",
        on_delete=models.CASCADE,
        related_name="infractions",
        verbose_name=_("game"),
    )
    code = models.SlugField(
        _("code"), max_length=60, help_text=_("Short identifier, unique within the game.")
    )
    name_ja = models.CharField(_("name (Japanese)"), max_length=100)
    name_en = models.CharField(_("name (English)"), max_length=100)
    category = models.CharField(_("category"), max_length=20, choices=InfractionCategory.choices)
    default_penalty = models.CharField(
        _("default penalty"), max_length=20, choices=PenaltyKind.choices
    )
    upgrade = models.CharField(
        _("upgrade for a repeat"),
        max_length=10,
        choices=UpgradeRule.choices,
        default=UpgradeRule.NONE,
        help_text=_("What the penalty becomes when the player already has one in the event."),
    )
    upgrade_to = models.CharField(
        _("upgraded penalty"),
        max_length=20,
        choices=PenaltyKind.choices,
        blank=True,
        help_text=_('Only for the upgrade "the penalty chosen below".'),
    )
    repeat_scope = models.CharField(
        _("earlier penalties counted"),
        max_length=20,
        choices=RepeatScope.choices,
        default=RepeatScope.INFRACTION,
    )
    description_ja = models.TextField(_("description (Japanese)"), blank=True)
    description_en = models.TextField(_("description (English)"), blank=True)
    source = models.CharField(
        _("source"),
        max_length=200,
        blank=True,
        help_text=_("Where the game's own tournament rules say so (document and section)."),
    )
    builtin = models.BooleanField(
        _("built in"), default=False, help_text=_("Shipped with the site.")
    )
    active = models.BooleanField(
        _("active"), default=True, help_text=_("Only active infractions are offered to judges.")
    )
    order = models.PositiveSmallIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["game", "order", "id"]
        verbose_name = _("infraction")
        verbose_name_plural = _("infractions")
        constraints = [
            models.UniqueConstraint(fields=["game", "code"], name="infraction_code_per_game"),
            models.CheckConstraint(
                condition=~Q(upgrade="to") | ~Q(upgrade_to=""),
                name="infraction_upgrade_to_named",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.upgrade == UpgradeRule.TO and not self.upgrade_to:
            raise ValidationError({"upgrade_to": _("Choose the penalty a repeat is upgraded to.")})

    def validate_constraints(self, exclude=None) -> None:
        # clean() names the missing upgraded penalty on its field; the database
        # constraint behind it would only add a generic message.
        exclude = set(exclude or ())
        if self.upgrade == UpgradeRule.TO and not self.upgrade_to:
            exclude.add("upgrade_to")
        super().validate_constraints(exclude=exclude)

    @property
    def name(self) -> str:
        """The name in the active language (Japanese for ``ja``, English otherwise)."""
        return self.name_ja if _is_japanese() else self.name_en

    @property
    def description(self) -> str:
        if _is_japanese():
            return self.description_ja or self.description_en
        return self.description_en or self.description_ja


def _is_japanese() -> bool:
    return (get_language() or "").startswith("ja")


class Penalty(models.Model):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="penalties", verbose_name=_("event")
    )
    registration = models.ForeignKey(
        Registration,
        on_delete=models.PROTECT,
        related_name="penalties",
        verbose_name=_("registration"),
    )
    kind = models.CharField(_("penalty"), max_length=20, choices=PenaltyKind.choices)
    # The infraction picked from the list (penalties issued before the list existed, and
    # free-text ones from the API, have none and keep only their text below).
    infraction_ref = models.ForeignKey(
        Infraction,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="penalties",
        verbose_name=_("infraction"),
    )
    infraction = models.CharField(_("infraction (as written)"), max_length=100)
    suggested_kind = models.CharField(
        _("suggested penalty"),
        max_length=20,
        choices=PenaltyKind.choices,
        blank=True,
        help_text=_(
            "What the infraction list suggested; differs from the penalty when the judge deviated."
        ),
    )
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("judge"),
    )
    note = models.TextField(_("note"), blank=True)
    round = models.ForeignKey(
        Round,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="penalties",
        verbose_name=pgettext_lazy("round", "round"),
    )
    match = models.ForeignKey(
        Match,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="penalties",
        verbose_name=_("match"),
    )
    # The failed deck check this penalty was issued for (rule 1−2−4), if any.
    deck_check = models.ForeignKey(
        "DeckCheck",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="penalties",
        verbose_name=_("deck check"),
    )
    created_at = models.DateTimeField(_("issued"), auto_now_add=True)
    # Written by an event-file import: what the file states, shown as "per the imported
    # file", never as an act of a user of this site.
    imported = models.BooleanField(_("from an imported file"), default=False, editable=False)

    class Meta:
        ordering = ["event", "created_at", "id"]
        verbose_name = _("penalty")
        verbose_name_plural = _("penalties")

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.infraction_name}"

    @property
    def infraction_name(self) -> str:
        """The infraction in the reader's language; the text as written when the penalty
        has no infraction from the list."""
        if self.infraction_ref_id is not None:
            return self.infraction_ref.name
        return self.infraction

    @property
    def deviated(self) -> bool:
        """The judge issued another penalty than the list suggested."""
        return bool(self.suggested_kind) and self.suggested_kind != self.kind


class DeckCheckMethod(models.TextChoices):
    PASTE = "paste", _("Pasted list")
    COUNT = "count", _("Counted per card")


class DeckCheck(models.Model):
    """A judge's comparison of a player's physical deck and sideboard with the registered
    list, between games (rule 1−2−4: only swaps that keep the deck size, with cards from
    the registered sideboard). Written once by ``services.deck_checks.record_deck_check``;
    ``result`` is the engine's report (``decks.engine.deckcheck``)."""

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="deck_checks", verbose_name=_("event")
    )
    registration = models.ForeignKey(
        Registration,
        on_delete=models.PROTECT,
        related_name="deck_checks",
        verbose_name=_("registration"),
    )
    round = models.ForeignKey(
        Round,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="deck_checks",
        verbose_name=pgettext_lazy("round", "round"),
    )
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("judge"),
    )
    method = models.CharField(_("entered as"), max_length=10, choices=DeckCheckMethod.choices)
    # The registered list compared with (a snapshot: a later decklist change keeps this).
    registered_text = models.TextField(_("registered decklist"), blank=True)
    counted_text = models.TextField(_("counted cards (as pasted)"), blank=True)
    # {"main": [[name, set code or null, count], …], "side": […]}
    counted = models.JSONField(_("counted cards"), default=dict)
    result = models.JSONField(_("result"), default=dict)
    ok = models.BooleanField(_("deck matches the list"))
    note = models.TextField(_("note"), blank=True)
    created_at = models.DateTimeField(_("checked"), auto_now_add=True)
    # Written by an event-file import: what the file states, shown as "per the imported
    # file", never as an act of a user of this site.
    imported = models.BooleanField(_("from an imported file"), default=False, editable=False)

    class Meta:
        ordering = ["event", "-created_at", "-id"]
        verbose_name = _("deck check")
        verbose_name_plural = _("deck checks")
        indexes = [models.Index(fields=["event", "-created_at"], name="deckcheck_event_time")]

    def __str__(self) -> str:
        return f"{self._meta.verbose_name} #{self.pk}"


class AuditEntry(models.Model):
    """Who changed what, when, why, and the data before and after. Written by the service
    function in the same transaction as the change; never edited."""

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="audit_entries", verbose_name=_("event")
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    action = models.CharField(_("action"), max_length=60)
    object_type = models.CharField(_("object type"), max_length=40)
    object_id = models.PositiveBigIntegerField(_("object id"), null=True, blank=True)
    # Set for changes of versioned objects (match results): two entries for one version
    # are impossible, whatever the application code does.
    object_version = models.PositiveIntegerField(_("object version"), null=True, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    before = models.JSONField(_("before"), null=True, blank=True, encoder=DjangoJSONEncoder)
    after = models.JSONField(_("after"), null=True, blank=True, encoder=DjangoJSONEncoder)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    # Written by an event-file import: what the file states, shown as "per the imported
    # file", never as an act of a user of this site.
    imported = models.BooleanField(_("from an imported file"), default=False, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")
        constraints = [
            models.UniqueConstraint(
                fields=["object_type", "object_id", "object_version"],
                condition=Q(object_version__isnull=False),
                name="auditentry_one_per_version",
            ),
        ]
        indexes = [models.Index(fields=["event", "-created_at"], name="auditentry_event_time")]

    def __str__(self) -> str:
        return f"{self.action} {self.object_type}#{self.object_id}"


class ExportKind(models.TextChoices):
    STANDINGS = "standings", _("Standings")
    PAIRINGS = "pairings", _("Pairings")
    DECKLISTS = "decklists", _("Decklists")


class ExportFormat(models.TextChoices):
    CSV = "csv", "CSV"
    JSON = "json", "JSON"
    XLSX = "xlsx", "XLSX"


class ExportJob(TrackedJob):
    """A large export built in the background (``tournaments.exports.run_export_job``).

    The finished file is kept in the database (``content``), not on disk: the web process
    that serves the download and the worker that wrote it need not share a filesystem.
    ``created_by`` is the requester: only they (and superusers) see the job. The file holds
    what the requester may see, decided again by the policy when the worker builds it.
    """

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="export_jobs", verbose_name=_("event")
    )
    kind = models.CharField(_("export"), max_length=10, choices=ExportKind.choices)
    file_format = models.CharField(_("file format"), max_length=4, choices=ExportFormat.choices)
    round_number = models.PositiveSmallIntegerField(
        pgettext_lazy("round", "round"), null=True, blank=True
    )
    # Column headers are written in the requester's language, also by a worker.
    language = models.CharField(_("language"), max_length=10, blank=True)
    filename = models.CharField(_("file name"), max_length=100, blank=True)
    content = models.BinaryField(null=True, blank=True, editable=False)
    error = models.TextField(_("error"), blank=True)

    task_name = "tournaments.build_export"

    class Meta(TrackedJob.Meta):
        verbose_name = _("export")
        verbose_name_plural = _("exports")
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=ExportKind.values), name="exportjob_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(file_format__in=ExportFormat.values), name="exportjob_format_valid"
            ),
            models.CheckConstraint(
                condition=~Q(kind=ExportKind.PAIRINGS) | Q(round_number__isnull=False),
                name="exportjob_pairings_round",
            ),
        ]

    def __str__(self) -> str:
        return self.filename or f"{self.event} {self.kind}.{self.file_format}"


class TokenScope(models.TextChoices):
    READ = "read", _("Read only")
    WRITE = "write", _("Read and write")


class ApiToken(models.Model):
    """A personal API token, or one limited to one event (``event`` set) for its staff's
    bots and stream overlays (``tournaments.tokens``).

    The database holds only ``prefix`` (visible, to find the row) and the SHA-256 of the
    whole token: the secret is shown once, when the token is made. A revoked token keeps
    its row (``revoked_at``) so the owner still sees when it was used last."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("user"),
    )
    event = models.ForeignKey(
        Event,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="api_tokens",
        verbose_name=_("event"),
    )
    name = models.CharField(_("name"), max_length=100)
    scope = models.CharField(_("scope"), max_length=5, choices=TokenScope.choices)
    prefix = models.CharField(_("prefix"), max_length=16, unique=True, editable=False)
    secret_hash = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True, editable=False)
    # Chosen when the token is made; None: it works until revoked.
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        constraints = [
            models.CheckConstraint(
                condition=Q(scope__in=TokenScope.values), name="apitoken_scope_valid"
            ),
        ]
        indexes = [models.Index(fields=["user", "event"], name="apitoken_user_event")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class WebhookKind(models.TextChoices):
    """What an outgoing webhook reports (``tournaments.webhooks``; docs/webhooks.md)."""

    ROUND_PUBLISHED = "round.published", _("Round published")
    RESULT_CONFIRMED = "result.confirmed", _("Result confirmed")
    STANDINGS_CHANGED = "standings.changed", _("Standings changed")
    EVENT_FINISHED = "event.finished", _("Event finished")


class Webhook(models.Model):
    """A URL the site POSTs an event's news to, signed with ``secret`` (HMAC-SHA256).

    ``kinds`` lists the :class:`WebhookKind` values it wants. The URL was checked when it
    was saved (no private or loopback target unless the settings allow them) and is
    checked again at every send, after DNS resolution."""

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="webhooks", verbose_name=_("event")
    )
    url = models.URLField(_("URL"), max_length=500)
    secret = models.CharField(_("secret"), max_length=200)
    kinds = models.JSONField(_("events"), default=list)
    active = models.BooleanField(_("active"), default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    SENDING = "sending", _("Sending")
    DELIVERED = "delivered", _("Delivered")
    FAILED = "failed", _("Failed")


class WebhookDelivery(models.Model):
    """One POST of one piece of news to one webhook: the outbox row.

    Written in the transaction of the change it reports, so it is never lost; a worker
    claims it (``sending`` with a lease), posts ``body`` (the exact bytes every attempt
    sends and signs) and records the outcome. ``attempt_log`` keeps every attempt."""

    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    webhook = models.ForeignKey(
        Webhook, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("webhook")
    )
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="webhook_deliveries", verbose_name=_("event")
    )
    kind = models.CharField(_("kind"), max_length=20, choices=WebhookKind.choices)
    body = models.TextField(_("body"))
    status = models.CharField(
        _("status"), max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)
    # When a task for it was last put on the queue (the sweeper does not queue it again
    # within a lease), and until when the worker that claimed it may be sending.
    queued_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(_("status code"), null=True, blank=True)
    last_error = models.TextField(_("error"), blank=True)
    attempt_log = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=DeliveryStatus.values), name="webhookdelivery_status_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["event", "-created_at"], name="webhookdelivery_event_time"),
            models.Index(fields=["status", "next_attempt_at"], name="webhookdelivery_due"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} → {self.webhook_id} ({self.status})"


class ClaimLink(models.Model):
    """A one-time link (``/accounts/claim/<token>/``) through which a player takes over
    the inactive placeholder account an event-file import made for them
    (``tournaments.services.claims``). Only the SHA-256 of the token is stored; the link
    is shown once to the event's staff member who made it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="claim_links",
        verbose_name=_("account"),
    )
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="claim_links", verbose_name=_("event")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("made by"),
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    used_at = models.DateTimeField(_("used"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("claim link")
        verbose_name_plural = _("claim links")

    def __str__(self) -> str:
        return f"claim {self.user_id} ({self.event_id})"


class FileIdentity(models.Model):
    """A name an event file uses in one event, and the account it stands for there.

    An import speaks only for its importer (``tournaments.event_file.importing``): a name
    in the file becomes a placeholder account that belongs to the event that made it
    (``user``, inactive, no password), never an existing account of this site. The
    placeholder can be claimed (a link its event's organizer makes, the player sets a
    password) or accepted by a signed-in account's owner (the event's records move to
    them): ``accepted_at`` is then set, and a later import of the same event maps the
    name to that account again. Another event's import never reaches this row."""

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="file_identities", verbose_name=_("event")
    )
    name = models.CharField(_("name in the file"), max_length=150)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="file_identities",
        verbose_name=_("account"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    accepted_at = models.DateTimeField(_("accepted"), null=True, blank=True)

    class Meta:
        ordering = ["event", "name"]
        verbose_name = _("name from an event file")
        verbose_name_plural = _("names from event files")
        constraints = [
            models.UniqueConstraint(fields=["event", "name"], name="fileidentity_name_once"),
            models.UniqueConstraint(fields=["event", "user"], name="fileidentity_user_once"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.event_id})"


class EventFileImport(models.Model):
    """One event file a user imported (the pages, the API): what the per-user import
    quota counts (``tournaments.event_file.limits``). Kept when a later import replaces
    the event (which clears the event's audit log), so the count cannot be reset."""

    importer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("imported by"),
    )
    event = models.ForeignKey(
        Event,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("event"),
    )
    accounts_created = models.PositiveIntegerField(_("placeholder accounts created"), default=0)
    created_at = models.DateTimeField(_("imported"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("event file import")
        verbose_name_plural = _("event file imports")
        indexes = [
            models.Index(fields=["importer", "created_at"], name="eventfileimport_importer_at")
        ]

    def __str__(self) -> str:
        return f"import by {self.importer_id} at {self.created_at:%Y-%m-%d %H:%M}"
