"""Decklists as players paste them.

Accepted line forms (after Unicode NFKC, so full-width digits and letters work):

* ``4 森原さとみ``, ``4x 森原さとみ``, ``4枚 森原さとみ``
* ``森原さとみ ×4``, ``森原さとみ x4``, ``森原さとみ 4枚``
* ``森原さとみ`` alone means one copy
* names in 〔〕《》『』「」【】 brackets
* a printing qualifier after the name: ``(β)``, ``(βedition)``, ``[base]``, ``(first)``
* section headings: サイドボード, 拡張メモリ, Sideboard, ``SB:`` (alone, or in front of a
  card line), and メイン / メインデッキ / デッキ / Main / Deck to go back to the deck
* blank lines and comment lines starting with ``#`` or ``//``

The parser never raises: a line it cannot read becomes a :class:`ParseProblem`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import NamedTuple

from .model import MAIN, SIDE

MAX_COUNT = 999

_SIDE_HEADINGS = {"サイドボード", "拡張メモリ", "sideboard", "sb", "side", "サイド"}
_MAIN_HEADINGS = {"メイン", "メインデッキ", "デッキ", "main", "maindeck", "deck", "mainboard"}
# Headings may be decorated (【サイドボード】, "Sideboard:"); anything longer is a card line.
_LONGEST_HEADING = 24
_HEADING_TRIM = " \t:：-=*【】[]〔〕()<>「」『』《》"

# A heading may carry the section's size: "サイドボード（15枚）", "Sideboard (15)", "Main: 50".
_HEADING_SIZE = re.compile(r"\d+\s*(?:枚|cards?)?\s*[)\]】]?\s*$", flags=re.IGNORECASE)
_COUNT_FIRST = re.compile(
    r"^(\d+)\s*(?:[x×]|枚)?\s+(\S.*)$|^(\d+)\s*(?:[x×]|枚)\s*(\S.*)$", flags=re.IGNORECASE
)
_COUNT_LAST = re.compile(r"^(\S.*?)\s*(?:[x×]\s*(\d+)|(\d+)\s*枚)$", flags=re.IGNORECASE)
_WORD = re.compile(r"[^\W_]")
_SIDE_PREFIX = re.compile(r"^(?:sb|sideboard)\s*:\s*(\S.*)$", flags=re.IGNORECASE)
_LINE_END = re.compile(r"\r\n|\r|\n")
_QUALIFIER = re.compile(r"^(\S.*?)\s*[(\[]([^()\[\]]+)[)\]]$")


class DeckLine(NamedTuple):  # a tuple: built once per line, so it must be cheap
    line: int
    count: int
    name: str
    qualifier: str | None
    section: str
    text: str


@dataclass(frozen=True)
class ParseProblem:
    line: int
    text: str
    reason_en: str
    reason_ja: str


@dataclass(frozen=True)
class ParsedDecklist:
    lines: tuple[DeckLine, ...]
    problems: tuple[ParseProblem, ...]


def parse_decklist(text: str) -> ParsedDecklist:
    lines: list[DeckLine] = []
    problems: list[ParseProblem] = []
    section = MAIN
    # Only real line ends count, so line numbers match what the player's editor shows
    # (str.splitlines would also split at U+2028, form feeds and the like).
    for number, raw in enumerate(split_lines(text), start=1):
        original = raw.strip()
        line = unicodedata.normalize("NFKC", raw).strip()
        if not line or line.startswith(("#", "//")):
            continue
        # Headings never start with a digit; most card lines do (skip the work for them).
        if len(line) <= _LONGEST_HEADING and not line[0].isdigit():
            heading = _HEADING_SIZE.sub("", line).strip(_HEADING_TRIM).casefold().replace(" ", "")
            if heading in _SIDE_HEADINGS:
                section = SIDE
                continue
            if heading in _MAIN_HEADINGS:
                section = MAIN
                continue
        line_section = section
        prefix = _SIDE_PREFIX.match(line)
        if prefix:
            line, line_section = prefix.group(1), SIDE
        parsed = _parse_card_line(line)
        if isinstance(parsed, ParseProblem):
            problems.append(ParseProblem(number, original, parsed.reason_en, parsed.reason_ja))
            continue
        count, name, qualifier = parsed
        lines.append(DeckLine(number, count, name, qualifier, line_section, original))
    return ParsedDecklist(tuple(lines), tuple(problems))


def split_lines(text: str) -> list[str]:
    """The decklist's lines as an editor numbers them."""
    return _LINE_END.split(text)


def _parse_card_line(line: str) -> tuple[int, str, str | None] | ParseProblem:
    count_text = None
    name = line
    match = _COUNT_FIRST.match(line)
    if match:
        count_text = match.group(1) or match.group(3)
        name = match.group(2) or match.group(4)
    else:
        match = _COUNT_LAST.match(line)
        if match:
            name = match.group(1)
            count_text = match.group(2) or match.group(3)
    name = name.strip()
    if not _WORD.search(name):
        return ParseProblem(0, line, "no card name on this line", "この行にカード名がありません")
    count = 1
    if count_text is not None:
        count = int(count_text) if len(count_text) <= 4 else MAX_COUNT + 1
        if not 1 <= count <= MAX_COUNT:
            return ParseProblem(
                0,
                line,
                f"the number of copies must be 1 to {MAX_COUNT}",
                f"枚数は1〜{MAX_COUNT}にしてください",
            )
    qualifier = None
    match = _QUALIFIER.match(name)
    if match:
        name, qualifier = match.group(1).strip(), match.group(2).strip()
    return count, name, qualifier
