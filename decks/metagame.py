"""The metagame of a set of decklists: what was played, how often, by whom at the top.

Plain Python without database access: the Django layer (``decks.metagame_data``) resolves
each submitted decklist to its cards and hands them here as :class:`Decklist` values.

Definitions (all counts exact integers; shares are :class:`fractions.Fraction` so tests
and pages can round them as they like, :func:`percent` rounds half up to one decimal):

* A deck **plays** an element (or card type) when at least one card of its main deck has
  it. "Decks" shares divide by the number of decks; "copies" shares divide by the number
  of main-deck copies of resolved cards.
* A deck's **elements** are the elements it plays, in the order 火 水 風 地 空; a deck
  with no element card has the empty combination.
* **Most-played cards** count each card (by its id) in one section: the decks playing it,
  their share of all decks, the total copies, and the average copies among the decks that
  play it. Ties are broken by total copies, then by name.
* Lines whose card could not be resolved (``card_id`` None) are left out of every card,
  element and type figure and counted in :attr:`Metagame.unresolved_lines`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

MAIN = "main"
SIDE = "side"
ELEMENT_ORDER = "火水風地空"
UNKNOWN_TYPE = ""


@dataclass(frozen=True)
class CardLine:
    """One resolved line of a decklist."""

    card_id: int | None  # None: the line names no known card
    name: str  # the card's official name (as printed, Japanese)
    count: int
    section: str = MAIN
    name_en: str = ""  # the English name when the card pool has one
    card_type: str = UNKNOWN_TYPE
    elements: tuple[str, ...] = ()
    set_code: str = ""
    number: str = ""


@dataclass(frozen=True)
class Decklist:
    player: str
    lines: tuple[CardLine, ...]
    placing: int | None = None
    top_cut: bool = False
    event: str = ""  # the event's name, for metagames across events
    top_cut_result: str = ""

    def main_lines(self) -> list[CardLine]:
        return [line for line in self.lines if line.section == MAIN and line.card_id is not None]

    @property
    def main_count(self) -> int:
        return sum(line.count for line in self.lines if line.section == MAIN)

    @property
    def side_count(self) -> int:
        return sum(line.count for line in self.lines if line.section == SIDE)

    @property
    def elements(self) -> str:
        """The elements the main deck plays, in rulebook order (e.g. ``"火風"``)."""
        played = {element for line in self.main_lines() for element in line.elements}
        return element_key(played)

    def copies_by_type(self) -> dict[str, int]:
        found: Counter[str] = Counter()
        for line in self.main_lines():
            found[line.card_type] += line.count
        return dict(found)


def element_key(elements: Iterable[str]) -> str:
    elements = set(elements)
    known = "".join(e for e in ELEMENT_ORDER if e in elements)
    return known + "".join(sorted(elements - set(ELEMENT_ORDER)))


def percent(share: Fraction) -> Decimal:
    """A share as a percentage rounded half up to one decimal (``Fraction(1, 3)`` → 33.3)."""
    value = Decimal(share.numerator * 100) / Decimal(share.denominator)
    return value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def ratio(part: int, whole: int) -> Fraction:
    return Fraction(part, whole) if whole else Fraction(0)


@dataclass(frozen=True)
class Share:
    """How many decks play ``key`` and how many main-deck copies have it."""

    key: str
    decks: int
    deck_share: Fraction
    copies: int
    copy_share: Fraction

    @property
    def deck_percent(self) -> Decimal:
        return percent(self.deck_share)

    @property
    def copy_percent(self) -> Decimal:
        return percent(self.copy_share)


@dataclass(frozen=True)
class Combination:
    """Decks whose main deck plays exactly the elements ``key``."""

    key: str
    decks: int
    share: Fraction
    top_cut_decks: int = 0

    @property
    def percent(self) -> Decimal:
        return percent(self.share)


@dataclass(frozen=True)
class CardUsage:
    card_id: int
    name: str
    name_en: str
    card_type: str
    elements: tuple[str, ...]
    decks: int
    share: Fraction
    copies: int

    @property
    def average(self) -> Decimal:
        """Average copies among the decks that play the card, two decimals."""
        value = Decimal(self.copies) / Decimal(self.decks)
        return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)

    @property
    def percent(self) -> Decimal:
        return percent(self.share)


@dataclass(frozen=True)
class TopCutDeck:
    player: str
    event: str
    placing: int | None
    top_cut_result: str
    elements: str
    main_count: int
    side_count: int
    copies_by_type: dict[str, int]
    # The deck's cards with the most copies (main deck), most first.
    key_cards: tuple[CardLine, ...]


@dataclass(frozen=True)
class Metagame:
    decks: int
    main_copies: int
    elements: tuple[Share, ...]
    card_types: tuple[Share, ...]
    combinations: tuple[Combination, ...]
    main_cards: tuple[CardUsage, ...]
    side_cards: tuple[CardUsage, ...]
    top_cut: tuple[TopCutDeck, ...]
    unresolved_lines: int = 0
    events: tuple[str, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return self.decks == 0


def _shares(
    decks: Sequence[Decklist], keys_of, order: Sequence[str], total_copies: int
) -> tuple[Share, ...]:
    playing: Counter[str] = Counter()
    copies: Counter[str] = Counter()
    for deck in decks:
        seen: set[str] = set()
        for line in deck.main_lines():
            for key in keys_of(line):
                copies[key] += line.count
                seen.add(key)
        playing.update(seen)
    ranked = sorted(
        playing,
        key=lambda key: (
            -playing[key],
            -copies[key],
            order.index(key) if key in order else len(order),
            key,
        ),
    )
    return tuple(
        Share(
            key,
            playing[key],
            ratio(playing[key], len(decks)),
            copies[key],
            ratio(copies[key], total_copies),
        )
        for key in ranked
    )


def _usage(decks: Sequence[Decklist], section: str) -> tuple[CardUsage, ...]:
    playing: Counter[int] = Counter()
    copies: Counter[int] = Counter()
    cards: dict[int, CardLine] = {}
    for deck in decks:
        seen: set[int] = set()
        for line in deck.lines:
            if line.section != section or line.card_id is None:
                continue
            cards.setdefault(line.card_id, line)
            copies[line.card_id] += line.count
            seen.add(line.card_id)
        playing.update(seen)
    ranked = sorted(playing, key=lambda cid: (-playing[cid], -copies[cid], cards[cid].name, cid))
    return tuple(
        CardUsage(
            card_id=cid,
            name=cards[cid].name,
            name_en=cards[cid].name_en,
            card_type=cards[cid].card_type,
            elements=cards[cid].elements,
            decks=playing[cid],
            share=ratio(playing[cid], len(decks)),
            copies=copies[cid],
        )
        for cid in ranked
    )


def _key_cards(deck: Decklist, limit: int) -> tuple[CardLine, ...]:
    totals: dict[int, int] = defaultdict(int)
    first: dict[int, CardLine] = {}
    for line in deck.main_lines():
        totals[line.card_id] += line.count
        first.setdefault(line.card_id, line)
    ranked = sorted(totals, key=lambda cid: (-totals[cid], first[cid].name))
    return tuple(
        CardLine(
            card_id=cid,
            name=first[cid].name,
            name_en=first[cid].name_en,
            count=totals[cid],
            card_type=first[cid].card_type,
            elements=first[cid].elements,
        )
        for cid in ranked[:limit]
    )


def metagame(decks: Iterable[Decklist], *, key_cards: int = 3) -> Metagame:
    """The figures above for ``decks``."""
    decks = list(decks)
    total_copies = sum(line.count for deck in decks for line in deck.main_lines())
    elements = _shares(decks, lambda line: line.elements, ELEMENT_ORDER, total_copies)
    card_types = _shares(decks, lambda line: (line.card_type,), (), total_copies)

    combos: Counter[str] = Counter()
    combos_top: Counter[str] = Counter()
    for deck in decks:
        combos[deck.elements] += 1
        if deck.top_cut:
            combos_top[deck.elements] += 1
    combinations = tuple(
        Combination(key, combos[key], ratio(combos[key], len(decks)), combos_top[key])
        for key in sorted(combos, key=lambda key: (-combos[key], len(key), element_key(key), key))
    )

    top = sorted(
        (deck for deck in decks if deck.top_cut),
        key=lambda deck: (
            deck.placing is None,
            deck.placing or 0,
            deck.event,
            deck.player,
        ),
    )
    top_cut = tuple(
        TopCutDeck(
            player=deck.player,
            event=deck.event,
            placing=deck.placing,
            top_cut_result=deck.top_cut_result,
            elements=deck.elements,
            main_count=deck.main_count,
            side_count=deck.side_count,
            copies_by_type=deck.copies_by_type(),
            key_cards=_key_cards(deck, key_cards),
        )
        for deck in top
    )
    unresolved = sum(1 for deck in decks for line in deck.lines if line.card_id is None)
    events = tuple(dict.fromkeys(deck.event for deck in decks if deck.event))
    return Metagame(
        decks=len(decks),
        main_copies=total_copies,
        elements=elements,
        card_types=card_types,
        combinations=combinations,
        main_cards=_usage(decks, MAIN),
        side_cards=_usage(decks, SIDE),
        top_cut=top_cut,
        unresolved_lines=unresolved,
        events=events,
    )
