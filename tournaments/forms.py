"""Forms of the tournament pages. They only translate what the browser sends into the
arguments of ``tournaments.services``; every rule is checked there (and in the engine)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .engine.games import GameEnd

MAX_GAMES = 3

GAME_END_CHOICES = [
    ("", _("— not played —")),
    (GameEnd.HP_ZERO.value, _("A player's HP reached 0")),
    (GameEnd.DECK_EMPTY.value, _("A player's deck ran out")),
    (GameEnd.SIMULTANEOUS.value, _("Both at once (draw)")),
    (GameEnd.TIME.value, _("Time ran out")),
    (GameEnd.CONCESSION.value, _("A player conceded")),
]

CONCEDED_CHOICES = [
    ("", _("nobody")),
    ("1", pgettext_lazy("seat", "player 1")),
    ("2", pgettext_lazy("seat", "player 2")),
]


class RegisterForm(forms.Form):
    decklist = forms.CharField(
        label=_("Decklist"),
        widget=forms.Textarea(attrs={"rows": 14, "cols": 40}),
        help_text=_("One card per line, e.g. “4 森原 さとみ”. It is checked at once."),
    )


class ReportResultForm(forms.Form):
    """Up to three games, each as the engine reads it: how it ended, HP and cards left in
    the deck per player, and who conceded. Unused games stay "not played"."""

    expected_version = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, player1: str = "", player2: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.game_numbers = range(1, MAX_GAMES + 1)
        for number in self.game_numbers:
            self.fields[f"game{number}_end"] = forms.ChoiceField(
                label=_("Game %(number)s: how it ended") % {"number": number},
                choices=GAME_END_CHOICES,
                required=False,
            )
            for seat, name in ((1, player1), (2, player2)):
                self.fields[f"game{number}_hp{seat}"] = forms.IntegerField(
                    label=_("HP of %(name)s") % {"name": name}, min_value=0, required=False
                )
                self.fields[f"game{number}_deck{seat}"] = forms.IntegerField(
                    label=_("Cards left in the deck of %(name)s") % {"name": name},
                    min_value=0,
                    required=False,
                )
            self.fields[f"game{number}_conceded"] = forms.ChoiceField(
                label=_("Who conceded"), choices=CONCEDED_CHOICES, required=False
            )

    def game_rows(self):
        """The fields of each game, for the template."""
        return [
            {
                "number": number,
                "end": self[f"game{number}_end"],
                "hp": (self[f"game{number}_hp1"], self[f"game{number}_hp2"]),
                "deck": (self[f"game{number}_deck1"], self[f"game{number}_deck2"]),
                "conceded": self[f"game{number}_conceded"],
            }
            for number in self.game_numbers
        ]

    def clean(self):
        data = super().clean()
        games = []
        for number in self.game_numbers:
            end = data.get(f"game{number}_end")
            if not end:
                continue
            game = {"end": end}
            hp = [data.get(f"game{number}_hp1"), data.get(f"game{number}_hp2")]
            if hp != [None, None]:
                game["hp"] = hp
            deck = [data.get(f"game{number}_deck1"), data.get(f"game{number}_deck2")]
            if deck != [None, None]:
                game["deck"] = deck
            conceded = data.get(f"game{number}_conceded")
            if conceded:
                game["conceded"] = [conceded == "1", conceded == "2"]
            games.append(game)
        if not games:
            raise forms.ValidationError(_("Enter at least one game."))
        data["games"] = games
        return data


class VersionForm(forms.Form):
    """Confirming a reported result: the version of the match the player saw."""

    expected_version = forms.IntegerField(widget=forms.HiddenInput)


class DisputeForm(VersionForm):
    reason = forms.CharField(
        label=_("What is wrong with the reported result?"),
        widget=forms.Textarea(attrs={"rows": 3}),
    )
