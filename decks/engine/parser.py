"""Decklists as players paste them.

Accepted line forms (after Unicode NFKC, so full-width digits and letters work):

* ``4 森原さとみ``, ``4x 森原さとみ``, ``4枚 森原さとみ``
* ``森原さとみ ×4``, ``森原さとみ x4``, ``森原さとみ 4枚``
* ``森原さとみ 4`` (a bare number at the end): a count only when ``森原さとみ`` is a card and
  ``森原さとみ 4`` is not; the caller decides with ``is_card`` (or later, with the pool)
* ``森原さとみ`` alone means one copy
* names in 〔〕《》『』「」【】 brackets
* a printing qualifier after the name: ``(β)``, ``(βedition)``, ``[base]``, ``(first)``
* section headings: サイドボード, 拡張メモリ, Sideboard, SB (alone, or ``SB:`` in front of a
  card line), and メイン / メインデッキ / デッキ / Main / Deck to go back to the deck;
  decorated the ways players write them (``【サイドボード（15枚）】``, ``■サイドボード``,
  ``＜サイドボード＞``, ``Sideboard (15)``, ``SB (15):``). A heading may state the number of
  cards under it; :func:`heading_counts` compares it with the cards listed.
* ``森原さとみ×4枚``, ``森原さとみ ×4枚``: a multiplication sign and 枚 together; ``森原さとみ*4``,
  ``森原さとみ：4枚``, ``4枚：森原さとみ``; a count in brackets (``森原さとみ（4枚）``,
  ``森原さとみ (x4)``) or before the printing (``狡猾フィーリア ×4 (β)``)
* a list mark before a card line: ``・森原さとみ×4``, ``- 4 森原さとみ``, ``● 森原さとみ 4枚``
* lines that are no cards: a total (``合計 50枚``, ``Total: 50``) and lines about the list
  (``デッキ名：…``, ``【プレイヤー名】…``, ``Deck name: …``)
* group headings that only sort the deck, alone or with a count (``【キャラクター 46枚】``,
  ``キャラクター：46枚``, ``■イベント（8）``, ``Events (4)``): they keep the section, and
  :func:`heading_counts` compares their count with the cards listed under them
* a section heading with its first card on the same line (``サイドボード：2 水姫``,
  ``【サイドボード】2 水姫``, ``Sideboard: 2 水姫``): the heading, then the card; ``SB: 2 水姫``
  alone puts only that line in the sideboard
* "no sideboard" written out: ``サイドボード：なし``, ``Sideboard: none``, ``SB: 0`` (a heading
  that states 0 cards) and a lone ``なし`` / ``（無し）`` / ``none`` line (nothing to read)
* blank lines, separator and layout lines (``−−−−``, ``----``, ``====``, ``・・・``, ``━━━``)
  and comment lines starting with ``#`` or ``//``
* invisible characters (a byte-order mark U+FEFF, zero-width spaces, direction marks) are
  removed before anything else, wherever the text came from

The parser never raises: a line it cannot read becomes a :class:`ParseProblem`. It runs in
time linear in the text: lines are cut at known positions, never by a regular expression that
could backtrack over a long line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from .model import MAIN, SIDE

MAX_COUNT = 999
# A card line is a count, a name and a printing; no real one comes near this. Longer lines
# are refused rather than searched (issue #15: hostile 20 KB lines).
MAX_LINE_CHARS = 300

_SIDE_HEADINGS = ("サイドボード", "サイドデッキ", "拡張メモリ", "sideboard", "sidedeck", "サイド")
_SIDE_HEADINGS += ("side", "sb")
_MAIN_HEADINGS = ("メインデッキ", "メイン", "デッキ", "maindeck", "mainboard", "main", "deck")
# Longest first, so "sideboard" is not read as "side" followed by "board".
_HEADING_WORDS = sorted(
    [(word, SIDE) for word in _SIDE_HEADINGS] + [(word, MAIN) for word in _MAIN_HEADINGS],
    key=lambda pair: -len(pair[0]),
)
# Group headings sort the cards of a section by type (CrossOver's types, 4−2−8, and the
# words players use for them); they never change the section. Longest first.
_GROUP_HEADINGS = tuple(
    sorted(
        (
            "キャラクター", "キャラクタ", "キャラ", "ナビゲーター", "ナビゲータ", "ナビ",
            "イベント", "アイテム", "スペル", "魔法", "characters", "character",
            "navigators", "navigator", "events", "event", "items", "item", "spells", "spell",
        ),
        key=lambda word: -len(word),
    )
)  # fmt: skip
# A cheap first test: every heading holds one of these (literals only: no backtracking).
_HEADING_HINT = re.compile(
    "サイド|拡張メモリ|メイン|デッキ|side|sb|main|deck|"
    + "|".join(re.escape(word) for word in _GROUP_HEADINGS),
    re.IGNORECASE,
)
# "No sideboard" written out: after a heading (サイドボード：なし) or on a line alone.
_NONE_WORDS = ("なし", "無し", "ナシ", "none", "nothing")
# Invisible characters (Unicode format characters) that editors, spreadsheets and shops put
# into pasted text: a byte-order mark, zero-width spaces and joiners, direction marks, the
# soft hyphen. They are removed from the whole text first, so every entry point (page,
# API, command, registration) reads the same cards (issue #24: an API list starting with
# U+FEFF lost its first line). A character class: linear, no backtracking.
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]"
)
# Separator and layout lines are made of these alone (after NFKC): rules, dots, stars.
_RULE_CHARS = frozenset("-−‐‑‒–—―ーｰ_=~〜・･.…‥*+#○●◎◆◇■□☆★※〓|/\\ \t\u3000") | frozenset(
    chr(code)
    for code in range(0x2500, 0x2580)  # box drawing: ─ ━ ═ …
)
# List marks players put before a card line (・森原さとみ×4, - 4 森原さとみ, ● 森原さとみ 4枚).
_BULLETS = "・●○◎◆◇■□☆★▶►▷-–—*+>"
# A total line ("合計 50枚", "Total: 50") states the number of cards; it is no card.
_TOTAL_WORDS = (
    "デッキ枚数",
    "デッキ合計",
    "メイン合計",
    "合計",
    "総計",
    "総数",
    "枚数",
    "計",
    "total",
)
# Lines about the list, not in it ("デッキ名：炎のデッキ", "Player: 山田"): a key and a colon.
_ABOUT_WORDS = (
    "デッキ名", "デッキネーム", "プレイヤー名", "プレイヤー", "氏名", "名前", "大会名", "日付",
    "deckname", "decktitle", "playername", "player", "name", "event", "date",
)  # fmt: skip
_ABOUT_SEPARATORS = frozenset(":】]>」』")
# Cheap first tests (literals only), so card lines pay for none of the checks above.
_TOTAL_HINT = re.compile("|".join(_TOTAL_WORDS), re.IGNORECASE)
_ABOUT_HINT = re.compile("|".join((*_ABOUT_WORDS, "deck", "デッキ")), re.IGNORECASE)
_LONGEST_NONE_LINE = 16  # "（無し）", "- none -", "［ナシ］"
# One search decides whether a line not starting with a digit needs any of the checks
# for headings, "none", totals and lines about the list (most card lines need none).
_ANY_HINT = re.compile(
    "|".join((_HEADING_HINT.pattern, _TOTAL_HINT.pattern, _ABOUT_HINT.pattern, *_NONE_WORDS)),
    re.IGNORECASE,
)
# What may stand between a heading word and a card on the same line (サイドボード：2 水姫):
# a colon or a closing bracket must be among them.
_HEADING_CARD_SEPARATORS = frozenset(":】)]>」』》〉≫}〕")
# Headings are short; anything longer is a card line (and is never searched for one).
_LONGEST_HEADING = 40
# What players put around and inside a heading: marks, brackets, colons, rules.
_DECORATION = frozenset(
    " \t\u3000:：-=~_*+#>|/・･●○◎■□◆◇▼▽▲△▶►☆★♦♢◈※〓【】[]〔〕()<>「」『』《》〈〉≪≫{}"
)
# Words that may stand before a heading's count: "サイドボード 計15枚", "Sideboard total 15".
_COUNT_WORDS = ("合計", "計", "total")
_COUNT_UNITS = ("cards", "card", "枚")
_MARKERS = "xX×枚"
# Counts are ASCII digits once NFKC has folded the full-width ones.
_DIGITS = "0123456789"
_LINE_ENDS = ("\r\n", "\r", "\n")


class DeckLine(NamedTuple):  # a tuple: built once per line, so it must be cheap
    line: int
    count: int
    name: str
    qualifier: str | None
    section: str
    text: str
    # The line ends in a bare number ("スワティ 31") that was not read as its count: the
    # reading with that number as the count, as (count, name, qualifier).
    bare_count: tuple[int, str, str | None] | None = None


@dataclass(frozen=True)
class ParseProblem:
    line: int
    text: str
    reason_en: str
    reason_ja: str


@dataclass(frozen=True)
class SectionHeading:
    """A heading line; ``stated`` is the number of cards it says follow (None if none).
    A ``group`` heading (``【キャラクター 46枚】``) sorts cards inside ``section``."""

    line: int
    text: str
    section: str
    stated: int | None = None
    group: bool = False


@dataclass(frozen=True)
class HeadingCount:
    """A heading whose stated number of cards differs from the cards listed under it."""

    heading: SectionHeading
    actual: int


@dataclass(frozen=True)
class ParsedDecklist:
    lines: tuple[DeckLine, ...]
    problems: tuple[ParseProblem, ...]
    headings: tuple[SectionHeading, ...] = ()


def parse_decklist(text: str, is_card: Callable[[str], bool] | None = None) -> ParsedDecklist:
    """Read a pasted decklist. ``is_card`` (a name -> bool test against the card pool)
    decides lines ending in a bare number: ``スワティ 31`` is 31 copies of スワティ when
    スワティ is a card and "スワティ 31" is not. Without it such lines are read as one
    copy of the whole name, with the other reading kept in ``DeckLine.bare_count``."""
    lines: list[DeckLine] = []
    problems: list[ParseProblem] = []
    headings: list[SectionHeading] = []
    section = MAIN
    # Only real line ends count, so line numbers match what the player's editor shows
    # (str.splitlines would also split at U+2028, form feeds and the like).
    for number, raw in enumerate(split_lines(clean_text(text)), start=1):
        original = raw.strip()
        if len(original) > MAX_LINE_CHARS:
            problems.append(
                ParseProblem(
                    number,
                    original[:80] + "…",
                    f"the line is longer than {MAX_LINE_CHARS} characters",
                    f"{MAX_LINE_CHARS}文字を超える行です",
                )
            )
            continue
        line = unicodedata.normalize("NFKC", raw).strip()
        if not line:
            continue
        first = line[0]
        if first in _RULE_CHARS and is_layout_line(line):
            continue
        if first in "#/" and line.startswith(("#", "//")):
            # A comment, unless it is a heading written as one ("// Sideboard",
            # "# サイドボード"): reading that as a comment would put the sideboard in the deck.
            comment = line.lstrip("#/").strip()
            heading = read_heading(comment) if len(comment) <= _LONGEST_HEADING else None
            if heading is not None and comment:
                section, stated = heading
                headings.append(SectionHeading(number, original, section, stated))
            elif comment and len(comment) <= _LONGEST_HEADING:
                group = read_group_heading(comment)
                if group is not None:
                    headings.append(SectionHeading(number, original, section, group[1], group=True))
            continue
        line_section = section
        # Headings, list marks and lines about the list never start with a digit; most card
        # lines do, and skip all of this.
        if not first.isdigit():
            if _ANY_HINT.search(line) is not None:
                if len(line) <= _LONGEST_HEADING:
                    heading = read_heading(line)
                    if heading is not None:
                        section, stated = heading
                        headings.append(SectionHeading(number, original, section, stated))
                        continue
                    group = read_group_heading(line)
                    if group is not None:
                        headings.append(
                            SectionHeading(number, original, section, group[1], group=True)
                        )
                        continue
                    if len(line) <= _LONGEST_NONE_LINE and _is_none_line(line):
                        continue
                    if _TOTAL_HINT.search(line) is not None and _is_total_line(line):
                        continue
                if _ABOUT_HINT.search(line, 0, 24) is not None and _is_about_line(line):
                    continue
                with_card = _heading_with_card(line)
                if with_card is not None:
                    section, line = with_card
                    line_section = section
                    headings.append(SectionHeading(number, original, section))
                else:
                    rest = _side_prefix(line)
                    if rest is not None:
                        line, line_section = rest, SIDE
            if line[0] in _BULLETS:
                unmarked = line.lstrip(_BULLETS + " ")
                if _has_word(unmarked):
                    line = unmarked
        parsed = _parse_card_line(line)
        if isinstance(parsed, ParseProblem):
            problems.append(ParseProblem(number, original, parsed.reason_en, parsed.reason_ja))
            continue
        count, name, qualifier, bare = parsed
        if (
            bare is not None
            and is_card is not None
            and not _names_card(is_card, name, qualifier)
            and _names_card(is_card, *bare[1:])
        ):
            count, name, qualifier = bare
            bare = None
        lines.append(DeckLine(number, count, name, qualifier, line_section, original, bare))
    return ParsedDecklist(tuple(lines), tuple(problems), tuple(headings))


def clean_text(text: str) -> str:
    """``text`` without invisible characters (see ``_INVISIBLE``); line ends are kept, so
    line numbers still match the player's editor."""
    return _INVISIBLE.sub("", text)


