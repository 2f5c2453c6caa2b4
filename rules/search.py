"""Search queries, ranking tiers and highlighting, in plain Python (no Django).

A query is split at whitespace into terms; each term is folded (:func:`rules.text.search_key`:
width, case, spaces and hiragana/katakana) and a text matches when its folded form contains
every term as a substring. Substrings, not words: Japanese has no spaces, and two-character
queries such as 対象, 割込 or 維持費 must find what they are part of. The database layer
(``rules.selectors``) applies the same rule with ``LIKE '%term%'`` on stored folded texts,
so every database finds the same results. Results are ranked by :class:`Tier` first.

Judges type their own words: a term that the word list (``search_words.json``) knows, such
as 制限時間 or sideboard, stands for itself or the rulebook's words for it (時間制限,
時間切れ; サイドボード). Such a term is a group of alternatives: a text matches when it
contains one of each group's alternatives.
"""

from __future__ import annotations

import difflib
import functools
import html
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

from .text import fold, fold_kana, fold_with_spans, looks_like_number, search_key

WORDS_FILE = Path(__file__).resolve().parent / "search_words.json"


class Tier(IntEnum):
    """How well a result matches; lower is better."""

    EXACT_NUMBER = 0  # the section numbered 4-3-8, the card named exactly so
    EXACT_TITLE = 1
    TITLE_PREFIX = 2
    IN_TITLE = 3  # every term in the title (or card name)
    SUBSECTION = 4  # a section under the number searched for: 4-3-8-1 for 4-3-8
    IN_TEXT = 5


@dataclass(frozen=True)
class Synonym:
    """A word the judge typed (as typed) and the rulebook's words it also stands for."""

    typed: str
    rulebook: tuple[str, ...]


@dataclass(frozen=True)
class Query:
    raw: str
    terms: tuple[str, ...]  # folded (fold), without repeats; for card names
    phrase: str  # the whole query folded (spaces removed)
    number: str | None  # the query as a section number key ("4-3-8") when it is one
    # Search keys (search_key) for rules texts: every group must match, one alternative
    # of each is enough.
    groups: tuple[tuple[str, ...], ...] = ()
    synonyms: tuple[Synonym, ...] = field(default=())

    def __bool__(self) -> bool:
        return bool(self.groups)

    @property
    def marks(self) -> tuple[str, ...]:
        """Every alternative of every group: what to highlight."""
        return tuple(dict.fromkeys(alt for group in self.groups for alt in group))

    @property
    def phrases(self) -> tuple[str, ...]:
        """Search keys a title equal to the whole query may have: the query itself and,
        for a one-group query, the rulebook's words for it."""
        whole = (search_key(self.raw),)
        if len(self.groups) == 1:
            return tuple(dict.fromkeys(whole + self.groups[0]))
        return whole


@dataclass(frozen=True)
class WordList:
    """``search_words.json`` by search key: typed word → rulebook words (as printed)."""

    rulebook_words: dict[str, tuple[str, ...]]
    longest: int  # the most query words one typed entry spans ("time limit": 2)

    def containing(self, key: str) -> list[str]:
        """Typed entries with a kanji inside ``key``, longest first: 山札切れ in 山札切れ負け.
        Kana-only entries are not looked for inside words (マナ is also part of マナミ, サイド
        of サイドボート), nor entries whose rulebook words ``key`` already has."""
        found = [
            typed
            for typed in self.rulebook_words
            if typed != key
            and typed in key
            and _KANJI.search(typed)
            and not any(search_key(word) in key for word in self.rulebook_words[typed])
        ]
        return sorted(found, key=len, reverse=True)


_KANJI = re.compile("[\u3400-\u9fff]")


@functools.cache
def word_list() -> WordList:
    data = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    rulebook_words: dict[str, tuple[str, ...]] = {}
    longest = 1
    for entry in data["words"]:
        for typed in entry["typed"]:
            key = search_key(typed)
            merged = rulebook_words.get(key, ()) + tuple(entry["rulebook"])
            rulebook_words[key] = tuple(dict.fromkeys(merged))
            longest = max(longest, len(typed.split()))
    return WordList(rulebook_words=rulebook_words, longest=longest)


