"""The data the legality checker works on: formats, ban entries, the card pool."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from rapidfuzz import fuzz, process

from cardpool.names import is_common, name_key, search_key

MAIN = "main"
SIDE = "side"
# Characters of an unknown name compared with the pool's names for suggestions.
SUGGEST_QUERY_CHARS = 60


@dataclass(frozen=True)
class BanEntry:
    """A card name, or one printing of it (``set_code``), that may not be played from
    ``effective_from`` (inclusive) until ``effective_until`` (exclusive); either may be
    open-ended."""

    card_key: str
    set_code: str | None = None
    effective_from: dt.date | None = None
    effective_until: dt.date | None = None
    note: str = ""

    def in_force(self, as_of: dt.date) -> bool:
        if self.effective_from is not None and as_of < self.effective_from:
            return False
        return not (self.effective_until is not None and as_of >= self.effective_until)

    def covers(self, set_code: str | None) -> bool:
        return self.set_code is None or self.set_code == set_code


@dataclass(frozen=True)
class FormatRules:
    """A format as data. Every limit is a parameter; ``None`` switches a check off."""

    slug: str
    name: str
    game: str
    version: int = 1
    min_deck_size: int | None = None
    max_deck_size: int | None = None
    copy_limit: int | None = None
    # Whether the format honours a card's "any number of copies" mark (the other games'
    # per-format rule). With exempt_card_type the mark counts only for a card whose rarity
    # the pool does not record: it cannot make a card of another rarity exempt.
    exempt_unlimited: bool = True
    # When set, the exemption is derived: a card of this type printed as a common may be
    # played in any number, whatever its mark says (rule 1−2−3 exempts common navigators
    # only: "NAVIGATOR"); a card of another type never is.
    exempt_card_type: str | None = None
    # A sideboard holds 0 cards, or between sideboard_min and sideboard_max; max 0 = none.
    sideboard_min: int = 1
    sideboard_max: int = 0
    # None: every set is legal; otherwise the set codes whose printings may be played.
    legal_sets: frozenset[str] | None = None
    # Set code -> the first day that set's printings may be played (its release date, or a
    # date the format gives); a listed set missing here is legal on any day.
    legal_from: Mapping[str, dt.date] = field(default_factory=dict)
    # Names (keys) that share one copy limit although they are different cards.
    copy_groups: tuple[frozenset[str], ...] = ()
    bans: tuple[BanEntry, ...] = ()
    # AsuraSystem-style "leader": exactly leader_count cards of this type sit beside the
    # deck, and the deck size must lie inside the leader's printed range.
    leader_type: str | None = None
    leader_count: int = 1
    # Rule section cited for each violation code, e.g. {"TOO_MANY_COPIES": "1−2−3"}.
    rule_sections: Mapping[str, str] = field(default_factory=dict)

    # Cache of bans_in_force(), filled on first use for each date. Not an __init__ argument,
    # so dataclasses.replace() (e.g. with other bans) starts a fresh cache instead of
    # sharing this one.
    _bans_on: dict = field(default_factory=dict, init=False, compare=False, repr=False)
    _legal_on: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def section(self, code: str) -> str:
        return self.rule_sections.get(code, "")

    def bans_in_force(self, as_of: dt.date) -> dict[str, tuple[BanEntry, ...]]:
        """Card key -> the ban entries in force on ``as_of``."""
        found = self._bans_on.get(as_of)
        if found is None:
            grouped: dict[str, list[BanEntry]] = {}
            for ban in self.bans:
                if ban.in_force(as_of):
                    grouped.setdefault(ban.card_key, []).append(ban)
            found = self._bans_on[as_of] = {key: tuple(v) for key, v in grouped.items()}
        return found

    def legal_sets_on(self, as_of: dt.date) -> frozenset[str] | None:
        """The set codes whose printings may be played on ``as_of`` (None: every set)."""
        if self.legal_sets is None or not self.legal_from:
            return self.legal_sets
        found = self._legal_on.get(as_of)
        if found is None:
            legal_from = self.legal_from
            found = self._legal_on[as_of] = frozenset(
                code
                for code in self.legal_sets
                if code not in legal_from or legal_from[code] <= as_of
            )
        return found

    def exempt(self, card: CardInfo, set_code: str | None = None) -> bool:
        """Whether ``card`` may be played in any number (rule 1−2−3). With
        ``exempt_card_type``: a card of that type printed as a common (in the printing
        ``set_code`` when the line names one whose rarity is recorded); where the pool
        records no rarity for it, its mark decides (if ``exempt_unlimited``). Without: its
        mark (if ``exempt_unlimited``)."""
        if self.exempt_card_type is None:
            return self.exempt_unlimited and card.unlimited
        if card.card_type != self.exempt_card_type:
            return False
        common = card.common_in(set_code)
        if common is None:
            return self.exempt_unlimited and card.unlimited
        return common

    def rarity_unknown(self, card: CardInfo, set_code: str | None = None) -> bool:
        """Whether ``card`` is of ``exempt_card_type`` with no rarity recorded and not
        exempt by its mark: copies over the limit are for a judge to check (the printed
        rarity decides, rule 1−2−3), not an error the incomplete pool makes."""
        return (
            self.exempt_card_type is not None
            and card.card_type == self.exempt_card_type
            and card.common_in(set_code) is None
            and not self.exempt(card, set_code)
        )


@dataclass(frozen=True)
class PrintingInfo:
    set_code: str
    set_name: str = ""
    is_beta: bool = False
    # The printing's own release date (a promotional card given out on a day), where
    # known: before it the printing does not exist (rule 1−2−1), as a set before its date.
    release_date: dt.date | None = None
    rarity: str = ""


@dataclass(frozen=True)
class CardInfo:
    key: str
    name: str
    card_type: str = ""
    element: str = ""
    unlimited: bool = False
    printings: tuple[PrintingInfo, ...] = ()
    deck_size_min: int | None = None
    deck_size_max: int | None = None

    @cached_property
    def set_codes(self) -> frozenset[str]:
        return frozenset(printing.set_code for printing in self.printings)

    @cached_property
    def dated(self) -> bool:
        """Whether some printing carries its own release date."""
        return any(printing.release_date is not None for printing in self.printings)

    @cached_property
    def common(self) -> bool | None:
        """Whether the card is printed as a common (rule 1−2−3): True when a printing's
        rarity is a common one, False when rarities are recorded and none is, None when
        the pool records no rarity."""
        rarities = [printing.rarity for printing in self.printings if printing.rarity]
        if not rarities:
            return None
        return any(is_common(rarity) for rarity in rarities)

    def common_in(self, set_code: str | None) -> bool | None:
        """:attr:`common` for the copies of the printing ``set_code`` (a line that names
        one): a promotional printing of a common card is not a common. Without a printing,
        or when the named one has no rarity recorded, the card's."""
        if set_code is not None:
            rarities = [p.rarity for p in self.printings if p.set_code == set_code and p.rarity]
            if rarities:
                return any(is_common(rarity) for rarity in rarities)
        return self.common

    def printing(self, set_code: str) -> PrintingInfo | None:
        for printing in self.printings:
            if printing.set_code == set_code:
                return printing
        return None


