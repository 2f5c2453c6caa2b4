"""Submitted decklists resolved to their cards, for the metagame and the decklist exports.

A decklist is stored as the text the player submitted (``『桜庭ひかる』`` and all). This
module parses many of them at once and finds their cards with the legality engine's own
rules (:func:`decks.engine.check.resolve`: name identity 4−2−6, brackets, printing
qualifiers), loading only the cards the lists name: two queries whatever the number of
decklists.
"""

from __future__ import annotations

from collections.abc import Sequence

from cardpool.models import Card, CardSet, Printing
from cardpool.names import name_key
from cardpool.printings import newest, printing_key

from .engine.check import resolve
from .engine.model import CardInfo, CardPool, FormatRules, PrintingInfo
from .engine.parser import parse_decklist
from .metagame import CardLine

# The card pool has one name per card (the printed, Japanese one); an English name is
# used when the model has a field for it.
HAS_ENGLISH_NAME = any(f.name == "name_en" for f in Card._meta.get_fields())
NO_RULES = FormatRules(slug="", name="", game="")


def _candidate_keys(parsed) -> set[str]:
    keys: set[str] = set()
    for line in parsed.lines:
        readings = [(line.name, line.qualifier)]
        if line.bare_count is not None:
            # "スワティ 31": the name without the number, if that is the card (resolve decides).
            _count, name, qualifier = line.bare_count
            readings.append((name, qualifier))
        for name, qualifier in readings:
            keys.add(name_key(name))
            if qualifier is not None:
                keys.add(name_key(f"{name}({qualifier})"))
    return keys


def resolve_decklists(
    texts: Sequence[str], *, game_id: int | None = None, format_id: int | None = None
) -> list[list[CardLine]]:
    """Each text's lines as :class:`CardLine` values (in the list's order): the card's
    official name, type, element, and the printing's set and number (the named printing,
    else the newest one); a line naming no known card keeps its typed name and
    ``card_id`` None. The cards are those of ``game_id``, or of ``format_id``'s game."""
    parsed = [parse_decklist(text or "") for text in texts]
    keys = set().union(*(_candidate_keys(p) for p in parsed)) if parsed else set()
    if not keys:
        return [[] for _ in parsed]
    fields = ["id", "name", "name_key", "card_type", "element", "unlimited"]
    if HAS_ENGLISH_NAME:
        fields.append("name_en")
    cards = Card.objects.filter(name_key__in=keys)
    if format_id is not None:
        cards = cards.filter(game__formats__id=format_id)
    else:
        cards = cards.filter(game_id=game_id)
    rows = list(cards.values(*fields))
    printings: dict[int, list[Printing]] = {}
    sets: dict[int, CardSet] = {}
    for printing in (
        Printing.objects.filter(card_id__in=[row["id"] for row in rows])
        .select_related("set")
        .order_by("pk")
    ):
        sets[printing.set_id] = printing.set
        printings.setdefault(printing.card_id, []).append(printing)
    infos: dict[str, CardInfo] = {}
    by_key: dict[str, dict] = {}
    for row in rows:
        infos[row["name_key"]] = CardInfo(
            key=row["name_key"],
            name=row["name"],
            card_type=row["card_type"],
            element=row["element"],
            unlimited=row["unlimited"],
            printings=tuple(
                PrintingInfo(p.set.code, p.set.name, p.set.is_beta)
                for p in printings.get(row["id"], ())
            ),
        )
        by_key[row["name_key"]] = row
    # Only the sets the named cards are printed in: a qualifier naming another set is an
    # unknown printing of the card either way.
    labels = {}
    for card_set in sets.values():
        for label in (card_set.code, card_set.name, *card_set.aliases):
            labels.setdefault(label, card_set.code)
    pool = CardPool(infos.values(), labels)

    resolved: list[list[CardLine]] = []
    for one in parsed:
        entries, _problems = resolve(one, NO_RULES, pool)
        lines = []
        for entry in entries:
            row = by_key.get(entry.card.key)
            if row is None:
                lines.append(CardLine(None, entry.card.name, entry.count, entry.section))
                continue
            # A printing the pool does not know (already reported by the check) names none.
            printing = (
                None
                if entry.unresolved
                else _printing(printings.get(row["id"], []), entry.set_code)
            )
            lines.append(
                CardLine(
                    card_id=row["id"],
                    name=row["name"],
                    name_en=row.get("name_en") or "",
                    count=entry.count,
                    section=entry.section,
                    card_type=row["card_type"],
                    elements=(row["element"],) if row["element"] else (),
                    set_code=printing.set.code if printing else "",
                    number=printing.number if printing else "",
                )
            )
        resolved.append(lines)
    return resolved


def _printing(printings: list[Printing], set_code: str | None) -> Printing | None:
    if set_code is not None:
        named = [p for p in printings if p.set.code == set_code]
        return named[0] if named else None
    return newest(printings, key=printing_key)