def is_layout_line(line: str) -> bool:
    """A separator or layout line (``−−−−``, ``====``, ``・・・``, ``━━━``): no card, no
    heading. ``line`` is NFKC and stripped."""
    return line[0] in _RULE_CHARS and all(char in _RULE_CHARS for char in line)


def split_lines(text: str) -> list[str]:
    """The decklist's lines as an editor numbers them (\\r\\n, \\r and \\n end a line)."""
    if "\r" not in text:
        return text.split("\n")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def heading_counts(
    parsed: ParsedDecklist, counted: Iterable[tuple[int, str, int]] | None = None
) -> list[HeadingCount]:
    """Headings that state a number of cards other than the number listed under them, in
    the heading's section (an ``SB:`` line under the main deck heading is not part of it).
    A section heading covers the lines up to the next section heading; a group heading
    (``【キャラクター 46枚】``) those up to the next heading of either kind. ``counted``
    gives (line, section, count) of every card line as finally read (after a bare trailing
    count was settled); the parsed lines by default.
    """
    if not any(heading.stated is not None for heading in parsed.headings):
        return []
    if counted is None:
        counted = ((line.line, line.section, line.count) for line in parsed.lines)
    counted = sorted(counted)
    totals: dict[int, int] = {}  # index in parsed.headings -> cards listed under it
    for groups in (False, True):
        # Section headings are found among section headings only; group headings among all.
        indexes = [i for i, h in enumerate(parsed.headings) if groups or not h.group]
        starts = [parsed.headings[i].line for i in indexes]
        for line_number, section, count in counted:
            # The heading above this line: the last one that starts before it.
            found = _last_before(starts, line_number)
            if found is None:
                continue
            index = indexes[found]
            heading = parsed.headings[index]
            if heading.group == groups and heading.section == section:
                totals[index] = totals.get(index, 0) + count
    return [
        HeadingCount(heading, totals.get(index, 0))
        for index, heading in enumerate(parsed.headings)
        if heading.stated is not None and heading.stated != totals.get(index, 0)
    ]