def parse_query(raw: str, *, words: WordList | None = None) -> Query:
    words = word_list() if words is None else words
    terms: list[str] = []
    for word in raw.split():
        term = fold(word)
        # A term inside another term adds nothing to an all-terms-must-match search.
        if term and term not in terms:
            terms.append(term)
    terms = [term for term in terms if not any(term != other and term in other for other in terms)]
    groups, synonyms = _groups(raw.split(), words)
    phrase = fold(raw)
    return Query(
        raw=raw,
        terms=tuple(terms),
        phrase=phrase,
        number=phrase if looks_like_number(phrase) else None,
        groups=groups,
        synonyms=synonyms,
    )


def _groups(
    typed: list[str], words: WordList
) -> tuple[tuple[tuple[str, ...], ...], tuple[Synonym, ...]]:
    groups: list[tuple[str, ...]] = []
    synonyms: list[Synonym] = []
    position = 0
    while position < len(typed):
        # The longest run of query words that the word list knows ("time limit").
        for end in range(min(len(typed), position + words.longest), position, -1):
            key = search_key("".join(typed[position:end]))
            if key in words.rulebook_words:
                rulebook = words.rulebook_words[key]
                synonyms.append(Synonym(" ".join(typed[position:end]), rulebook))
                groups.append((key, *(search_key(word) for word in rulebook)))
                position = end
                break
        else:
            key = search_key(typed[position])
            position += 1
            if not key:
                continue
            alternatives = [key]
            for inner in words.containing(key):
                rulebook = words.rulebook_words[inner]
                synonyms.append(Synonym(typed[position - 1], rulebook))
                alternatives += [key.replace(inner, search_key(word)) for word in rulebook]
                break
            groups.append(tuple(dict.fromkeys(alternatives)))
    return _without_implied(groups), tuple(synonyms)


