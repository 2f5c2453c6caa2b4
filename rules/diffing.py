"""What changed between two versions of a rules document (plain Python)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class SectionLike(Protocol):
    number: str
    key: str
    title: str
    body: str
    parent: int | None  # index of the parent in the same sequence


@dataclass(frozen=True)
class Snapshot:
    number: str
    key: str
    title: str
    body: str
    parent: int | None


@dataclass(frozen=True)
class SectionChange:
    number: str
    title: str
    fields: tuple[str, ...] = ()  # for changed sections: "title", "body"

    def as_dict(self) -> dict:
        data: dict = {"number": self.number, "title": self.title}
        if self.fields:
            data["fields"] = list(self.fields)
        return data


@dataclass(frozen=True)
class VersionChanges:
    added: tuple[SectionChange, ...]
    removed: tuple[SectionChange, ...]
    changed: tuple[SectionChange, ...]

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def as_dict(self) -> dict:
        return {
            "added": [change.as_dict() for change in self.added],
            "removed": [change.as_dict() for change in self.removed],
            "changed": [change.as_dict() for change in self.changed],
        }


def compare_versions(old: Sequence[SectionLike], new: Sequence[SectionLike]) -> VersionChanges:
    """Sections added, removed and changed (title or text) from ``old`` to ``new``.

    A numbered section is the same section in both versions when its number is (the
    n-th time that number is printed, as numbers may repeat); an unnumbered one when its
    title and the titles above it are.
    """
    old_by_identity = dict(zip(_identities(old), old, strict=True))
    new_by_identity = dict(zip(_identities(new), new, strict=True))
    added = tuple(
        SectionChange(section.number, section.title)
        for identity, section in new_by_identity.items()
        if identity not in old_by_identity
    )
    removed = tuple(
        SectionChange(section.number, section.title)
        for identity, section in old_by_identity.items()
        if identity not in new_by_identity
    )
    changed = []
    for identity, section in new_by_identity.items():
        before = old_by_identity.get(identity)
        if before is None:
            continue
        fields = tuple(
            name for name in ("title", "body") if getattr(before, name) != getattr(section, name)
        )
        if fields:
            changed.append(SectionChange(section.number, section.title, fields))
    return VersionChanges(added, removed, tuple(changed))


def _identities(sections: Sequence[SectionLike]) -> list[tuple]:
    seen: Counter[tuple] = Counter()
    identities = []
    for section in sections:
        if section.key:
            base: tuple = ("number", section.key)
        else:
            base = ("title", *_title_path(sections, section))
        seen[base] += 1
        identities.append((*base, seen[base]))
    return identities


def _title_path(sections: Sequence[SectionLike], section: SectionLike) -> tuple[str, ...]:
    path = [section.title]
    parent = section.parent
    while parent is not None:
        path.append(sections[parent].title)
        parent = sections[parent].parent
    return tuple(reversed(path))