def _last_before(starts: list[int], line_number: int) -> int | None:
    low, high = 0, len(starts)
    while low < high:
        middle = (low + high) // 2
        if starts[middle] < line_number:
            low = middle + 1
        else:
            high = middle
    return low - 1 if low else None


def read_heading(line: str) -> tuple[str, int | None] | None:
    """(section, stated count) if ``line`` (NFKC, stripped, short) is a section heading:
    a heading word with any decoration around it and an optional count
    (``【サイドボード（15枚）】``, ``SB (15):``, ``■メインデッキ 計50枚``)."""
    if _HEADING_HINT.search(line) is None:
        return None
    compact = "".join(line.split()).casefold()
    start, end = 0, len(compact)
    while start < end and compact[start] in _DECORATION:
        start += 1
    while end > start and compact[end - 1] in _DECORATION:
        end -= 1
    body = compact[start:end]
    for word, section in _HEADING_WORDS:
        if body.startswith(word):
            rest = body[len(word) :]
            if not rest:
                return section, None
            stated = _stated_count(rest)
            if stated is not None:
                return section, stated
    return None


def read_group_heading(line: str) -> tuple[str, int | None] | None:
    """(group word, stated count) if ``line`` (NFKC, stripped, short) is a group heading:
    a card type with any decoration and an optional count (``【キャラクター 46枚】``,
    ``キャラクター：46枚``, ``■イベント（8）``)."""
    if _HEADING_HINT.search(line) is None:
        return None
    body = _undecorated("".join(line.split()).casefold())
    for word in _GROUP_HEADINGS:
        if body.startswith(word):
            rest = body[len(word) :]
            if not rest:
                return word, None
            stated = _stated_count(rest, none_words=False)
            if stated is not None:
                return word, stated
            return None
    return None


