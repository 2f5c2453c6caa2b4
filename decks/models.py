from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from cardpool.models import Card, CardSet, CardType, Game
from config.jobs import TrackedJob


class Format(models.Model):
    """A deck-construction format, as data: every limit is a field an organizer can edit."""

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="formats", verbose_name=_("game")
    )
    slug = models.SlugField(_("identifier"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=200)
    version = models.PositiveIntegerField(
        _("version"),
        default=1,
        editable=False,
        help_text=_("Goes up with every change of the format or its ban list."),
    )
    min_deck_size = models.PositiveSmallIntegerField(_("minimum deck size"), null=True, blank=True)
    max_deck_size = models.PositiveSmallIntegerField(_("maximum deck size"), null=True, blank=True)
    copy_limit = models.PositiveSmallIntegerField(
        _("copies per card name"),
        null=True,
        blank=True,
        help_text=_("Counted across deck and sideboard together; empty for no limit."),
    )
    exempt_unlimited = models.BooleanField(_("cards marked “any number” are exempt"), default=True)
    exempt_card_type = models.CharField(
        _("only cards of this type are exempt"),
        max_length=10,
        choices=CardType.choices,
        blank=True,
        help_text=_(
            "Rule 1−2−3 lets only common navigators be played in any number: with Navigator"
            " here, a card of another type marked “any number” by mistake still counts."
        ),
    )
    sideboard_min = models.PositiveSmallIntegerField(
        _("smallest sideboard"), default=1, help_text=_("An empty sideboard is always allowed.")
    )
    sideboard_max = models.PositiveSmallIntegerField(
        _("largest sideboard"), default=0, help_text=_("0: this format has no sideboard.")
    )
    legal_sets = models.ManyToManyField(
        CardSet,
        through="LegalSet",
        blank=True,
        related_name="formats",
        verbose_name=_("legal sets"),
        help_text=_("Leave empty to allow every set."),
    )
    leader_type = models.CharField(
        _("card type kept beside the deck"),
        max_length=10,
        choices=CardType.choices,
        blank=True,
        help_text=_("AsuraSystem: the one character card, whose printed range sets the deck size."),
    )
    leader_count = models.PositiveSmallIntegerField(_("number of such cards"), default=1)
    rule_sections = models.JSONField(
        _("rule sections cited"),
        default=dict,
        blank=True,
        help_text=_(
            "The rulebook section a player is shown for each kind of problem, e.g. 1−2−3;"
            " empty: none is cited."
        ),
    )
    notes = models.TextField(_("notes"), blank=True)

    class Meta:
        ordering = ["game", "name"]
        verbose_name = _("format")
        verbose_name_plural = _("formats")

    def __str__(self) -> str:
        return self.name

    def clean(self):
        if (
            self.min_deck_size is not None
            and self.max_deck_size is not None
            and self.min_deck_size > self.max_deck_size
        ):
            raise ValidationError({"max_deck_size": _("Must not be below the minimum.")})
        if self.sideboard_max and self.sideboard_min > self.sideboard_max:
            raise ValidationError({"sideboard_min": _("Must not be above the largest sideboard.")})


class LegalSet(models.Model):
    """A set whose printings a format allows, from a day on: a set is legal from its
    release date, or from the date the format gives it."""

    format = models.ForeignKey(
        Format,
        on_delete=models.CASCADE,
        related_name="legal_set_entries",
        verbose_name=_("format"),
    )
    # The column keeps the name of the plain many-to-many table this model took over.
    card_set = models.ForeignKey(
        CardSet,
        on_delete=models.CASCADE,
        db_column="cardset_id",
        related_name="+",
        verbose_name=_("card set"),
    )
    legal_from = models.DateField(
        _("legal from"),
        null=True,
        blank=True,
        help_text=_(
            "The first day the set may be played in this format. Empty: from the set's"
            " release date, or on any day when that is not known."
        ),
    )

    class Meta:
        db_table = "decks_format_legal_sets"
        unique_together = [("format", "card_set")]
        verbose_name = _("legal set")
        verbose_name_plural = _("legal sets")

    def __str__(self) -> str:
        return str(self.card_set)

    def clean(self):
        if self.card_set_id and self.format_id and self.card_set.game_id != self.format.game_id:
            raise ValidationError({"card_set": _("The set belongs to another game.")})


class CopyGroup(models.Model):
    """Different card names that share one copy limit in a format."""

    format = models.ForeignKey(
        Format, on_delete=models.CASCADE, related_name="copy_groups", verbose_name=_("format")
    )
    name = models.CharField(_("name"), max_length=200)
    cards = models.ManyToManyField(Card, related_name="+", verbose_name=_("cards"))

    class Meta:
        verbose_name = _("cards counted together")
        verbose_name_plural = _("cards counted together")

    def __str__(self) -> str:
        return self.name


class BanEntry(models.Model):
    format = models.ForeignKey(
        Format, on_delete=models.CASCADE, related_name="bans", verbose_name=_("format")
    )
    card = models.ForeignKey(
        Card, on_delete=models.PROTECT, related_name="bans", verbose_name=_("card")
    )
    printing_set = models.ForeignKey(
        CardSet,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("only the printing in"),
        help_text=_("Empty: every printing of the card is banned."),
    )
    effective_from = models.DateField(_("in force from"), null=True, blank=True)
    effective_until = models.DateField(
        _("in force until"),
        null=True,
        blank=True,
        help_text=_("The first day it no longer applies."),
    )
    note = models.TextField(_("note"), blank=True)
    source = models.CharField(_("source"), max_length=300, blank=True)

    class Meta:
        ordering = ["format", "effective_from", "card__name_key"]
        verbose_name = _("ban-list entry")
        verbose_name_plural = _("ban list")

    def __str__(self) -> str:
        printing = f" ({self.printing_set.code})" if self.printing_set_id else ""
        return f"{self.card}{printing}"

    def clean(self):
        if (
            self.effective_from
            and self.effective_until
            and self.effective_until <= self.effective_from
        ):
            raise ValidationError({"effective_until": _("Must be after the start date.")})
        if self.card_id and self.format_id and self.card.game_id != self.format.game_id:
            raise ValidationError({"card": _("The card belongs to another game.")})
        if self.printing_set_id and self.card_id and self.printing_set.game_id != self.card.game_id:
            raise ValidationError({"printing_set": _("The set belongs to another game.")})


class Section(models.TextChoices):
    MAIN = "main", _("Deck")
    SIDE = "side", _("Sideboard")


class Deck(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="decks",
        verbose_name=_("owner"),
    )
    format = models.ForeignKey(
        Format, on_delete=models.PROTECT, related_name="decks", verbose_name=_("format")
    )
    name = models.CharField(_("name"), max_length=200)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("deck")
        verbose_name_plural = _("decks")

    def __str__(self) -> str:
        return self.name


class DeckEntry(models.Model):
    deck = models.ForeignKey(
        Deck, on_delete=models.CASCADE, related_name="entries", verbose_name=_("deck")
    )
    card = models.ForeignKey(
        Card, on_delete=models.PROTECT, related_name="+", verbose_name=_("card")
    )
    printing_set = models.ForeignKey(
        CardSet,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("printing (set)"),
        help_text=_("Empty: the card's legal printing."),
    )
    count = models.PositiveSmallIntegerField(_("copies"))
    section = models.CharField(
        _("section"), max_length=4, choices=Section.choices, default=Section.MAIN
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["deck", "section", "position"]
        verbose_name = _("decklist line")
        verbose_name_plural = _("decklist lines")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(count__gte=1), name="deckentry_count_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.count} × {self.card}"


class DeckCheck(models.Model):
    """One legality check of a stored deck, with the format version and date it used."""

    deck = models.ForeignKey(
        Deck, on_delete=models.CASCADE, related_name="checks", verbose_name=_("deck")
    )
    format_version = models.PositiveIntegerField(_("format version"))
    as_of = models.DateField(_("checked as of"))
    legal = models.BooleanField(_("legal"))
    report = models.JSONField(_("report"))
    checked_at = models.DateTimeField(_("checked"), auto_now_add=True)
    # Written by a ban-list re-check (not by the owner saving the deck): at most one such
    # row per deck and format version, so a re-check that runs again after a crash adds
    # nothing twice. The owner's saves are history and may repeat a version.
    by_recheck = models.BooleanField(_("by a re-check"), default=False)

    class Meta:
        ordering = ["-checked_at", "-id"]
        get_latest_by = ["checked_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["deck", "format_version"],
                condition=models.Q(by_recheck=True),
                name="deckcheck_one_recheck_per_version",
            )
        ]
        # "deck check" is the judges' check of a physical deck at the table (tournaments).
        verbose_name = _("legality check")
        verbose_name_plural = _("legality checks")

    def __str__(self) -> str:
        return f"{self.deck} v{self.format_version} {self.as_of}"


class RecheckJob(TrackedJob):
    """Re-checking every stored deck of a format after it or its ban list changed
    (``total`` and ``done`` count decks)."""

    format = models.ForeignKey(
        Format, on_delete=models.CASCADE, related_name="recheck_jobs", verbose_name=_("format")
    )
    format_version = models.PositiveIntegerField(_("format version"))
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    became_illegal = models.JSONField(_("decks that became illegal"), default=list, blank=True)
    error = models.TextField(_("error"), blank=True)

    task_name = "decks.recheck_format_decks"

    class Meta(TrackedJob.Meta):
        verbose_name = _("deck re-check")
        verbose_name_plural = _("deck re-checks")

    def __str__(self) -> str:
        return f"{self.format} v{self.format_version}"

    def progress_text(self) -> str:
        return _("%(done)s of %(total)s decks checked against version %(version)s") % {
            "done": self.done,
            "total": self.total,
            "version": self.format_version,
        }
