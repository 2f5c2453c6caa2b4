from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from config.jobs import TrackedJob

from .names import bare_name, name_key, search_key
from .printings import newest, printing_key, release_key


class CardType(models.TextChoices):
    # The card types are printed in English on the cards (rulebook 4−2−8).
    CHARACTER = "CHARACTER", pgettext_lazy("card type", "Character")
    NAVIGATOR = "NAVIGATOR", pgettext_lazy("card type", "Navigator")
    SPELL = "SPELL", pgettext_lazy("card type", "Spell")
    EVENT = "EVENT", pgettext_lazy("card type", "Event")
    ITEM = "ITEM", pgettext_lazy("card type", "Item")


class Element(models.TextChoices):
    FIRE = "火", _("Fire (火)")
    WATER = "水", _("Water (水)")
    WIND = "風", _("Wind (風)")
    EARTH = "地", _("Earth (地)")
    SKY = "空", _("Sky (空)")


# 全 is the generic symbol: energy of any element pays for it.
ANY_ELEMENT = "全"
COST_SYMBOLS = "".join(Element.values) + ANY_ELEMENT


class Gender(models.TextChoices):
    MALE = "Male", _("Male")
    FEMALE = "Female", _("Female")
    OTHER = "Other", _("Other")


class Game(models.Model):
    """A card game. Besides its name it carries how its games end (adjudicated by
    ``tournaments.engine.games.GameEndRules``); the defaults are CrossOver's (rulebook
    1−4, 4−1−2; wiki 002), the other built-in games get theirs from
    ``builtin_games.json``."""

    class DeckOut(models.TextChoices):
        # The values of tournaments.engine.games.DeckOut.
        NONE = "none", _("Running out of cards does not end a game")
        EMPTY = "empty", _("A player loses the moment their deck becomes empty")
        DRAW = "draw", _("A player loses when they must draw from an empty deck")

    class TimeTiebreak(models.TextChoices):
        # The values of tournaments.engine.games.TimeTiebreak.
        NONE = "none", _("Nothing: a judge decides")
        MORE_HP = "more_hp", _("More HP wins")

    # The rules end_rules_sources may cite (tournaments.engine.games.SOURCE_KEYS).
    END_RULE_SOURCE_KEYS = ("hp", "max_hp", "hp_zero", "deck_out", "time_tiebreak")

    slug = models.SlugField(_("identifier"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=200)
    hp_tracked = models.BooleanField(
        _("players have HP"),
        default=True,
        help_text=_("Off for a game without HP or life points: results then never ask for HP."),
    )
    max_hp = models.PositiveSmallIntegerField(
        _("maximum HP"),
        null=True,
        blank=True,
        default=30,
        help_text=_("A reported HP above it is refused. Empty: no upper limit (or no HP)."),
    )
    hp_zero_loses = models.BooleanField(_("a player whose HP reaches 0 loses"), default=True)
    deck_out = models.CharField(
        _("running out of cards"), max_length=5, choices=DeckOut.choices, default=DeckOut.EMPTY
    )
    time_tiebreak = models.CharField(
        _("at time-out, when the event says the game needs a winner"),
        max_length=7,
        choices=TimeTiebreak.choices,
        default=TimeTiebreak.MORE_HP,
    )
    end_rules_sources = models.JSONField(
        _("sources of these rules"),
        default=dict,
        blank=True,
        help_text=_(
            "Where each rule comes from, shown when a result is refused: keys hp, max_hp, "
            "hp_zero, deck_out, time_tiebreak; values such as “Basic Rules v2.02 4−1−2” or "
            "“assumption: …”."
        ),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return self.name

    def end_rules_data(self) -> dict:
        """The keyword arguments of ``tournaments.engine.games.GameEndRules``."""
        return {
            "game": self.name,
            "hp_tracked": self.hp_tracked,
            "max_hp": self.max_hp if self.hp_tracked else None,
            "hp_zero_loses": self.hp_zero_loses and self.hp_tracked,
            "deck_out": self.deck_out,
            "time_tiebreak": self.time_tiebreak if self.hp_tracked else self.TimeTiebreak.NONE,
            "sources": {
                key: value
                for key, value in (self.end_rules_sources or {}).items()
                if key in self.END_RULE_SOURCE_KEYS and isinstance(value, str)
            },
        }

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        super().clean()
        errors: dict[str, list] = {}
        if not self.hp_tracked:
            no_hp = _("Needs “players have HP”.")
            if self.max_hp is not None:
                errors.setdefault("max_hp", []).append(no_hp)
            if self.hp_zero_loses:
                errors.setdefault("hp_zero_loses", []).append(no_hp)
            if self.time_tiebreak == self.TimeTiebreak.MORE_HP:
                errors.setdefault("time_tiebreak", []).append(no_hp)
        if self.max_hp == 0:
            errors.setdefault("max_hp", []).append(
                _("A maximum HP of 0 leaves no HP to play with: leave it empty for no limit.")
            )
        sources = self.end_rules_sources
        if not isinstance(sources, dict):
            errors.setdefault("end_rules_sources", []).append(
                _("Give an object such as {“max_hp”: “Basic Rules v2.02 1−4”}.")
            )
        else:
            for key, value in sources.items():
                if key not in self.END_RULE_SOURCE_KEYS:
                    errors.setdefault("end_rules_sources", []).append(
                        _("“%(key)s” is not a rule of a game's end; use one of %(keys)s.")
                        % {"key": key, "keys": ", ".join(self.END_RULE_SOURCE_KEYS)}
                    )
                elif not isinstance(value, str) or not value.strip():
                    errors.setdefault("end_rules_sources", []).append(
                        _("The source of “%(key)s” must be a text.") % {"key": key}
                    )
        if errors:
            raise ValidationError(errors)


class CardSet(models.Model):
    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="sets", verbose_name=_("game")
    )
    code = models.SlugField(
        _("code"), max_length=40, help_text=_("Short identifier used in import files.")
    )
    name = models.CharField(_("name"), max_length=200)
    aliases = models.JSONField(
        _("other names"),
        default=list,
        blank=True,
        help_text=_("Other names of the set that import files may use."),
    )
    release_date = models.DateField(_("release date"), null=True, blank=True)
    release_order = models.PositiveSmallIntegerField(
        _("release order"),
        null=True,
        blank=True,
        help_text=_("1 for the first set released; decides which printing is newest."),
    )
    is_beta = models.BooleanField(_("β edition"), default=False)

    class Meta:
        # Unknown release order first on every database (SQLite and PostgreSQL differ).
        ordering = ["game", models.F("release_order").asc(nulls_first=True), "code"]
        verbose_name = _("card set")
        verbose_name_plural = _("card sets")
        constraints = [
            models.UniqueConstraint(fields=["game", "code"], name="cardset_unique_code"),
        ]

    def __str__(self) -> str:
        return self.name

    def release_key(self, recorded: int = 0):
        return release_key(self.release_date, self.release_order, recorded)


class Card(models.Model):
    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="cards", verbose_name=_("game")
    )
    name = models.CharField(_("name"), max_length=200)
    # Derived from `name` on save (see cardpool.names): identity and search keys.
    name_key = models.CharField(max_length=200, editable=False)
    search_key = models.CharField(max_length=200, editable=False, db_index=True)
    card_type = models.CharField(
        _("card type"), max_length=10, choices=CardType.choices, blank=True
    )
    element = models.CharField(_("element"), max_length=1, choices=Element.choices, blank=True)
    cost = models.CharField(
        _("cost"),
        max_length=20,
        blank=True,
        validators=[
            RegexValidator(
                f"^[{COST_SYMBOLS}]*$",
                _("Use only the cost symbols 火 水 風 地 空 and 全."),
            )
        ],
        help_text=_("Element symbols, e.g. 火火 or 全全全; empty when unknown."),
    )
    gender = models.CharField(_("gender"), max_length=6, choices=Gender.choices, blank=True)
    ap = models.PositiveSmallIntegerField(_("AP"), null=True, blank=True)
    dp = models.PositiveSmallIntegerField(_("DP"), null=True, blank=True)
    deck_size_min = models.PositiveSmallIntegerField(
        _("deck size from"),
        null=True,
        blank=True,
        help_text=_("Printed deck-size range, e.g. an AsuraSystem character's stamina."),
    )
    deck_size_max = models.PositiveSmallIntegerField(_("deck size to"), null=True, blank=True)
    unlimited = models.BooleanField(
        _("any number of copies"),
        default=False,
        help_text=_("Common navigators may be put in a deck in any number (rule 1−2−3)."),
    )
    notes = models.TextField(_("notes"), blank=True)

    class Meta:
        ordering = ["name_key", "id"]
        verbose_name = _("card")
        verbose_name_plural = _("cards")
        constraints = [
            models.UniqueConstraint(fields=["game", "name_key"], name="card_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        # Stored as printed: 『清姫』 is the card 清姫 (rules 1−2−1, 4−2−6).
        self.name = bare_name(self.name)
        self.name_key = name_key(self.name)
        self.search_key = search_key(self.name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_key", "search_key"}
        super().save(*args, **kwargs)

    @property
    def cost_total(self) -> int | None:
        return len(self.cost) if self.cost else None

    def newest_printing(self, as_of=None) -> Printing | None:
        """The printing whose text the card plays with on ``as_of`` (default today): the
        newest released on or before that day (rule 1−2−1).

        Uses the prefetched ``printings`` (with their sets) when present.
        """
        from django.utils import timezone

        return newest(self.printings.all(), key=printing_key, as_of=as_of or timezone.localdate())

    @property
    def current_text(self) -> str:
        printing = self.newest_printing()
        return printing.text if printing else ""


class Printing(models.Model):
    card = models.ForeignKey(
        Card, on_delete=models.CASCADE, related_name="printings", verbose_name=_("card")
    )
    set = models.ForeignKey(
        CardSet, on_delete=models.PROTECT, related_name="printings", verbose_name=_("card set")
    )
    number = models.CharField(_("card number"), max_length=20, blank=True)
    rarity = models.CharField(_("rarity"), max_length=40, blank=True)
    text = models.TextField(_("card text"), blank=True)
    release_date = models.DateField(
        _("release date"),
        null=True,
        blank=True,
        help_text=_(
            "For a printing released on its own day, such as a promotional card; empty: the"
            " set's. Decides which text is in force (rule 1−2−1)."
        ),
    )

    class Meta:
        ordering = ["card", models.F("set__release_order").asc(nulls_first=True), "number"]
        verbose_name = _("printing")
        verbose_name_plural = _("printings")
        constraints = [
            models.UniqueConstraint(
                fields=["card", "set", "number"], name="printing_unique_number"
            ),
        ]

    def __str__(self) -> str:
        label = f"{self.card} ({self.set.code}"
        return f"{label} {self.number})" if self.number else f"{label})"


class ImportJob(TrackedJob):
    """A card file uploaded in the admin, imported by a Celery task (``total`` and ``done``
    count rows)."""

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="import_jobs", verbose_name=_("game")
    )
    filename = models.CharField(_("file name"), max_length=255)
    content = models.BinaryField(_("file content"))
    report = models.JSONField(_("report"), default=dict, blank=True)

    task_name = "cardpool.import_card_file"
    error_field = "report"

    class Meta(TrackedJob.Meta):
        verbose_name = _("card import")
        verbose_name_plural = _("card imports")

    def __str__(self) -> str:
        return self.filename

    def progress_text(self) -> str:
        return _("%(done)s of %(total)s rows checked") % {"done": self.done, "total": self.total}

    @classmethod
    def error_fields(cls, message: str) -> dict:
        """An error that is not the file's: the report's one problem (row 0)."""
        if not message:
            return {"report": {}}
        return {"report": {"errors": [{"row": 0, "field": "", "reason": message}]}}

    def error_text(self) -> str:
        return "; ".join(error["reason"] for error in self.report.get("errors", []))


class CardMerge(models.Model):
    """A card folded into another because both names are one card (rules 1−2−1, 4−2−6),
    kept so that the admin shows what was merged and what moved (see cardpool.merging)."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="card_merges", verbose_name=_("game")
    )
    card = models.ForeignKey(
        Card,
        on_delete=models.CASCADE,
        related_name="merges",
        verbose_name=_("kept card"),
    )
    merged_name = models.CharField(_("merged name"), max_length=200)
    merged_card_id = models.PositiveIntegerField(_("merged card id"), null=True, blank=True)
    moved = models.JSONField(_("moved"), default=dict, blank=True)
    merged_at = models.DateTimeField(_("merged at"), auto_now_add=True)

    class Meta:
        ordering = ["-merged_at", "-id"]
        verbose_name = _("merged card name")
        verbose_name_plural = _("merged card names")

    def __str__(self) -> str:
        return f"{self.merged_name} → {self.card}"