def _undecorated(compact: str) -> str:
    start, end = 0, len(compact)
    while start < end and compact[start] in _DECORATION:
        start += 1
    while end > start and compact[end - 1] in _DECORATION:
        end -= 1
    return compact[start:end]


def _is_none_line(line: str) -> bool:
    """A line saying "nothing" alone (``なし``, ``（無し）``, ``- none -``)."""
    return _undecorated("".join(line.split()).casefold()) in _NONE_WORDS


def _is_total_line(line: str) -> bool:
    """A line giving the list's total (``合計 50枚``, ``計50枚``, ``Total: 50 cards``)."""
    if len(line) > _LONGEST_HEADING:
        return False
    body = _undecorated("".join(line.split()).casefold())
    for word in _TOTAL_WORDS:
        if body.startswith(word):
            return _stated_count(body[len(word) :], none_words=False) is not None
    return False


def _is_about_line(line: str) -> bool:
    """A line about the list (``デッキ名：炎のデッキ``, ``【プレイヤー名】山田``, ``Deck name:
    Fire``): a known key, then a colon or a closing bracket."""
    start = 0
    while start < len(line) and line[start] in _DECORATION and line[start] not in ":":
        start += 1
    head = "".join(line[start : start + 20].split()).casefold()
    for word in _ABOUT_WORDS:
        if head.startswith(word) and head[len(word) : len(word) + 1] in _ABOUT_SEPARATORS:
            # Never skip what reads as a card with a count ("名前：森原さとみ ×4"): a card
            # hidden from the check could hide a fifth copy or a banned printing.
            value = line[line.index(head[len(word)], start) + 1 :].strip()
            return not value or (_count_first(value) is None and _count_last(value) is None)
    return False


