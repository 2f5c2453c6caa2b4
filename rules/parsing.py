"""Rules documents as numbered sections, in plain Python (no Django, no database).

Five document styles are known (see :data:`STYLES`); :func:`parse_document` turns a text
into a :class:`ParsedDocument`: metadata and an ordered list of :class:`ParsedSection`, each
with its printed number, a lookup key, title, body, depth and parent (an index into the
list). Numbers are kept exactly as printed, never corrected: places where the printed
numbering looks wrong (a number printed twice, a number standing under another section,
a skipped number, a heading with nothing under it) carry :class:`ReviewFlag` codes for a
judge to look at. The Django layer words the flags (``rules.messages``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .text import fold, number_key

# Review flag codes (worded for people by rules.messages.REVIEW_FLAG_MESSAGES).
DUPLICATE_NUMBER = "duplicate_number"
MISPLACED_NUMBER = "misplaced_number"
NUMBER_GAP = "number_gap"
EMPTY_SECTION = "empty_section"


class ParseError(ValueError):
    """The text cannot be read as a rules document of the requested style."""


@dataclass(frozen=True)
class ReviewFlag:
    code: str
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedSection:
    number: str  # as printed ("4−3−8", "第1部", "(2)"), "" for unnumbered headings
    key: str  # lookup key: "4-3-8"; "(2)" under 2−5 becomes "2-5-2"; "" when unnumbered
    title: str
    body: str
    level: int  # depth in the tree, 1 for a top-level section
    parent: int | None  # index of the parent section in ParsedDocument.sections
    flags: tuple[ReviewFlag, ...] = ()

    @property
    def needs_review(self) -> bool:
        return bool(self.flags)


@dataclass(frozen=True)
class ParsedDocument:
    style: str
    title: str
    version: str
    date: dt.date | None
    sections: tuple[ParsedSection, ...]


@dataclass
class _Heading:
    number: str
    key: str
    title: str
    rank: int  # smaller is higher up; the parent is the nearest earlier heading of lower rank
    body: str = ""
    # Whether key is a dotted path ("4-3-8", "2-5-2") whose last part counts siblings.
    counted: bool = True


@dataclass
class _Meta:
    title: str = ""
    version: str = ""
    date: dt.date | None = None


def parse_document(text: str, style: str | None = None) -> ParsedDocument:
    """Parse ``text`` in the given style (detected when ``None``).

    Raises :class:`ParseError` for an unknown style or a text without any heading.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    nul = text.find("\x00")
    if nul != -1:
        # PostgreSQL refuses U+0000 in text and SQLite keeps it: refused on both (#15).
        # The same line as config.nul.first_nul (a test holds them equal), counted here
        # because the rules engine runs without Django (test_engine_is_plain_python).
        line = text.count("\n", 0, nul) + 1
        raise ParseError(f"line {line} contains a NUL character (U+0000), which cannot be stored")
    style = style or detect_style(text)
    try:
        reader = _READERS[style]
    except KeyError:
        known = ", ".join(STYLES)
        raise ParseError(f"unknown document style {style!r}; known styles: {known}") from None
    meta, headings = reader(text)
    if not headings:
        raise ParseError(f"no section headings found for the {style!r} style")
    sections = _build_tree(headings)
    return ParsedDocument(style, meta.title, meta.version, meta.date, tuple(sections))


def detect_style(text: str) -> str:
    """Guess the style of a document from its shape."""
    lines = [line for line in text.split("\n") if line.strip()]
    # The official rulebook is one line holding every heading.
    if any(len(_ONELINE_HEADING.findall(line)) >= 3 for line in lines):
        return "oneline"
    if any(_PART_HEADING.match(line) for line in lines):
        return "parts"
    if any(_CHAPTER_HEADING.match(line) for line in lines):
        return "chapters"
    if any(line.startswith("●") or _is_banner(line) for line in lines):
        return "bullets"
    return "wiki"


# --- the official CrossOver rulebook: one long line ------------------------------------