def _without_implied(groups: list[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """Drop repeated groups and groups that another one implies (対象 when 対象の is
    there: every text with 対象の has 対象)."""
    kept: list[tuple[str, ...]] = []
    for group in groups:
        if group not in kept:
            kept.append(group)

    def implied_by(group: tuple[str, ...], other: tuple[str, ...]) -> bool:
        return all(any(alt in other_alt for alt in group) for other_alt in other)

    return tuple(
        group
        for index, group in enumerate(kept)
        if not any(
            other != group
            and implied_by(group, other)
            # Two groups implying each other: keep the first.
            and not (implied_by(other, group) and other_index > index)
            for other_index, other in enumerate(kept)
        )
    )


def matches(text: str, query: Query) -> bool:
    folded = search_key(text)
    return bool(query.groups) and all(any(alt in folded for alt in group) for group in query.groups)


def name_variants(term: str) -> tuple[str, ...]:
    """A folded term as typed, in hiragana and in katakana: card names are stored
    without kana folding (names written in different kana are different cards, rule
    4−2−6), but a search for ふぃーりあ should still find フィーリア."""
    return tuple(dict.fromkeys((term, fold_kana(term), _to_katakana(term))))


def matches_name(name: str, query: Query) -> bool:
    """What the card search finds by name (the rule the database applies to
    ``Card.search_key``)."""
    folded = fold(name)
    return bool(query.terms) and all(
        any(variant in folded for variant in name_variants(term)) for term in query.terms
    )


_HIRAGANA_TO_KATAKANA = {code: code + 0x60 for code in range(0x3041, 0x3097)} | {
    0x309D: 0x30FD,
    0x309E: 0x30FE,
}


def _to_katakana(text: str) -> str:
    return text.translate(_HIRAGANA_TO_KATAKANA)


def match_spans(text: str, terms: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where the terms occur in ``text`` (original positions), merged and in order."""
    return _merge([span for spans in _term_spans(text, terms) for span in spans])


def _term_spans(text: str, terms: tuple[str, ...]) -> list[list[tuple[int, int]]]:
    """For each term, where it occurs in ``text`` (original positions)."""
    if not terms:
        return []
    folded, spans = fold_with_spans(text)
    folded = fold_kana(folded)  # one character for one: the spans stay valid
    found = []
    for term in (fold_kana(term) for term in terms):
        occurrences = []
        start = folded.find(term)
        while start != -1:
            end = start + len(term)
            occurrences.append((spans[start][0], spans[end - 1][1]))
            start = folded.find(term, end)
        found.append(occurrences)
    return found


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, terms: tuple[str, ...]) -> str:
    """``text`` as HTML with every match in ``<mark>``: escaped first, then marked."""
    return _marked(text, match_spans(text, terms), 0, len(text))


def excerpt(text: str, terms: tuple[str, ...], width: int = 160) -> str:
    """About ``width`` characters of ``text`` where the most different terms occur
    (the earliest such place), highlighted, with line breaks as spaces and … where text
    was cut."""
    text = " ".join(text.split())
    per_term = _term_spans(text, terms)
    spans = _merge([span for occurrences in per_term for span in occurrences])
    if len(text) <= width:
        start, end = 0, len(text)
    else:
        start = _best_window(per_term, spans, width)
        start = max(0, min(start, len(text) - width))
        end = min(len(text), start + width)
    marked = _marked(text, spans, start, end)
    return ("…" if start > 0 else "") + marked + ("…" if end < len(text) else "")


# Windows tried when looking for the best excerpt (one per match, from the first).
_MAX_WINDOWS = 50


def _best_window(
    per_term: list[list[tuple[int, int]]], spans: list[tuple[int, int]], width: int
) -> int:
    best_start, best_score = 0, -1
    for span_start, _span_end in spans[:_MAX_WINDOWS]:
        start = max(0, span_start - width // 4)
        end = start + width
        score = sum(
            any(start <= s and e <= end for s, e in occurrences) for occurrences in per_term
        )
        if score > best_score:
            best_start, best_score = start, score
    return best_start


def _marked(text: str, spans: list[tuple[int, int]], start: int, end: int) -> str:
    parts = []
    position = start
    for span_start, span_end in spans:
        span_start, span_end = max(span_start, start), min(span_end, end)
        if span_start >= span_end:
            continue
        parts.append(html.escape(text[position:span_start]))
        parts.append(f"<mark>{html.escape(text[span_start:span_end])}</mark>")
        position = span_end
    parts.append(html.escape(text[position:end]))
    return "".join(parts)


# --- "did you mean" -----------------------------------------------------------------------

# Where a title is cut into the terms it is made of: particles and brackets.
_TITLE_PIECES = re.compile(r"[の・、，,「」『』（）()〔〕【】〜~/\s]+")


def index_terms(titles: Iterable[str], words: WordList | None = None) -> list[str]:
    """The terms suggestions are taken from: section titles, the pieces of them between
    particles and brackets (サイドボード and 準備 of サイドボードの準備), and every word of
    the word list (typed and rulebook words)."""
    words = word_list() if words is None else words
    terms: list[str] = []
    for title in titles:
        terms.append(title.strip())
        terms += [piece for piece in _TITLE_PIECES.split(title) if len(piece) >= 2]
    data = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    for entry in data["words"]:
        terms += entry["typed"] + entry["rulebook"]
    return terms


def suggest(
    typed: str, candidates: Iterable[str], *, limit: int = 3, cutoff: float = 0.6
) -> list[str]:
    """The candidates closest to ``typed`` (compared as search keys, so width, case and
    kana do not count), best first, at most ``limit``, none equal to what was typed."""
    key = search_key(typed)
    if not key:
        return []
    by_key: dict[str, str] = {}
    for candidate in candidates:
        candidate_key = search_key(candidate)
        if candidate_key and candidate_key != key:
            by_key.setdefault(candidate_key, " ".join(candidate.split()))
    return [by_key[k] for k in difflib.get_close_matches(key, by_key, n=limit, cutoff=cutoff)]