def _heading_with_card(line: str) -> tuple[str, str] | None:
    """(section, card line) of a heading with its first card on the same line:
    ``サイドボード：2 水姫``, ``【サイドボード】2 水姫``, ``Sideboard: 水姫 ×2``. The card
    must carry a count, and a colon or closing bracket must end the heading word, so that
    card names that start with a heading word (``デッキ破壊``) stay cards. ``SB:`` is left
    to :func:`_side_prefix` (one line in the sideboard)."""
    if len(line) > MAX_LINE_CHARS or _HEADING_HINT.search(line[:_LONGEST_HEADING]) is None:
        return None
    start = 0
    while start < len(line) and line[start] in _DECORATION:
        start += 1
    for word, section in _HEADING_WORDS:
        if word == "sb" or line[start : start + len(word)].casefold() != word:
            continue
        position = start + len(word)
        separated = False
        while position < len(line) and (line[position] in _DECORATION or line[position] == "}"):
            separated = separated or line[position] in _HEADING_CARD_SEPARATORS
            position += 1
        rest = line[position:]
        if separated and rest and (rest[0] in _DIGITS or _count_last(rest) is not None):
            return section, rest
        return None
    return None


def _stated_count(rest: str, none_words: bool = True) -> int | None:
    """The count in what follows a heading word ("(15枚", ":15", "計15"; "：なし" or
    ": none" is 0 when ``none_words``), or None when it holds anything else."""
    position = 0
    while position < len(rest) and rest[position] in _DECORATION:
        position += 1
    if none_words:
        for word in _NONE_WORDS:
            if rest.startswith(word, position) and all(
                char in _DECORATION for char in rest[position + len(word) :]
            ):
                return 0
    for word in _COUNT_WORDS:
        if rest.startswith(word, position):
            position += len(word)
            break
    while position < len(rest) and rest[position] in _DECORATION:
        position += 1
    digits_start = position
    while position < len(rest) and rest[position] in _DIGITS:
        position += 1
    digits = rest[digits_start:position]
    if not digits or len(digits) > 4:
        return None
    for unit in _COUNT_UNITS:
        if rest.startswith(unit, position):
            position += len(unit)
            break
    if any(char not in _DECORATION for char in rest[position:]):
        return None
    return int(digits)