# A heading is a number with U+2212 separators after whitespace, then one word of title:
# "1−2−3 デッキの準備", "4−3−8−1 無効になる情報の決定の特殊な例". Read from Shift_JIS the
# separator is the full-width hyphen-minus "－" instead.
_SEPARATORS = "\u2212\uff0d"
_ONELINE_HEADING = re.compile(
    rf"(?:(?<=\s)|^)(\d{{1,2}}(?:[{_SEPARATORS}]\d{{1,2}})*)[ \u3000]+(\S+)"
)
_RULER = re.compile(r"\s*([\u2212\uff0d\u30fc-]{4,})\s*")
_ITEM_START = re.compile(r"\s+(?=[◆・※●]|例\d*[)）]|Version\d)")
_FLOW_ARROW = re.compile(r"\s+↓\s+")
_VERSION = re.compile(r"Version\s*(\d+(?:\.\d+)*)", re.IGNORECASE)
_SLASH_DATE = re.compile(r"(\d{4})[/年.-](\d{1,2})[/月.-](\d{1,2})")


def _read_oneline(text: str) -> tuple[_Meta, list[_Heading]]:
    found: list[tuple[re.Match[str], str]] = []
    top = 0  # the current top-level number
    depth = 0  # parts in the current heading number
    for match in _ONELINE_HEADING.finditer(text):
        number = match.group(1)
        parts = [int(part) for part in re.split(f"[{_SEPARATORS}]", number)]
        # A heading must fit where the document is: the next top-level number, or a
        # number under the current top level at most one level deeper than the last.
        # Anything else is a number inside body text.
        if len(parts) == 1:
            if parts[0] != top + 1:
                continue
            top = parts[0]
        elif parts[0] != top or len(parts) > depth + 1:
            continue
        depth = len(parts)
        found.append((match, number))
    meta = _oneline_meta(text[: found[0][0].start()] if found else text)
    headings = []
    for index, (match, number) in enumerate(found):
        end = found[index + 1][0].start() if index + 1 < len(found) else len(text)
        headings.append(
            _Heading(
                number=number,
                key=number_key(number),
                title=match.group(2),
                rank=len(re.split(f"[{_SEPARATORS}]", number)),
                body=_reflow(text[match.end() : end]),
            )
        )
    return meta, headings


def _oneline_meta(preamble: str) -> _Meta:
    title = preamble.strip().strip("■").strip()
    meta = _Meta()
    if version := _VERSION.search(title):
        meta.version = version.group(1)
        title = title.replace(version.group(0), "")
    if date := _SLASH_DATE.search(title):
        meta.date = _date(date)
        title = re.sub(r"[(（]\s*" + re.escape(date.group(0)) + r"\s*[)）]", "", title)
    meta.title = " ".join(title.split())
    return meta


def _reflow(body: str) -> str:
    """Line breaks where the one-line file lost them: before each ◆ item, list item,
    note and example, and around ASCII rulers. Nothing else changes."""
    body = _RULER.sub(lambda ruler: f"\n{ruler.group(1)}\n", body)
    body = _ITEM_START.sub("\n", body)
    body = _FLOW_ARROW.sub("\n↓\n", body)
    return "\n".join(line.strip() for line in body.strip().split("\n") if line.strip())


# --- line-based documents ----------------------------------------------------------------

_DASHED_NUMBER = r"\d{1,2}(?:[-\u2212\u2010\u2013\uff0d]\d{1,2})+"
_NUMBERED_HEADING = re.compile(rf"^({_DASHED_NUMBER})[ \u3000]+(\S.*)$")
_DOTTED_HEADING = re.compile(r"^(\d{1,2})\.[ \u3000]*(\S.*)$")
_PART_HEADING = re.compile(r"^第(\d+)部[ \u3000]*(.*)$")
_CHAPTER_HEADING = re.compile(r"^第(\d+)章[ \u3000]*(.*)$")
_RELATIVE_HEADING = re.compile(r"^[(（](\d{1,2})[)）][ \u3000]*(\S.*)$")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass
class _LineHeading:
    line: int
    heading: _Heading


def _collect(
    lines: list[str], headings: list[_LineHeading], skip: Callable[[int], bool] | None = None
) -> list[_Heading]:
    """Give each heading the lines up to the next heading as its body."""
    result = []
    for index, found in enumerate(headings):
        end = headings[index + 1].line if index + 1 < len(headings) else len(lines)
        body_lines = [
            lines[number].rstrip()
            for number in range(found.line + 1, end)
            if not (skip and skip(number))
        ]
        found.heading.body = _tidy(body_lines)
        result.append(found.heading)
    return result


def _tidy(lines: list[str]) -> str:
    text = "\n".join(lines).strip("\n")
    text = re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def _numbered(line: str, rank_offset: int = 0) -> _Heading | None:
    if match := _NUMBERED_HEADING.match(line):
        number, title = match.groups()
        key = number_key(number)
        return _Heading(number, key, title.strip(), rank_offset + key.count("-") + 1)
    if match := _DOTTED_HEADING.match(line):
        number, title = match.groups()
        return _Heading(f"{number}.", number, title.strip(), rank_offset + 1)
    return None