class CardPool:
    """Cards of one game, found by name (rule 4−2−6 identity) with fuzzy suggestions."""

    def __init__(self, cards: Iterable[CardInfo], set_labels: Mapping[str, str] | None = None):
        self._cards: dict[str, CardInfo] = {card.key: card for card in cards}
        # search-folded set code/name/alias -> set code
        self._sets = {search_key(label): code for label, code in (set_labels or {}).items()}
        # Card names and their folded forms, built on the first suggestion: folding every
        # name again for each unknown line made suggestions cost lines x pool (issue #15).
        self._choices: list[str] | None = None
        self._folded: list[str] = []

    def __len__(self) -> int:
        return len(self._cards)

    def lookup(self, name: str) -> CardInfo | None:
        """The card ``name`` is, in any bracket, spacing or width form (one key per card)."""
        return self._cards.get(name_key(name))

    def resolve_set(self, label: str) -> str | None:
        return self._sets.get(search_key(label))

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """Up to ``limit`` card names that look like ``name`` (best first). Only the first
        ``SUGGEST_QUERY_CHARS`` characters of ``name`` (folded) are compared: printed names
        are far shorter, and a long query would make each comparison cost its length."""
        if self._choices is None:
            choices = [card.name for card in self._cards.values()]
            # _folded first: a thread that sees _choices set finds _folded ready.
            self._folded = [search_key(choice) for choice in choices]
            self._choices = choices
        query = search_key(name[: SUGGEST_QUERY_CHARS * 2])[:SUGGEST_QUERY_CHARS]
        if not query:
            return []
        matches = process.extract(
            query, self._folded, scorer=fuzz.WRatio, processor=None, limit=limit, score_cutoff=50
        )
        return [self._choices[index] for _folded, _score, index in matches]
