"""The infraction list: the built-in entries (``builtin_infractions.json``), the penalty
suggested for a player (``engine.penalties`` over the models) and its reason in the
reader's language."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

from cardpool.models import Game

from .engine import penalties as engine
from .models import Infraction, InfractionCategory, Penalty, PenaltyKind, Registration

BUILTIN_FILE = Path(__file__).resolve().parent / "builtin_infractions.json"
FIELDS = (
    "category",
    "default_penalty",
    "upgrade",
    "upgrade_to",
    "repeat_scope",
    "name_ja",
    "name_en",
    "description_ja",
    "description_en",
)


def builtin_specs() -> dict[str, list[dict]]:
    """The shipped entries per game slug, in their order, each with its source."""
    data = json.loads(BUILTIN_FILE.read_text(encoding="utf-8"))
    specs = {}
    for slug, extra in data["games"].items():
        sources = extra.get("sources", {})
        entries = [*data["common"], *extra.get("extra", [])]
        specs[slug] = [{**entry, "source": sources.get(entry["code"], "")} for entry in entries]
    return specs


@transaction.atomic
def load_builtin_infractions() -> list[Infraction]:
    """Create the built-in infractions missing for the games that exist. An infraction
    that exists already (same game and code) is left as the organizers edited it, and one
    they deleted comes back. Returns the infractions created."""
    games = {game.slug: game for game in Game.objects.all()}
    created = []
    for slug, entries in builtin_specs().items():
        game = games.get(slug)
        if game is None:
            continue
        existing = set(Infraction.objects.filter(game=game).values_list("code", flat=True))
        for position, spec in enumerate(entries, start=1):
            if spec["code"] in existing:
                continue
            created.append(
                Infraction(
                    game=game,
                    code=spec["code"],
                    source=spec["source"],
                    builtin=True,
                    order=position * 10,
                    **{name: spec.get(name, "") for name in FIELDS},
                )
            )
    Infraction.objects.bulk_create(created)
    return created


def is_japanese() -> bool:
    """Whether names are shown in Japanese (the active language is Japanese)."""
    return (get_language() or "").startswith("ja")


def rule_of(infraction: Infraction) -> engine.InfractionRule:
    return engine.InfractionRule(
        code=infraction.code,
        category=infraction.category,
        default=engine.Kind(infraction.default_penalty),
        upgrade=engine.Upgrade(infraction.upgrade),
        upgrade_to=engine.Kind(infraction.upgrade_to) if infraction.upgrade_to else None,
        scope=engine.Scope(infraction.repeat_scope),
    )


def earlier_penalties(registration: Registration) -> list[engine.EarlierPenalty]:
    """The player's penalties in their event, as the engine counts them (one query)."""
    rows = Penalty.objects.filter(registration=registration).values_list(
        "infraction_ref__code", "infraction_ref__category", "kind"
    )
    return [
        engine.EarlierPenalty(code, category, engine.Kind(kind)) for code, category, kind in rows
    ]


@dataclass(frozen=True)
class Offer:
    """An infraction as offered to a judge for one player."""

    infraction: Infraction
    suggestion: engine.Suggestion

    @property
    def reason(self) -> str:
        return explain(self.infraction, self.suggestion)

    @property
    def kind_label(self) -> str:
        return str(PenaltyKind(self.suggestion.kind).label)


def earlier_from(penalties: Iterable[Penalty]) -> list[engine.EarlierPenalty]:
    """The same from penalties already loaded with their ``infraction_ref``."""
    return [
        engine.EarlierPenalty(
            p.infraction_ref.code if p.infraction_ref_id else None,
            p.infraction_ref.category if p.infraction_ref_id else None,
            engine.Kind(p.kind),
        )
        for p in penalties
    ]


def offers_for(
    registration: Registration,
    infractions: Iterable[Infraction],
    earlier: list[engine.EarlierPenalty] | None = None,
) -> dict[int, Offer]:
    """The suggested penalty of each infraction for this player, by infraction id
    (``earlier``: the player's penalties in the event, else one query for them)."""
    if earlier is None:
        earlier = earlier_penalties(registration)
    return {
        infraction.pk: Offer(infraction, engine.suggest_penalty(rule_of(infraction), earlier))
        for infraction in infractions
    }


def suggest_for(registration: Registration, infraction: Infraction) -> engine.Suggestion:
    return engine.suggest_penalty(rule_of(infraction), earlier_penalties(registration))


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th ... (「1回目」 in Japanese)."""
    if 10 <= number % 100 <= 20:
        text = pgettext("ordinal 11-20", "{}th")
    else:
        text = {
            1: pgettext("ordinal 1", "{}st"),
            2: pgettext("ordinal 2", "{}nd"),
            3: pgettext("ordinal 3", "{}rd"),
        }.get(number % 10) or pgettext("ordinal 0, 4-9", "{}th")
    return text.format(number)


def explain(infraction: Infraction, suggestion: engine.Suggestion) -> str:
    """Why this penalty is suggested, for the judge: empty for a first offence."""
    if suggestion.repeat == 1:
        return ""
    values = {
        "ordinal": ordinal(suggestion.repeat),
        "name": infraction.name,
        "category": InfractionCategory(infraction.category).label,
        "default": PenaltyKind(suggestion.default).label,
        "suggested": PenaltyKind(suggestion.kind).label,
    }
    if suggestion.scope == engine.Scope.CATEGORY:
        offence = _("%(ordinal)s penalty for “%(category)s” in this event") % values
    else:
        offence = _("%(ordinal)s “%(name)s” in this event") % values
    if suggestion.upgraded:
        return _("%(offence)s: upgraded from %(default)s to %(suggested)s.") % {
            **values,
            "offence": offence,
        }
    return _("%(offence)s: no upgrade, %(suggested)s.") % {**values, "offence": offence}


def suggestion_text(offer: Offer) -> str:
    """ "Suggested penalty: Game loss." and, for a repeat, why."""
    text = _("Suggested penalty: %(penalty)s.") % {
        "penalty": PenaltyKind(offer.suggestion.kind).label
    }
    reason = offer.reason
    return f"{text} {reason}" if reason else text


def grouped_choices(infractions: Iterable[Infraction]) -> list[tuple[str, list[tuple[int, str]]]]:
    """Select choices grouped by category (in the categories' order), each labelled with
    its default penalty: ``[(category label, [(id, "Slow play — Warning"), ...]), ...]``."""
    groups: dict[str, list[tuple[int, str]]] = {value: [] for value in InfractionCategory.values}
    for infraction in infractions:
        label = _("%(name)s — %(penalty)s") % {
            "name": infraction.name,
            "penalty": PenaltyKind(infraction.default_penalty).label,
        }
        groups.setdefault(infraction.category, []).append((infraction.pk, label))
    return [
        (str(InfractionCategory(value).label), choices)
        for value, choices in groups.items()
        if choices
    ]


def active_for_event(event) -> list[Infraction]:
    """The infractions a judge may pick at this event (its format's game), in order
    (one query)."""
    return list(
        Infraction.objects.filter(game__formats=event.format_id, active=True).order_by(
            "order", "id"
        )
    )


def find(event, code: str) -> Infraction | None:
    """The infraction ``code`` of the event's game's list (active or not), or None."""
    return Infraction.objects.filter(game__formats=event.format_id, code=code).first()