def _read_parts(text: str) -> tuple[_Meta, list[_Heading]]:
    """Monster Collection's supplement: 第1部/第2部, then 1-2-1 style numbers."""
    lines = text.split("\n")
    meta = _Meta()
    headings: list[_LineHeading] = []
    for index, raw in enumerate(lines):
        line = raw.strip()
        if match := _PART_HEADING.match(line):
            number = f"第{match.group(1)}部"
            headings.append(_LineHeading(index, _Heading(number, fold(number), match.group(2), 0)))
            headings[-1].heading.counted = False
        elif headings and (heading := _numbered(line, rank_offset=0)):
            headings.append(_LineHeading(index, heading))
        elif not headings and line:
            if not meta.title:
                meta.title = line
            elif date := _ISO_DATE.search(line):
                meta.date = _date(date)
    return meta, _collect(lines, headings)


def _read_chapters(text: str) -> tuple[_Meta, list[_Heading]]:
    """AsuraSystem's web manual: 第2章, 2−1 sections and (1), (2)… subsections."""
    lines = text.split("\n")
    navigation = {index for index, line in enumerate(lines) if line.strip().endswith("|")}
    relative = _standalone_relative_headings(lines)
    meta = _Meta()
    headings: list[_LineHeading] = []
    anchor: _Heading | None = None  # the section that (1), (2)… count under
    for index, raw in enumerate(lines):
        line = raw.strip()
        if index in navigation:
            continue
        if match := _CHAPTER_HEADING.match(line):
            number = f"第{match.group(1)}章"
            anchor = _Heading(number, match.group(1), match.group(2), 1)
            headings.append(_LineHeading(index, anchor))
            meta.title = meta.title or line
        elif heading := _numbered(line, rank_offset=0):
            anchor = heading
            headings.append(_LineHeading(index, heading))
        elif index in relative and anchor is not None:
            match = _RELATIVE_HEADING.match(line)
            assert match is not None
            number, title = match.groups()
            heading = _Heading(f"({number})", f"{anchor.key}-{number}", title, anchor.rank + 1)
            headings.append(_LineHeading(index, heading))
    return meta, _collect(lines, headings, skip=navigation.__contains__)


def _standalone_relative_headings(lines: list[str]) -> set[int]:
    """Lines "(n)…" that are headings rather than items of a numbered list.

    A list is a run of consecutive lines numbered n, n+1, …; a heading stands alone and
    is followed by prose.
    """
    numbers: dict[int, int] = {}
    for index, line in enumerate(lines):
        if match := _RELATIVE_HEADING.match(line.strip()):
            numbers[index] = int(match.group(1))
    standalone = set()
    for index, number in numbers.items():
        continues = numbers.get(index - 1) == number - 1
        continued = numbers.get(index + 1) == number + 1
        if not continues and not continued:
            standalone.add(index)
    return standalone


def _is_banner(line: str) -> bool:
    return line.replace(" ", "").replace("\u3000", "").startswith("◆◆")


def _read_bullets(text: str) -> tuple[_Meta, list[_Heading]]:
    """Cross Universe's rules page: ◆◆◆ banners, ● headings and ・ topics."""
    lines = text.split("\n")
    meta = _Meta()
    headings: list[_LineHeading] = []
    for index, raw in enumerate(lines):
        line = raw.strip()
        after_gap = index == 0 or not lines[index - 1].strip()
        if _is_banner(line):
            title = re.sub(r"^[◆\s]+|[◆\s]+$", "", line)
            meta.title = meta.title or title
            headings.append(_LineHeading(index, _Heading("", "", title, 1, counted=False)))
        elif line.startswith("●"):
            title = line[1:].strip()
            headings.append(_LineHeading(index, _Heading("", "", title, 2, counted=False)))
        elif line.startswith("・") and after_gap and headings:
            title = line[1:].strip()
            headings.append(_LineHeading(index, _Heading("", "", title, 3, counted=False)))
    return meta, _collect(lines, headings)


_WIKI_FOOTER = re.compile(r"^最終更新[:：]\s*(\d{4})年(\d{1,2})月(\d{1,2})日")
_NOT_A_TITLE = re.compile(r"[。、:：]|^[\[(（《※•・「]")


