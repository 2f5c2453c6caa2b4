"""Deck checks at the table: is the physical deck the registered list after legal swaps?

Between games a player may exchange cards between deck and sideboard (rule 1−2−4), so a
judge who counts the cards on the table compares them with the registered list like this:

* the deck has as many cards as the registered deck (1−2−4: the deck size before and
  after a swap is the same), and the sideboard as many as the registered sideboard (the
  count the opponent confirmed before the match, 2−1−3);
* deck and sideboard together hold exactly the registered deck and sideboard: every
  card found in the deck that the registered deck does not hold must come from the
  registered sideboard, and nothing else may appear or disappear.

Every difference is reported at once, each in English and Japanese: cards missing
(registered, not found), extra cards (found, not registered), a card found in another
printing than the one registered, and a changed deck or sideboard size.

Cards are matched by identity (:func:`cardpool.names.name_key`, rule 4−2−6), not by how
the judge or the player wrote the name. A printing is a set code; a card registered
without one may be any printing, and a card counted without one matches any printing.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cardpool.names import name_key

from .check import Entry
from .messages import render
from .model import MAIN, FormatRules

# A card in a count: its name alone (any printing), or (name, set code or None).
CountKey = str | tuple[str, str | None]
Counts = Mapping[CountKey, int]

DECK_SIZE_CHANGED = "DECK_SIZE_CHANGED"
SIDEBOARD_SIZE_CHANGED = "SIDEBOARD_SIZE_CHANGED"
MISSING = "MISSING"
EXTRA = "EXTRA"
WRONG_PRINTING = "WRONG_PRINTING"
# A counted printing the format refuses on the event's day (rule 1−2−1): banned, or from a
# set not legal (yet), whatever the registered line says.
COUNTED_BANNED = "COUNTED_BANNED"
COUNTED_NOT_LEGAL = "COUNTED_NOT_LEGAL"
CODES = (
    DECK_SIZE_CHANGED,
    SIDEBOARD_SIZE_CHANGED,
    MISSING,
    EXTRA,
    WRONG_PRINTING,
    COUNTED_BANNED,
    COUNTED_NOT_LEGAL,
)

MESSAGES: dict[str, tuple[str, str]] = {
    DECK_SIZE_CHANGED: (
        "The deck has {counted:# card|# cards}, but the registered deck has {registered}: "
        "sideboard swaps must keep the deck size.",
        "デッキが{counted}枚ですが、登録したデッキは{registered}枚です。"
        "サイドボードとの交換でデッキ枚数を変えることはできません。",
    ),
    SIDEBOARD_SIZE_CHANGED: (
        "The sideboard has {counted:# card|# cards}, but the registered sideboard has "
        "{registered}.",
        "サイドボードが{counted}枚ですが、登録したサイドボードは{registered}枚です。",
    ),
    MISSING: (
        "Missing: {count} × {name}{printing_en} is registered but was not found ({where_en}).",
        "不足: 〔{name}〕{printing_ja}{count}枚が登録されていますが、見つかりません"
        "（{where_ja}）。",
    ),
    EXTRA: (
        "Extra: {count} × {name}{printing_en} was found but is not registered ({where_en}).",
        "余分: 〔{name}〕{printing_ja}{count}枚が見つかりましたが、登録されていません"
        "（{where_ja}）。",
    ),
    WRONG_PRINTING: (
        "Wrong printing: {count} × {name} is the {found} printing; the {registered} "
        "printing is registered.",
        "版違い: 〔{name}〕{count}枚が{found}版です。登録は{registered}版です。",
    ),
    COUNTED_BANNED: (
        "{count} {name} counted as {printing} "
        "{count:printing, which is|printings, which are} banned on {as_of}{rule_en}.",
        "〔{name}〕{count}枚が{printing}版でした。{as_of}時点で禁止されている版です{rule_ja}。",
    ),
    COUNTED_NOT_LEGAL: (
        "{count} {name} counted as {printing} "
        "{count:printing, which is|printings, which are} not legal on {as_of}{rule_en}.",
        "〔{name}〕{count}枚が{printing}版でした。{as_of}時点でこのフォーマットでは使えない版です"
        "{rule_ja}。",
    ),
}


@dataclass(frozen=True)
class Discrepancy:
    """One difference between the cards counted and the registered list."""

    code: str
    rule: str
    message_en: str
    message_ja: str
    name: str = ""
    count: int = 0
    # MISSING: the printing registered; EXTRA: the printing found; WRONG_PRINTING: the
    # registered one (``found_printing`` is the other). None: any printing.
    printing: str | None = None
    found_printing: str | None = None
    details: Mapping[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "code": self.code,
            "rule": self.rule,
            "message_en": self.message_en,
            "message_ja": self.message_ja,
            "name": self.name,
            "count": self.count,
            "printing": self.printing,
            "found_printing": self.found_printing,
            "details": dict(self.details),
        }


@dataclass(frozen=True)
class Moved:
    """Copies of a card that moved between deck and sideboard."""

    name: str
    count: int


@dataclass(frozen=True)
class DeckCheckResult:
    registered_main_count: int
    registered_side_count: int
    counted_main_count: int
    counted_side_count: int
    discrepancies: tuple[Discrepancy, ...]
    # What the player exchanged since registering (sideboard → deck, deck → sideboard).
    swapped_in: tuple[Moved, ...] = ()
    swapped_out: tuple[Moved, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.discrepancies

    @property
    def codes(self) -> list[str]:
        return [item.code for item in self.discrepancies]

    def messages(self, language: str = "en") -> list[str]:
        japanese = language.lower().startswith("ja")
        return [item.message_ja if japanese else item.message_en for item in self.discrepancies]

    def as_dict(self, language: str | None = None) -> dict:
        """Plain data (stored with the deck check, answered by the API). With
        ``language`` every discrepancy also gets ``message`` in that language."""
        discrepancies = [item.as_dict() for item in self.discrepancies]
        if language is not None:
            key = "message_ja" if language.lower().startswith("ja") else "message_en"
            for item in discrepancies:
                item["message"] = item[key]
        return {
            "ok": self.ok,
            "registered_main_count": self.registered_main_count,
            "registered_side_count": self.registered_side_count,
            "counted_main_count": self.counted_main_count,
            "counted_side_count": self.counted_side_count,
            "swapped_in": [{"name": m.name, "count": m.count} for m in self.swapped_in],
            "swapped_out": [{"name": m.name, "count": m.count} for m in self.swapped_out],
            "discrepancies": discrepancies,
        }


# --- input --------------------------------------------------------------------------------


class _Side:
    """One side of the comparison (registered or counted): copies per card identity and
    printing, per section."""

    def __init__(self, main: Counts, side: Counts, names: dict[str, str]):
        self.main: Counter[str] = Counter()
        self.side: Counter[str] = Counter()
        self.printings: dict[str, Counter[str | None]] = {}
        for section, counts in ((self.main, main), (self.side, side)):
            for item, count in counts.items():
                name, printing = (item, None) if isinstance(item, str) else item
                if count < 0:
                    raise ValueError(f"negative count {count} for {name!r}")
                if count == 0:
                    continue
                key = name_key(name)
                names.setdefault(key, name)
                section[key] += count
                self.printings.setdefault(key, Counter())[printing or None] += count

    @property
    def main_count(self) -> int:
        return sum(self.main.values())

    @property
    def side_count(self) -> int:
        return sum(self.side.values())


def counts_from_entries(entries: Iterable[Entry]) -> tuple[dict, dict]:
    """Resolved decklist entries as (deck, sideboard) counts keyed by (name, set code);
    leaders (AsuraSystem) count with the deck."""
    main: Counter[tuple[str, str | None]] = Counter()
    side: Counter[tuple[str, str | None]] = Counter()
    for entry in entries:
        (main if entry.section == MAIN else side)[(entry.card.name, entry.set_code)] += entry.count
    return dict(main), dict(side)


# --- the comparison -----------------------------------------------------------------------


def _take(left: Counter, right: Counter, left_keys, right_keys) -> None:
    """Match copies of ``left_keys`` in ``left`` with ``right_keys`` in ``right``."""
    for lkey in left_keys:
        for rkey in right_keys:
            matched = min(left[lkey], right[rkey])
            if matched > 0:
                left[lkey] -= matched
                right[rkey] -= matched


def _refused_printings(
    rules: FormatRules,
    as_of: dt.date,
    released_from: Mapping[tuple[str, str], dt.date] | None = None,
):
    """``refused(card key, set code)``: COUNTED_BANNED or COUNTED_NOT_LEGAL for a printing
    the format refuses on ``as_of`` (rule 1−2−1), else None: banned, from a set not legal
    that day, or released later than that day (``released_from``: (card key, set code) ->
    the day the card's printings in that set first exist, where they carry their own
    dates). A count without a printing (any printing) is never refused here."""
    bans = rules.bans_in_force(as_of)
    legal = rules.legal_sets_on(as_of)
    released_from = released_from or {}

    def refused(key: str, printing: str | None) -> str | None:
        if printing is None:
            return None
        if any(ban.covers(printing) for ban in bans.get(key, ())):
            return COUNTED_BANNED
        if legal is not None and printing not in legal:
            return COUNTED_NOT_LEGAL
        day = released_from.get((key, printing))
        if day is not None and day > as_of:
            return COUNTED_NOT_LEGAL
        return None

    return refused


def _printing_order(printing: str | None) -> tuple[bool, str]:
    return (printing is None, printing or "")


def compare_physical(
    registered_main: Counts,
    registered_side: Counts,
    counted_main: Counts,
    counted_side: Counts,
    *,
    rules: FormatRules | None = None,
    printing_labels: Mapping[str, str] | None = None,
    as_of: dt.date | None = None,
    released_from: Mapping[tuple[str, str], dt.date] | None = None,
) -> DeckCheckResult:
    """Compare the cards a judge counted with the registered list (rule 1−2−4).

    Counts map a card name, or (name, set code), to copies; names are matched by
    identity. ``rules`` gives the rule section each discrepancy cites (the format's
    section for sideboard swaps); ``printing_labels`` maps set codes to the names shown.
    With ``rules`` and ``as_of`` (the event's day), a counted printing that the format
    refuses on that day (banned, from a set not legal then, or released later: see
    ``released_from`` in :func:`_refused_printings`; rule 1−2−1) is a discrepancy of its
    own, even where the registered line names no printing.
    Raises ValueError for a negative count."""
    names: dict[str, str] = {}
    registered = _Side(registered_main, registered_side, names)
    counted = _Side(counted_main, counted_side, names)
    rule = rules.section("SWAP_SIZE_MISMATCH") if rules is not None else ""
    labels = printing_labels or {}

    def label(printing: str | None) -> str:
        return labels.get(printing, printing) if printing else ""

    def make(code: str, values: dict, **extra) -> Discrepancy:
        message_en, message_ja = render(code, values, MESSAGES)
        return Discrepancy(code, rule, message_en, message_ja, **extra)

    found: list[Discrepancy] = []
    if counted.main_count != registered.main_count:
        values = {"counted": counted.main_count, "registered": registered.main_count}
        found.append(make(DECK_SIZE_CHANGED, values, details=values))
    if counted.side_count != registered.side_count:
        values = {"counted": counted.side_count, "registered": registered.side_count}
        found.append(make(SIDEBOARD_SIZE_CHANGED, values, details=values))
    refused = (
        _refused_printings(rules, as_of, released_from) if rules is not None and as_of else None
    )

    for key in sorted(set(registered.printings) | set(counted.printings)):
        name = names[key]
        wanted = Counter(registered.printings.get(key, {}))
        seen = Counter(counted.printings.get(key, {}))
        specific_wanted = sorted((p for p in wanted if p is not None), key=_printing_order)
        specific_seen = sorted((p for p in seen if p is not None), key=_printing_order)
        # The same printing first, then "any printing" on either side (registered
        # without one takes any found; counted without one matches any registered),
        # "any" with "any" last so that neither is spent where a printing could go.
        for printing in specific_wanted:
            _take(wanted, seen, [printing], [printing])
        _take(wanted, seen, [None], specific_seen)
        _take(wanted, seen, specific_wanted, [None])
        _take(wanted, seen, [None], [None])
        where = {
            "registered_main": registered.main[key],
            "registered_side": registered.side[key],
            "found_main": counted.main[key],
            "found_side": counted.side[key],
        }
        where_values = {
            "where_en": "registered: deck {registered_main}, sideboard {registered_side}; "
            "found: deck {found_main}, sideboard {found_side}".format(**where),
            "where_ja": "登録: デッキ{registered_main}枚・サイドボード{registered_side}枚、"
            "確認: デッキ{found_main}枚・サイドボード{found_side}枚".format(**where),
        }
        # Left over on both sides with different printings: the wrong printing.
        for registered_printing in specific_wanted:
            for found_printing in specific_seen:
                count = min(wanted[registered_printing], seen[found_printing])
                if count <= 0:
                    continue
                wanted[registered_printing] -= count
                seen[found_printing] -= count
                values = {
                    "name": name,
                    "count": count,
                    "registered": label(registered_printing),
                    "found": label(found_printing),
                }
                found.append(
                    make(
                        WRONG_PRINTING,
                        values,
                        name=name,
                        count=count,
                        printing=registered_printing,
                        found_printing=found_printing,
                        details=where,
                    )
                )
        for code, rest in ((MISSING, wanted), (EXTRA, seen)):
            for printing in sorted(rest, key=_printing_order):
                count = rest[printing]
                if count <= 0:
                    continue
                shown = label(printing)
                values = {
                    "name": name,
                    "count": count,
                    "printing_en": f" ({shown})" if shown else "",
                    "printing_ja": f"（{shown}版）" if shown else "",
                    **where_values,
                }
                found.append(
                    make(code, values, name=name, count=count, printing=printing, details=where)
                )
        if refused is not None:
            for printing in sorted(counted.printings.get(key, {}), key=_printing_order):
                code = refused(key, printing)
                count = counted.printings[key][printing]
                if code is None or count <= 0:
                    continue
                rule_refused = rules.section(
                    "BANNED" if code == COUNTED_BANNED else "SET_NOT_LEGAL"
                )
                values = {
                    "name": name,
                    "count": count,
                    "printing": label(printing),
                    "as_of": as_of.isoformat(),
                    "rule_en": f" (rule {rule_refused})" if rule_refused else "",
                    "rule_ja": f"（ルール{rule_refused}）" if rule_refused else "",
                }
                message_en, message_ja = render(code, values, MESSAGES)
                found.append(
                    Discrepancy(
                        code,
                        rule_refused,
                        message_en,
                        message_ja,
                        name=name,
                        count=count,
                        found_printing=printing,
                        details={**where, "as_of": values["as_of"]},
                    )
                )

    # A swap moves copies between deck and sideboard (1−2−4): copies new in the deck are
    # swapped in only as far as the sideboard lost them (the rest are extra cards), and
    # copies gone from the deck swapped out only as far as the sideboard gained them.
    swapped_in, swapped_out = [], []
    for key in sorted(set(registered.main) | set(counted.main)):
        change = counted.main[key] - registered.main[key]
        side_change = counted.side[key] - registered.side[key]
        if change > 0 and side_change < 0:
            swapped_in.append(Moved(names[key], min(change, -side_change)))
        elif change < 0 and side_change > 0:
            swapped_out.append(Moved(names[key], min(-change, side_change)))
    return DeckCheckResult(
        registered_main_count=registered.main_count,
        registered_side_count=registered.side_count,
        counted_main_count=counted.main_count,
        counted_side_count=counted.side_count,
        discrepancies=tuple(found),
        swapped_in=tuple(swapped_in),
        swapped_out=tuple(swapped_out),
    )
