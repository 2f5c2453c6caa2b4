"""What one revision of a ruling or erratum changed, field by field (plain Python).

A revision stores the values before and after (``Revision.before``/``after``, dicts of
plain JSON values). :func:`field_changes` turns the fields that differ into changes a
judge can read: a text shows what was removed and added inside it, a list (cards,
sections) the items removed and added, anything else its old and new value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

# Texts up to this long are compared character by character (Japanese has no spaces to
# split words on); longer ones line by line, so that a long answer stays quick.
CHARACTER_DIFF_LIMIT = 4000


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
    names = sorted(changed_fields(before, after), key=lambda name: (position.get(name, 1e9), name))
    return [_change(name, before.get(name), after.get(name)) for name in names]


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
    # A text edited (not created or emptied) shows where it changed.
    if isinstance(old, str) and isinstance(new, str) and old and new and _is_long(old, new):
        return FieldChange(name, old, new, pieces=text_diff(old, new))
    return FieldChange(name, old, new)


def _is_long(old: str, new: str) -> bool:
    return max(len(old), len(new)) > 40 or "\n" in old or "\n" in new


def text_diff(old: str, new: str) -> tuple[tuple[str, str], ...]:
    """``old`` → ``new`` as ("same" | "removed" | "added", text) pieces: character by
    character, or line by line for long texts."""
    by_line = max(len(old), len(new)) > CHARACTER_DIFF_LIMIT
    a = old.splitlines(keepends=True) if by_line else old
    b = new.splitlines(keepends=True) if by_line else new
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    pieces: list[tuple[str, str]] = []

    def add(kind: str, part) -> None:
        text = "".join(part)
        if not text:
            return
        if pieces and pieces[-1][0] == kind:
            pieces[-1] = (kind, pieces[-1][1] + text)
        else:
            pieces.append((kind, text))

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            add("same", a[i1:i2])
        else:
            add("removed", a[i1:i2])
            add("added", b[j1:j2])
    return tuple(pieces)
