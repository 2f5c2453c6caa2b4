"""Sideboard exchange between games of a match (CrossOver rule 1−2−4).

Cards may move between the registered deck and sideboard between games, as long as every
card comes from where the player says and the deck keeps its size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

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


def check_swap(
    rules: FormatRules,
    registered_main: Mapping[str, int],
    registered_side: Mapping[str, int],
    out: Mapping[str, int],
    into: Mapping[str, int],
) -> SwapResult:
    """Move ``out`` (card name → copies) from the deck to the sideboard and ``into`` from the
    sideboard to the deck. Returns the resulting deck and sideboard, or the violations.
    A negative count would move cards in from outside the registered lists, so it is
    refused like a count larger than the cards available."""
    main, side = Counter(registered_main), Counter(registered_side)
    violations = []
    for name, count in sorted(out.items()):
        if count < 0 or count > main[name]:
            values = {"name": name, "count": count, "available": main[name]}
            violations.append(
                make_violation(rules, "SWAP_NOT_IN_DECK", values, cards=(name,), details=values)
            )
    for name, count in sorted(into.items()):
        if count < 0 or count > side[name]:
            values = {"name": name, "count": count, "available": side[name]}
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
    main.subtract(out)
    main.update(into)
    side.subtract(into)
    side.update(out)
    return SwapResult((), +main, +side)
