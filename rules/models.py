"""Rules documents, their sections, rulings and errata, with the history of every change.

The models only hold data. Writes go through :mod:`rules.services` (which keeps the
search keys and the history up to date); reads that span relations live in
:mod:`rules.selectors`.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from cardpool.models import Card, Game

from .history import changed_fields

# The series of a game's official rulebook; others (a wiki summary…) get their own.
MAIN_SERIES = "rules"


class RulesDocument(models.Model):
    """One imported version of a game's rulebook (or rules page).

    Versions of one document share a ``series``; each series of a game has one current
    version. A game may have several series, e.g. the official rulebook and a players'
    wiki summary.
    """

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="rules_documents", verbose_name=_("game")
    )
    series = models.SlugField(
        _("series"),
        max_length=40,
        default=MAIN_SERIES,
        help_text=_("Versions of one document share a series: rules (the rulebook), wiki…"),
    )
    title = models.CharField(_("title"), max_length=300)
    version = models.CharField(_("version"), max_length=100)
    date = models.DateField(_("date"), null=True, blank=True)
    imported_at = models.DateTimeField(_("imported"), auto_now_add=True)
    is_current = models.BooleanField(
        _("current"), default=True, help_text=_("The version judges see on the rules pages.")
    )
    style = models.CharField(_("document style"), max_length=20)
    source_name = models.CharField(_("file name"), max_length=255, blank=True)
    checksum = models.CharField(_("SHA-256 of the file"), max_length=64, editable=False)
    changes = models.JSONField(
        _("changes from the previous version"),
        default=dict,
        blank=True,
        help_text=_("Sections added, removed and changed compared with the version before."),
    )

    class Meta:
        ordering = ["game", "series", "-imported_at", "-id"]
        verbose_name = _("rules document")
        verbose_name_plural = _("rules documents")
        constraints = [
            models.UniqueConstraint(
                fields=["game", "series"],
                condition=models.Q(is_current=True),
                name="rules_one_current_document_per_series",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.version})"


class Section(models.Model):
    document = models.ForeignKey(
        RulesDocument,
        on_delete=models.CASCADE,
        related_name="sections",
        verbose_name=_("rules document"),
    )
    number = models.CharField(
        _("number"), max_length=40, blank=True, help_text=_("As printed, e.g. 4−3−8.")
    )
    # "4-3-8" whatever dash was printed; "" for unnumbered headings. Not unique: the
    # CrossOver rulebook prints 3−2−2 twice.
    number_key = models.CharField(max_length=40, blank=True, db_index=True, editable=False)
    title = models.CharField(_("title"), max_length=300)
    body = models.TextField(_("text"), blank=True)
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="children",
        verbose_name=_("parent section"),
    )
    order = models.PositiveIntegerField(_("position"), help_text=_("Position in the document."))
    level = models.PositiveSmallIntegerField(_("depth"), default=1)
    needs_review = models.BooleanField(
        _("needs review"),
        default=False,
        help_text=_("Something in the original looks wrong here; it was kept as printed."),
    )
    review_flags = models.JSONField(_("what looked odd"), default=list, blank=True, editable=False)
    review_note = models.TextField(_("review note"), blank=True)
    # Search keys (rules.text.search_key) for search, written by the services.
    search_title = models.CharField(max_length=300, blank=True, editable=False)
    search_text = models.TextField(blank=True, editable=False)

    class Meta:
        ordering = ["document", "order"]
        # A section of the rulebook (項), not a deck's section (main deck or sideboard).
        verbose_name = pgettext_lazy("rulebook", "section")
        verbose_name_plural = pgettext_lazy("rulebook", "sections")
        constraints = [
            models.UniqueConstraint(fields=["document", "order"], name="rules_section_order"),
        ]

    def __str__(self) -> str:
        return f"{self.number} {self.title}".strip()


class RulingStatus(models.TextChoices):
    OFFICIAL = "official", _("Official")
    COMMUNITY = "community", _("Community")
    SUPERSEDED = "superseded", _("Superseded")


class Ruling(models.Model):
    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="rulings", verbose_name=_("game")
    )
    question = models.TextField(_("question"))
    answer = models.TextField(_("answer"))
    cards = models.ManyToManyField(
        Card, blank=True, related_name="rulings", verbose_name=_("cards")
    )
    sections = models.ManyToManyField(
        Section, blank=True, related_name="rulings", verbose_name=_("sections")
    )
    source = models.CharField(
        _("source"), max_length=300, blank=True, help_text=_("Where the ruling was given.")
    )
    date = models.DateField(_("date"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=12, choices=RulingStatus.choices, default=RulingStatus.OFFICIAL
    )
    superseded_by = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="supersedes",
        verbose_name=_("superseded by"),
    )
    search_text = models.TextField(blank=True, editable=False)
    updated_at = models.DateTimeField(_("last changed"), auto_now=True)

    class Meta:
        ordering = ["game", "-date", "-id"]
        verbose_name = _("ruling")
        verbose_name_plural = _("rulings")
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(status=RulingStatus.SUPERSEDED, superseded_by__isnull=False)
                    | (
                        ~models.Q(status=RulingStatus.SUPERSEDED)
                        & models.Q(superseded_by__isnull=True)
                    )
                ),
                name="rules_ruling_superseded_has_successor",
            ),
        ]

    def __str__(self) -> str:
        question = " ".join(self.question.split())
        return question if len(question) <= 60 else f"{question[:59]}…"

    def clean(self):
        errors = {}
        if self.status == RulingStatus.SUPERSEDED and self.superseded_by_id is None:
            errors["superseded_by"] = _("Say which ruling replaces this one.")
        if self.superseded_by_id is not None and self.status != RulingStatus.SUPERSEDED:
            errors["status"] = _("A ruling replaced by another one has the status Superseded.")
        if self.superseded_by_id is not None and self.superseded_by_id == self.pk:
            errors["superseded_by"] = _("A ruling cannot replace itself.")
        elif (
            self.superseded_by_id is not None
            and self.game_id is not None
            and self.superseded_by.game_id != self.game_id
        ):
            errors["superseded_by"] = _("The replacing ruling must be for the same game.")
        if errors:
            raise ValidationError(errors)


class Erratum(models.Model):
    card = models.ForeignKey(
        Card, on_delete=models.PROTECT, related_name="errata", verbose_name=_("card")
    )
    date = models.DateField(_("date"))
    new_text = models.TextField(_("new text"))
    source = models.CharField(_("source"), max_length=300, blank=True)
    updated_at = models.DateTimeField(_("last changed"), auto_now=True)

    class Meta:
        ordering = ["card", "-date", "-id"]
        verbose_name = _("erratum")
        verbose_name_plural = _("errata")

    def __str__(self) -> str:
        return f"{self.card} ({self.date})"


class RevisionAction(models.TextChoices):
    CREATED = "created", _("Created")
    CHANGED = "changed", _("Changed")
    DELETED = "deleted", _("Deleted")


class Revision(models.Model):
    """Who changed what, when: the values before and after (``None`` when absent)."""

    action = models.CharField(_("action"), max_length=10, choices=RevisionAction.choices)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"), auto_now_add=True)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        # In the site's time zone, as the admin shows changed_at beside it.
        when = f"{timezone.localtime(self.changed_at):%Y-%m-%d %H:%M}" if self.changed_at else ""
        return f"{self.get_action_display()} #{self.object_id} {when}".strip()

    def changed_fields(self) -> list[str]:
        return changed_fields(self.before, self.after)


class RulingRevision(Revision):
    # Kept when the ruling is deleted; object_id still says which ruling it was.
    ruling = models.ForeignKey(
        Ruling,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="revisions",
        verbose_name=_("ruling"),
    )
    object_id = models.PositiveBigIntegerField(_("ruling id"))

    class Meta(Revision.Meta):
        verbose_name = _("ruling revision")
        verbose_name_plural = _("ruling revisions")


class ErratumRevision(Revision):
    erratum = models.ForeignKey(
        Erratum,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="revisions",
        verbose_name=_("erratum"),
    )
    object_id = models.PositiveBigIntegerField(_("erratum id"))

    class Meta(Revision.Meta):
        verbose_name = _("erratum revision")
        verbose_name_plural = _("erratum revisions")
