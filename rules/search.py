"""Search queries, ranking tiers and highlighting, in plain Python (no Django).

A query is split at whitespace into terms; each term is folded (:func:`rules.text.fold`)
and a text matches when its folded form contains every term as a substring. Substrings,
not words: Japanese has no spaces, and two-character queries such as 対象, 割込 or 維持費
must find what they are part of. The database layer (``rules.selectors``) applies the
same rule with ``LIKE '%term%'`` on stored folded texts, so every database finds the same
results. Results are ranked by :class:`Tier` first.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from enum import IntEnum

from .text import fold, fold_with_spans, looks_like_number


class Tier(IntEnum):
    """How well a result matches; lower is better."""

    EXACT_NUMBER = 0  # the section numbered 4-3-8, the card named exactly so
    EXACT_TITLE = 1
    TITLE_PREFIX = 2
    IN_TITLE = 3  # every term in the title (or card name)
    SUBSECTION = 4  # a section under the number searched for: 4-3-8-1 for 4-3-8
    IN_TEXT = 5


@dataclass(frozen=True)
class Query:
    raw: str
    terms: tuple[str, ...]  # folded, without repeats; empty when nothing to search
    phrase: str  # the whole query folded (spaces removed)
    number: str | None  # the query as a section number key ("4-3-8") when it is one

    def __bool__(self) -> bool:
        return bool(self.terms)


def parse_query(raw: str) -> Query:
    terms: list[str] = []
    for word in raw.split():
        term = fold(word)
        # A term inside another term adds nothing to an all-terms-must-match search.
        if term and term not in terms:
            terms.append(term)
    terms = [term for term in terms if not any(term != other and term in other for other in terms)]
    phrase = fold(raw)
    return Query(
        raw=raw,
        terms=tuple(terms),
        phrase=phrase,
        number=phrase if looks_like_number(phrase) else None,
    )


def matches(text: str, query: Query) -> bool:
    folded = fold(text)
    return bool(query.terms) and all(term in folded for term in query.terms)


def match_spans(text: str, terms: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where the terms occur in ``text`` (original positions), merged and in order."""
    return _merge([span for spans in _term_spans(text, terms) for span in spans])


def _term_spans(text: str, terms: tuple[str, ...]) -> list[list[tuple[int, int]]]:
    """For each term, where it occurs in ``text`` (original positions)."""
    if not terms:
        return []
    folded, spans = fold_with_spans(text)
    found = []
    for term in terms:
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
