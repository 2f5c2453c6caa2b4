"""The admin of games: the name and how the game's games end (HP and its maximum, losing
conditions, time-out tiebreak, with the source of each rule). Result entry checks reported
games against these values (``tournaments.services.results.game_end_rules``); the model's
``clean`` refuses contradictory combinations field by field."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from .models import Game


class GameAdminForm(forms.ModelForm):
    class Meta:
        model = Game
        fields = [
            "name",
            "slug",
            "hp_tracked",
            "max_hp",
            "hp_zero_loses",
            "deck_out",
            "time_tiebreak",
            "end_rules_sources",
        ]
        widgets = {
            "end_rules_sources": forms.Textarea(attrs={"rows": 6, "cols": 60}),
        }


if admin.site.is_registered(Game):
    admin.site.unregister(Game)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    form = GameAdminForm
    list_display = ["name", "slug", "hp_tracked", "max_hp", "deck_out", "time_tiebreak"]
    search_fields = ["name", "slug"]
    fieldsets = [
        (None, {"fields": ["name", "slug"]}),
        (
            _("How a game ends"),
            {
                "fields": [
                    "hp_tracked",
                    "max_hp",
                    "hp_zero_loses",
                    "deck_out",
                    "time_tiebreak",
                    "end_rules_sources",
                ],
                "description": _(
                    "Reported results are checked against these rules. Cite the game's "
                    "document and section for each rule, or write “assumption: …” where "
                    "the documents say nothing."
                ),
            },
        ),
    ]
