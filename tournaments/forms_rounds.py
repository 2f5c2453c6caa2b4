"""Forms of the staff round and result pages. They only translate what the browser sends
into the arguments of ``tournaments.services`` (re-pairing, pairing edits, result
overrides); every rule is checked there."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .forms import ReportResultForm

BYE = "bye"
# Most new tables one edit may add (each press of "Add a table" adds one row).
MAX_NEW_TABLES = 20


class ReasonForm(forms.Form):
    """A change that needs a reason and nothing else (re-pairing a round)."""

    reason = forms.CharField(label=_("Reason"), max_length=500, strip=True)


class EditPairingsForm(forms.Form):
    """Every table of an unpublished round as two selects (player 1; player 2 or "bye")
    and a "remove" box, plus ``new_tables`` empty rows for tables to add. ``cleaned_data
    ["tables"]`` is the ``tables`` argument of :func:`tournaments.services.edit_pairing`:
    table → (player 1 id, player 2 id or None) or None to remove it."""

    reason = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 50}),
    )
    allow_rematch = forms.BooleanField(label=_("Allow rematches"), required=False)
    new_tables = forms.IntegerField(
        widget=forms.HiddenInput, min_value=0, max_value=MAX_NEW_TABLES, initial=0
    )
    # The tables as this page showed them: a save over someone else's change is refused.
    loaded = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(
        self,
        *args,
        tables: list[tuple[int, int, int | None]],
        players: list[tuple[int, str]],
        new_tables: int = 0,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.existing = [table for table, _p1, _p2 in tables]
        last = max(self.existing, default=0)
        self.added = list(range(last + 1, last + 1 + new_tables))
        self.fields["new_tables"].initial = new_tables
        player_choices = [(str(pk), label) for pk, label in players]
        for table, player1, player2 in tables:
            self._add_row(table, player_choices, player1, player2, new=False)
        for table in self.added:
            self._add_row(table, player_choices, None, None, new=True)

    def _add_row(self, table, choices, player1, player2, *, new: bool) -> None:
        prefix = f"table{table}"
        self.fields[f"{prefix}_player1"] = forms.ChoiceField(
            label=_("Table %(table)s: player 1") % {"table": table},
            choices=[("", _("— nobody —") if new else "—"), *choices],
            required=False,
            initial=str(player1) if player1 is not None else "",
        )
        self.fields[f"{prefix}_player2"] = forms.ChoiceField(
            label=_("Table %(table)s: player 2") % {"table": table},
            choices=[(BYE, _("bye")), *choices],
            required=False,
            initial=str(player2) if player2 is not None else BYE,
        )
        if not new:
            self.fields[f"{prefix}_remove"] = forms.BooleanField(
                label=_("Remove table %(table)s") % {"table": table}, required=False
            )

    def rows(self) -> list[dict]:
        """The fields of each table, for the template."""
        return [
            {
                "table": table,
                "new": table in self.added,
                "player1": self[f"table{table}_player1"],
                "player2": self[f"table{table}_player2"],
                "remove": self[f"table{table}_remove"] if table not in self.added else None,
            }
            for table in [*self.existing, *self.added]
        ]

    def clean(self):
        data = super().clean()
        tables: dict[int, tuple[int, int | None] | None] = {}
        for table in [*self.existing, *self.added]:
            prefix = f"table{table}"
            player1 = data.get(f"{prefix}_player1") or ""
            player2 = data.get(f"{prefix}_player2") or BYE
            if data.get(f"{prefix}_remove"):
                tables[table] = None
                continue
            if not player1:
                if table in self.added and player2 == BYE:
                    continue  # an unused new row
                self.add_error(
                    f"{prefix}_player1",
                    _("Table %(table)s: choose player 1 (or tick “Remove”).") % {"table": table}
                    if table not in self.added
                    else _("Table %(table)s: choose player 1.") % {"table": table},
                )
                continue
            if player1 == player2:
                self.add_error(
                    f"{prefix}_player2",
                    _("Table %(table)s: a player cannot play against themself.") % {"table": table},
                )
                continue
            tables[table] = (int(player1), None if player2 == BYE else int(player2))
        data["tables"] = tables
        return data


def record_choices(player1: str, player2: str, *, winner_required: bool) -> list[tuple]:
    """Every match record a judge may enter directly, from player 1's side, labelled with
    who won (rulebook 4−1−1: at most two game wins, three games). A top-cut match needs a
    winner, so draws are left out there."""
    wins_for_1 = ["2-0", "2-1", "2-0-1", "1-0", "1-0-1", "1-0-2"]
    wins_for_2 = ["0-2", "1-2", "0-2-1", "0-1", "0-1-1", "0-1-2"]
    draws = ["1-1-1", "1-1", "0-0-1", "0-0-2", "0-0-3"]
    choices = [("", _("— from the games below —"))]
    choices += [
        (r, _("%(record)s: %(name)s wins") % {"record": r, "name": player1}) for r in wins_for_1
    ]
    choices += [
        (r, _("%(record)s: %(name)s wins") % {"record": r, "name": player2}) for r in wins_for_2
    ]
    if not winner_required:
        choices += [(r, _("%(record)s: draw") % {"record": r}) for r in draws]
    return choices


class OverrideResultForm(ReportResultForm):
    """A judge's result: the games (as a player reports them) or a match record picked
    directly, and the reason. ``cleaned_data`` has ``games`` or ``record`` (the other is
    None), ``reason`` and ``expected_version``."""

    def __init__(
        self, *args, player1: str = "", player2: str = "", winner_required: bool = False, **kwargs
    ) -> None:
        super().__init__(*args, player1=player1, player2=player2, **kwargs)
        self.fields["record"] = forms.ChoiceField(
            label=_("Match record"),
            choices=record_choices(player1, player2, winner_required=winner_required),
            required=False,
            help_text=_("From the side of %(name)s (player 1).") % {"name": player1},
        )
        self.fields["reason"] = forms.CharField(
            label=_("Reason"),
            max_length=1000,
            widget=forms.Textarea(attrs={"rows": 2, "cols": 50}),
        )

    def clean(self):
        record = self.cleaned_data.get("record") or None
        try:
            games = super().clean()["games"]
        except forms.ValidationError:  # no game entered
            games = None
        data = self.cleaned_data
        if record is None and games is None:
            raise forms.ValidationError(_("Enter the games or pick a match record."))
        if record is not None and games is not None:
            raise forms.ValidationError(_("Enter the games or pick a match record, not both."))
        data["record"] = record
        data["games"] = games
        return data


def encode_tables(tables: dict[int, tuple[int, int | None]]) -> str:
    """The round's tables as one hidden field: ``"1:12-14,2:15-"`` (a bye has no player 2)."""
    return ",".join(
        f"{table}:{p1}-{'' if p2 is None else p2}" for table, (p1, p2) in sorted(tables.items())
    )


def decode_tables(text: str) -> dict[int, tuple[int, int | None]] | None:
    """Read :func:`encode_tables`' text back; None when it is missing or garbled."""
    tables = {}
    try:
        for item in filter(None, (text or "").split(",")):
            table, players = item.split(":")
            player1, player2 = players.split("-")
            tables[int(table)] = (int(player1), int(player2) if player2 else None)
    except ValueError:
        return None
    return tables or None
