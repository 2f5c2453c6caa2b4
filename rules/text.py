"""Text folding shared by the parser, the stored search keys and the search.

Plain Python, no Django. Everything that is compared for search goes through :func:`fold`:
Unicode NFKC (full-width and half-width forms become one: ``ＡＢＣ`` → ``abc``, ``ｶﾞ`` →
``ガ``, ``４－３－８`` → ``4-3-8``), case folding, every dash between two digits written as
``-`` (the rulebook prints ``4−3−8`` with U+2212, other documents use ``4-3-8`` or even
``4ー3ー8``) and all whitespace removed (the rulebook writes both 〔山名春恵〕 and 『山名 春恵』;
Japanese has no spaces between words anyway). :func:`fold` keeps hiragana and katakana apart:
〔鳴瀬真奈美〕 and 〔ナルセマナミ〕 are different names (rule 4−2−6). The search keys go one step
further (:func:`search_key`): katakana become hiragana, so a judge who types さいどぼーど
finds サイドボード. Finding both spellings is what a search should do; names stay apart
wherever identity counts (cardpool's name keys).
"""

from __future__ import annotations

import functools
import re
import unicodedata

# After NFKC, the dashes that may stand between the numbers of a section: hyphen-minus,
# the Unicode hyphens and dashes, minus sign, small hyphen-minus and the katakana long
# vowel mark (full-width － and half-width ｰ have become - and ー by then).
_DASHES = "\u002d\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\u30fc\u2043"
_DIGIT_DASH = re.compile(rf"(?<=\d)[{_DASHES}](?=\d)")
# Marks that NFKC composes into the character before them: combining marks and the
# half-width katakana (semi-)voiced sound marks.
_JOINING_MARKS = frozenset("\uff9e\uff9f\u3099\u309a")


def fold(text: str) -> str:
    """The search key of a text (see the module docstring)."""
    folded = "".join(unicodedata.normalize("NFKC", text).casefold().split())
    return _DIGIT_DASH.sub("-", folded)


# Katakana → hiragana, one character for one (so highlight positions stay valid): ァ…ヶ
# become ぁ…ゖ, ヽヾ become ゝゞ. The long vowel mark ー and the middle dot ・ are shared.
_KATAKANA_TO_HIRAGANA = {code: code - 0x60 for code in range(0x30A1, 0x30F7)} | {
    0x30FD: 0x309D,
    0x30FE: 0x309E,
}


def fold_kana(text: str) -> str:
    """``text`` with katakana written as hiragana (applied after :func:`fold`, which has
    turned half-width katakana into full-width ones)."""
    return text.translate(_KATAKANA_TO_HIRAGANA)


def search_key(text: str) -> str:
    """The stored and compared form of rules search texts: :func:`fold`, then
    :func:`fold_kana`."""
    return fold_kana(fold(text))


def fold_with_spans(text: str) -> tuple[str, list[tuple[int, int]]]:
    """:func:`fold` plus, for every folded character, the span of ``text`` it came from.

    Used to highlight matches in the original text. Works word by word (nothing merges
    across whitespace, and whitespace is dropped anyway) so that one character that
    NFKC expands (… → ...) only slows down its own word.
    """
    chars: list[str] = []
    spans: list[tuple[int, int]] = []
    for word in _NOT_SPACES.finditer(text):
        _fold_word(word.group(), word.start(), chars, spans)
    return _DIGIT_DASH.sub("-", "".join(chars)), spans


def _fold_word(word: str, offset: int, chars: list[str], spans: list[tuple[int, int]]) -> None:
    # Fast path: when no character can merge with the one before it (a kana and its
    # voiced sound mark) and the folded word is as long as the word, every character
    # became exactly one.
    normalized = unicodedata.normalize("NFKC", word).casefold()
    if (
        len(normalized) == len(word)
        and not _composing_characters().search(word)
        and not _SPACE.search(normalized)
    ):
        chars.extend(normalized)
        spans.extend((index, index + 1) for index in range(offset, offset + len(word)))
        return
    length = len(word)
    start = 0
    while start < length:
        end = start + 1
        while end < length and _joins(word[end]):
            end += 1
        for char in unicodedata.normalize("NFKC", word[start:end]).casefold():
            if not char.isspace():
                chars.append(char)
                spans.append((offset + start, offset + end))
        start = end


_NOT_SPACES = re.compile(r"\S+")
_SPACE = re.compile(r"\s")


def _joins(char: str) -> bool:
    return char in _JOINING_MARKS or unicodedata.combining(char) != 0


@functools.cache
def _composing_characters() -> re.Pattern[str]:
    """Characters that Unicode normalization may merge into the character before them:
    combining marks, and the second half of every two-character canonical decomposition
    (Hangul jamo, some vowel signs). Built once, from the planes where they occur."""
    chars = set(_JOINING_MARKS)
    for code_point in range(0x20000):
        char = chr(code_point)
        if unicodedata.combining(char):
            chars.add(char)
            continue
        decomposition = unicodedata.decomposition(char).split()
        if len(decomposition) == 2 and not decomposition[0].startswith("<"):
            chars.add(chr(int(decomposition[1], 16)))
    return re.compile("[" + "".join(re.escape(char) for char in sorted(chars)) + "]")


_NUMBER_QUERY = re.compile(r"\d+(?:-\d+)*")


def number_key(number: str) -> str:
    """The lookup key of a printed section number: ``4−3−8`` → ``4-3-8``, ``1.`` → ``1``."""
    return fold(number).rstrip(".")


def looks_like_number(key: str) -> bool:
    """Whether a folded query is a section number such as ``4-3-8``."""
    return _NUMBER_QUERY.fullmatch(key) is not None


def display_number(key: str) -> str:
    """A number key written the rulebook's way, with U+2212: ``4-3-8`` → ``4−3−8``."""
    return key.replace("-", "\u2212")