def _side_prefix(line: str) -> str | None:
    """The rest of a card line written ``SB: 2 水姫`` or ``Sideboard: 2 水姫``."""
    lowered = line[:12].casefold()
    for word in ("sideboard", "sb"):
        if lowered.startswith(word):
            rest = line[len(word) :].lstrip()
            if rest.startswith(":"):
                rest = rest[1:].strip()
                return rest or None
    return None


def _names_card(is_card: Callable[[str], bool], name: str, qualifier: str | None) -> bool:
    # A bracketed tail may be part of the printed name (レプリカント（改）).
    return is_card(name) or (qualifier is not None and is_card(f"{name}({qualifier})"))


def _count_first(line: str) -> tuple[str, str] | None:
    """(count, name) of ``4 Name``, ``4x Name``, ``4枚 Name``, ``4×Name``."""
    after_digits = line.lstrip(_DIGITS)
    if len(after_digits) == len(line):
        return None
    digits = line[: len(line) - len(after_digits)]
    rest = after_digits.lstrip()
    spaced = len(rest) != len(after_digits)
    if rest and rest[0] in _MARKERS:
        after_marker = rest[1:]
        name = after_marker.lstrip()
        # "4 xenon" is four of "xenon": a Latin x after a space needs a space after it.
        letter = rest[0] in "xX"
        if name and (not spaced or not letter or len(name) != len(after_marker)):
            if name.startswith(":"):  # "4枚：森原さとみ"
                name = name[1:].lstrip()
            return digits, name
    if rest.startswith(":"):  # "4: 森原さとみ"
        rest = rest[1:].lstrip()
        spaced = True
    if spaced and rest:
        return digits, rest
    return None


