"""What one revision of a ruling or erratum changed, field by field (plain Python).

A revision stores the values before and after (``Revision.before``/``after``, dicts of
plain JSON values). :func:`field_changes` turns the fields that differ into changes a
judge can read: a text shows what was removed and added inside it, a list (cards,
sections) the items removed and added, anything else its old and new value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

# Texts up to this long are compared character by character (Japanese has no spaces to
# split words on); longer ones line by line, so that a long answer stays quick.
CHARACTER_DIFF_LIMIT = 4000
# Unchanged runs up to this long between two changes are shown as part of the change.
SHORT_MATCH = 2
# Texts shorter than this, or keeping less than this share, show old → new whole.
MIN_DIFF_LENGTH = 12
MIN_KEPT_SHARE = 0.3
# A Latin word or number is one unit of the comparison; any other character (Japanese has
# no spaces between words) is one on its own.
_TOKEN = re.compile(r"[A-Za-z0-9]+|.", re.DOTALL)


@dataclass(frozen=True)
class FieldChange:
    field: str
    before: object
    after: object
    # For texts: ("same" | "removed" | "added", text) pieces, in order.
    pieces: tuple[tuple[str, str], ...] = ()
    # For lists: the items only before, only after.
    removed: tuple = ()
    added: tuple = ()

    @property
    def kind(self) -> str:
        if self.pieces:
            return "text"
        if isinstance(self.before, list) or isinstance(self.after, list):
            return "list"
        return "value"


def changed_fields(before: Mapping | None, after: Mapping | None) -> list[str]:
    """The names whose values differ, sorted (a missing key counts as None)."""
    before, after = before or {}, after or {}
    return sorted(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))


def field_changes(
    before: Mapping | None, after: Mapping | None, order: Iterable[str] = ()
) -> list[FieldChange]:
    """The changed fields of a revision, those named in ``order`` first in that order."""
    before, after = before or {}, after or {}
    position = {name: index for index, name in enumerate(order)}
    names = sorted(
        (
            name
            for name in changed_fields(before, after)
            # Absent, empty text and empty list all read "—": no change to show.
            if not (_empty(before.get(name)) and _empty(after.get(name)))
        ),
        key=lambda name: (position.get(name, 1e9), name),
    )
    return [_change(name, before.get(name), after.get(name)) for name in names]


def _empty(value) -> bool:
    return value is None or value == "" or value == []


def _change(name: str, old, new) -> FieldChange:
    if isinstance(old, list) or isinstance(new, list):
        old_items, new_items = list(old or []), list(new or [])
        return FieldChange(
            name,
            old,
            new,
            removed=tuple(item for item in old_items if item not in new_items),
            added=tuple(item for item in new_items if item not in old_items),
        )
    # A text edited (not created or emptied) shows where it changed, when enough of it
    # stayed; one rewritten from scratch reads better as old → new.
    if isinstance(old, str) and isinstance(new, str) and _worth_a_diff(old, new):
        return FieldChange(name, old, new, pieces=text_diff(old, new))
    return FieldChange(name, old, new)


def _worth_a_diff(old: str, new: str) -> bool:
    if min(len(old), len(new)) < MIN_DIFF_LENGTH:
        return False
    pieces = text_diff(old, new)
    kept = sum(len(text) for kind, text in pieces if kind == "same")
    return kept >= MIN_KEPT_SHARE * max(len(old), len(new))


def text_diff(old: str, new: str) -> tuple[tuple[str, str], ...]:
    """``old`` → ``new`` as ("same" | "removed" | "added", text) pieces: character by
    character, or line by line for long texts."""
    by_line = max(len(old), len(new)) > CHARACTER_DIFF_LIMIT
    a = old.splitlines(keepends=True) if by_line else _TOKEN.findall(old)
    b = new.splitlines(keepends=True) if by_line else _TOKEN.findall(new)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    # (same?, old text, new text) runs; a change is one removed and one added text.
    runs: list[tuple[bool, str, str]] = [
        (tag == "equal", "".join(a[i1:i2]), "".join(b[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]
    # A character or two left alike between two changes (い in はい → いいえ) is part of
    # the change: a judge reads words, not letters.
    for index in range(1, len(runs) - 1):
        same, old_text, _ = runs[index]
        if (
            same
            and len(old_text) <= SHORT_MATCH
            and not runs[index - 1][0]
            and not runs[index + 1][0]
        ):
            runs[index] = (False, old_text, old_text)
    merged: list[tuple[bool, str, str]] = []
    for run in runs:
        if merged and not run[0] and not merged[-1][0]:
            merged[-1] = (False, merged[-1][1] + run[1], merged[-1][2] + run[2])
        else:
            merged.append(run)
    pieces: list[tuple[str, str]] = []
    for same, old_text, new_text in merged:
        if same:
            pieces.append(("same", old_text))
            continue
        if old_text:
            pieces.append(("removed", old_text))
        if new_text:
            pieces.append(("added", new_text))
    return tuple(pieces)
