"""Sideboard exchange between games of a match (CrossOver rule 1−2−4).

Cards may move between the registered deck and sideboard between games, as long as every
card comes from where the player says and the deck keeps its size. Cards are matched by
their identity (:func:`cardpool.names.name_key`, rule 4−2−6), not by how a name is
written: ``森原さとみ`` going out of a deck registered with ``森原 さとみ`` is the same card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from cardpool.names import name_key

from .check import Violation, make_violation
from .model import FormatRules


@dataclass(frozen=True)
class SwapResult:
    violations: tuple[Violation, ...]
    main: Mapping[str, int]
    side: Mapping[str, int]

    @property
    def ok(self) -> bool:
        return not self.violations


def _by_key(counts: Mapping[str, int], names: dict[str, str]) -> Counter[str]:
    """``counts`` summed per card identity; ``names`` keeps the first spelling of each."""
    keyed: Counter[str] = Counter()
    for name, count in counts.items():
        key = name_key(name)
        names.setdefault(key, name)
        keyed[key] += count
    return keyed


def check_swap(
    rules: FormatRules,
    registered_main: Mapping[str, int],
    registered_side: Mapping[str, int],
    out: Mapping[str, int],
    into: Mapping[str, int],
) -> SwapResult:
    """Move ``out`` (card name → copies) from the deck to the sideboard and ``into`` from the
    sideboard to the deck. Returns the resulting deck and sideboard (named as the
    registered lists spell each card), or the violations.
    A negative count would move cards in from outside the registered lists, so it is
    refused like a count larger than the cards available."""
    names: dict[str, str] = {}
    main = _by_key(registered_main, names)
    side = _by_key(registered_side, names)
    out_keyed = _by_key(out, names)
    into_keyed = _by_key(into, names)
    violations = []
    for key, count in sorted(out_keyed.items()):
        if count < 0 or count > main[key]:
            name = names[key]
            values = {"name": name, "count": count, "available": main[key]}
            violations.append(
                make_violation(rules, "SWAP_NOT_IN_DECK", values, cards=(name,), details=values)
            )
    for key, count in sorted(into_keyed.items()):
        if count < 0 or count > side[key]:
            name = names[key]
            values = {"name": name, "count": count, "available": side[key]}
            violations.append(
                make_violation(
                    rules, "SWAP_NOT_IN_SIDEBOARD", values, cards=(name,), details=values
                )
            )
    out_count, in_count = sum(out.values()), sum(into.values())
    if out_count != in_count:
        values = {"out_count": out_count, "in_count": in_count}
        violations.append(make_violation(rules, "SWAP_SIZE_MISMATCH", values, details=values))
    if violations:
        return SwapResult(tuple(violations), dict(registered_main), dict(registered_side))
    main.subtract(out_keyed)
    main.update(into_keyed)
    side.subtract(into_keyed)
    side.update(out_keyed)
    return SwapResult(
        (),
        {names[key]: count for key, count in main.items() if count > 0},
        {names[key]: count for key, count in side.items() if count > 0},
    )