def _count_last(line: str) -> tuple[str, str] | None:
    """(name, count) of ``Name ×4``, ``Name x4``, ``Name 4枚``, ``Name×4枚``, ``Name: 4``,
    ``Name *4``."""
    mai = line.endswith("枚")
    body = line[:-1].rstrip() if mai else line
    name = body.rstrip(_DIGITS)
    if len(name) == len(body):
        return None
    digits = body[len(name) :]
    name = name.rstrip()
    if not name:
        return None
    last = name[-1]
    # "Name x4"; with 枚 ("Name x4枚") a Latin x only after a space or a non-Latin
    # character, so "Max4枚" stays four of "Max".
    latin_x = last in "xX" and (
        not mai or len(name) == 1 or not name[-2].isascii() or name[-2] == " "
    )
    if last in "×*:" or latin_x:
        name = name[:-1].rstrip()
    elif not mai:
        return None
    return (name, digits) if name else None


def _bracket_count(tail: str) -> str | None:
    """The count in a bracket after the name: ``4``, ``4枚``, ``x4``, ``×4枚``."""
    text = "".join(tail.split())
    if text[:1] in ("x", "X", "×", "*"):
        text = text[1:]
    if text.endswith("枚"):
        text = text[:-1]
    return text if text and not text.strip(_DIGITS) else None


def _bare_count_last(line: str) -> tuple[str, str] | None:
    """(name, count) of ``Name 4``: a number after a space, with no count marker."""
    body = line.rstrip(_DIGITS)
    if len(body) == len(line) or not body or not body[-1].isspace():
        return None
    name = body.rstrip()
    return (name, line[len(body) :]) if name else None


def _split_qualifier(name: str) -> tuple[str, str | None]:
    """``狡猾フィーリア (β)`` -> (``狡猾フィーリア``, ``β``); the last bracketed group holding
    no bracket, when a name stands before it."""
    if not name.endswith((")", "]")):
        return name, None
    inner_end = len(name) - 1
    opening = max(name.rfind("(", 0, inner_end), name.rfind("[", 0, inner_end))
    if opening <= 0:
        return name, None
    inner = name[opening + 1 : inner_end]
    if not inner.strip() or any(char in "()[]" for char in inner):
        return name, None
    before = name[:opening].rstrip()
    if not before:
        return name, None
    return before, inner.strip()


def _has_word(text: str) -> bool:
    return any(char.isalnum() for char in text)


def _read_count(count_text: str) -> int | ParseProblem:
    count = int(count_text) if len(count_text) <= 4 else MAX_COUNT + 1
    if 1 <= count <= MAX_COUNT:
        return count
    return ParseProblem(
        0,
        "",
        f"the number of copies must be 1 to {MAX_COUNT}",
        f"枚数は1〜{MAX_COUNT}にしてください",
    )


def _parse_card_line(
    line: str,
) -> tuple[int, str, str | None, tuple[int, str, str | None] | None] | ParseProblem:
    count_text = None
    name = line
    qualifier: str | None = None
    found = _count_first(line)
    if found is not None:
        count_text, name = found
    else:
        found = _count_last(line)
        if found is not None:
            name, count_text = found
        else:
            # The count before a printing ("狡猾フィーリア ×4 (β)") or in brackets
            # ("森原さとみ（4枚）", "森原さとみ (x4)"): a bracket never names a set by digits.
            before, tail = _split_qualifier(line)
            if tail is not None:
                found = _count_last(before)
                if found is not None:
                    (name, count_text), qualifier = found, tail
                else:
                    count_text = _bracket_count(tail)
                    if count_text is not None:
                        name = before
    name = name.strip()
    if not _has_word(name):
        return ParseProblem(0, line, "no card name on this line", "この行にカード名がありません")
    count = 1
    if count_text is not None:
        count = _read_count(count_text)
        if isinstance(count, ParseProblem):
            return count
    bare = None
    if count_text is None and name[-1] in _DIGITS:
        found = _bare_count_last(name)
        if found is not None and _has_word(found[0]):
            bare_count = _read_count(found[1])
            if not isinstance(bare_count, ParseProblem):
                bare = (bare_count, *_split_qualifier(found[0]))
    if qualifier is None:
        name, qualifier = _split_qualifier(name)
    return count, name, qualifier, bare