def _read_wiki(text: str) -> tuple[_Meta, list[_Heading]]:
    """A player wiki page: headings are lines padded with spaces (" 基本構成 ") and
    short lines standing between blank lines ("勝利条件")."""
    lines = text.split("\n")
    meta = _Meta()
    footer: set[int] = set()
    headings: list[_LineHeading] = []
    for index, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            continue
        if match := _WIKI_FOOTER.match(line):
            meta.date = _date(match)
            footer.add(index)
            continue
        if _NOT_A_TITLE.search(line) or len(line) > 30:
            continue
        padded = raw != raw.rstrip() and (index == 0 or raw != raw.lstrip())
        before = index == 0 or not lines[index - 1].strip()
        after = index + 1 >= len(lines) or not lines[index + 1].strip()
        if padded and before and after and " " not in line:
            headings.append(_LineHeading(index, _Heading("", "", line, 1, counted=False)))
        elif raw == raw.lstrip() and before and after and len(line) <= 20:
            headings.append(_LineHeading(index, _Heading("", "", line, 2, counted=False)))
    return meta, _collect(lines, headings, skip=footer.__contains__)


def _date(match: re.Match[str]) -> dt.date | None:
    try:
        return dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


_READERS: dict[str, Callable[[str], tuple[_Meta, list[_Heading]]]] = {
    "oneline": _read_oneline,
    "parts": _read_parts,
    "wiki": _read_wiki,
    "bullets": _read_bullets,
    "chapters": _read_chapters,
}
STYLES = tuple(_READERS)


# --- tree and review flags ------------------------------------------------------------------


def _build_tree(headings: list[_Heading]) -> list[ParsedSection]:
    parents: list[int | None] = []
    levels: list[int] = []
    stack: list[int] = []
    for index, heading in enumerate(headings):
        while stack and headings[stack[-1]].rank >= heading.rank:
            stack.pop()
        parent = stack[-1] if stack else None
        parents.append(parent)
        levels.append(levels[parent] + 1 if parent is not None else 1)
        stack.append(index)

    has_children = {parent for parent in parents if parent is not None}
    seen_keys: set[str] = set()
    last_child: dict[int | None, int] = {}  # parent → index of its last counted child
    sections = []
    for index, heading in enumerate(headings):
        parent = parents[index]
        flags: list[ReviewFlag] = []
        if heading.counted:
            flags.extend(_numbering_flags(headings, index, parent, last_child.get(parent)))
            if heading.key in seen_keys:
                flags.insert(0, ReviewFlag(DUPLICATE_NUMBER, {"number": heading.number}))
            seen_keys.add(heading.key)
            last_child[parent] = index
        if not heading.body and index not in has_children:
            flags.append(ReviewFlag(EMPTY_SECTION))
        sections.append(
            ParsedSection(
                number=heading.number,
                key=heading.key,
                title=heading.title,
                body=heading.body,
                level=levels[index],
                parent=parent,
                flags=tuple(flags),
            )
        )
    return sections


def _numbering_flags(
    headings: list[_Heading], index: int, parent: int | None, previous: int | None
) -> list[ReviewFlag]:
    heading = headings[index]
    prefix, _, last = heading.key.rpartition("-")
    if not last.isdigit():
        return []
    flags = []
    parent_heading = headings[parent] if parent is not None else None
    # Only a numbered parent says what the number should start with; parts (第1部) and
    # unnumbered headings do not.
    numbered_parent = parent_heading is not None and parent_heading.counted
    if numbered_parent and prefix != parent_heading.key:
        flags.append(
            ReviewFlag(
                MISPLACED_NUMBER, {"number": heading.number, "parent": parent_heading.number}
            )
        )
        return flags
    if previous is not None:
        previous_last = headings[previous].key.rpartition("-")[2]
        expected = int(previous_last) + 1 if previous_last.isdigit() else None
    elif numbered_parent:
        expected = 1
    else:
        expected = None
    if expected is not None and int(last) > expected:
        missing = [_sibling_number(heading, n) for n in range(expected, int(last))]
        flags.append(ReviewFlag(NUMBER_GAP, {"missing": ", ".join(missing)}))
    return flags


def _sibling_number(heading: _Heading, last: int) -> str:
    """The number a sibling numbered ``last`` would be printed with."""
    printed = heading.number
    if printed.startswith("(") or printed.startswith("（"):
        return f"({last})"
    match = re.match(r"^(.*\D)?(\d+)(\D*)$", printed)
    if not match:
        return str(last)
    return f"{match.group(1) or ''}{last}{match.group(3)}"
