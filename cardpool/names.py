"""Card-name identity (rulebook 1−2−1, 4−2−6) and search keys.

A card is its printed name (1−2−1: cards with the same name count together). The brackets
the rulebook and players put around a name are quotation marks, not part of it: the rulebook
writes one card both as 〔山名春恵〕 and as 『山名 春恵』. So two written names are the same card
when they are equal after

* Unicode NFKC (full- and half-width forms fold: ``ｽﾜﾃｨ`` = ``スワティ``, ``ＡＢＣ`` = ``ABC``),
* removing every whitespace character and invisible character (zero-width spaces and
  joiners, byte-order marks, direction marks and embeddings, variation selectors, fillers),
* removing quotation brackets and marks at the ends (〔〕《》『』「」【】[]〈〉〖〗〘〙<>“”‘’"'
  in every width), and parentheses that wrap the whole name,
* folding the wave dash variants (〜 U+301C, ～ U+FF5E, ~) to one character, the Latin
  middle dot to ・, and ellipsis variants (…, ……, ・・・, ..., 。。。, ⋯) to one.

Different spellings of the same reading stay different cards (4−2−6: 〔鳴瀬真奈美〕 and
〔ナルセマナミ〕 are two names), so no kana folding or reading-based matching happens here.
Every step is linear in the length of the name.
"""

from __future__ import annotations

import re
import unicodedata

# Opening and closing quotation brackets and quotation marks, after NFKC (which turns
# ［］ into [], ｢｣ into 「」 and ＜＞ into <>). Parentheses are stripped only when they wrap
# the whole name: a printed name may end in one, as in レプリカント（改）.
OPENING_BRACKETS = "〔《『「【[〈〖〘⟦<“‘\"'"
CLOSING_BRACKETS = "〕》』」】]〉〗〙⟧>”’\"'"

# Characters that change nothing a reader sees: soft hyphen, combining grapheme joiner,
# Hangul and Mongolian fillers and variation selectors, zero-width space/joiners, marks,
# word joiner and invisible operators, braille blank, byte-order mark, tag characters. A
# name typed or pasted with one of them is still the same name.
INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff"
)
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

_INVISIBLE = re.compile(f"[{INVISIBLE}{BIDI_CONTROLS}]")
# U+301C WAVE DASH is the one kept (NFKC has already turned U+FF5E into "~"); a Latin
# middle dot is the katakana one.
_FOLD = {
    **{ord(char): "〜" for char in "~\u2053\u223c\u301c\u3030"},
    ord("\u00b7"): "・",
}
# After NFKC an ellipsis "…" is "...", "‥" is "..", "︙" is "...", and "･" is "・": any run
# of two or more dots, middle dots or ideographic full stops, or a midline ellipsis, is
# one ellipsis.
_ELLIPSIS = re.compile(r"[.・。]{2,}|⋯+")


def name_key(name: str) -> str:
    """The identity of a card name (see the module docstring)."""
    text = unicodedata.normalize("NFKC", name)
    text = _INVISIBLE.sub("", text).translate(_FOLD)
    # str.split() splits at exactly the characters str.isspace() accepts, like \s does.
    text = "".join(text.split())
    if not unicodedata.is_normalized("NFKC", text):
        # Removing a space can join a combining mark to the letter before it (NFKC turns
        # "¸" into a space and a combining cedilla), so normalise once more.
        text = unicodedata.normalize("NFKC", text)
    text = _strip_wrapping(text)
    if "." in text or "・" in text or "。" in text or "⋯" in text:
        text = _ELLIPSIS.sub("…", text)
    return text


# Brackets and parentheses nest a few levels at most (「『森原さとみ』」); a bound keeps a
# hostile search text of thousands of nested parentheses linear.
_MAX_WRAPPING = 8


def _strip_wrapping(text: str) -> str:
    for _ in range(_MAX_WRAPPING):
        stripped = text.lstrip(OPENING_BRACKETS).rstrip(CLOSING_BRACKETS)
        if _wrapped_in_parentheses(stripped):
            stripped = stripped[1:-1]
        if stripped == text:
            break
        text = stripped
    return text


def search_key(text: str) -> str:
    """A key for case-, width- and spacing-insensitive substring search.

    Full-width and half-width forms fold together through NFKC (``ＡＢＣ`` → ``abc``,
    ``ｽﾜﾃｨ`` → ``スワティ``), Latin letters fold case. Used for searching only; it is
    looser than :func:`name_key` on purpose (case), and must never decide identity.
    """
    return name_key(text).casefold()


def _wrapped_in_parentheses(text: str) -> bool:
    """True when the first "(" closes at the last character: "(レプリカント(改))" is
    wrapped, "(改)レプリカント(改)" is not."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    last = len(text) - 1
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0 and index < last:
                return False
    return depth == 0


def bare_name(name: str) -> str:
    """``name`` as cards print it: without the quotation brackets or marks (in any width)
    wrapped around it, and without surrounding spaces. Inner spaces and characters stay as
    written (the name shown on pages), unlike :func:`name_key`."""
    text = name.strip()
    while text:
        first = unicodedata.normalize("NFKC", text[0])
        last = unicodedata.normalize("NFKC", text[-1])
        if first and first in OPENING_BRACKETS:
            text = text[1:].strip()
        elif last and last in CLOSING_BRACKETS:
            text = text[:-1].strip()
        else:
            break
    return text or name.strip()


def first_bidi_control(text: str) -> str | None:
    """The first bidirectional embedding, override or isolate in ``text`` (None when it
    holds none): the one scan behind :func:`has_bidi_controls`, :func:`bidi_problem` and
    the event forms' ``NoBidiControls``."""
    return next((char for char in text if char in BIDI_CONTROLS), None)


def has_bidi_controls(text: str) -> bool:
    """True when ``text`` holds a bidirectional embedding, override or isolate, which can
    make a name display as something other than what it is."""
    return first_bidi_control(text) is not None


def bidi_problem(text: str) -> str:
    """Why ``text`` may not be a name people are shown, or "": a bidirectional embedding,
    override or isolate in it (translated, naming the character). The card admin and the
    card import refuse a card name with one (name identity, :func:`name_key`, ignores it),
    the event file's import an event's or a user's name."""
    found = first_bidi_control(text)
    if found is None:
        return ""
    from django.utils.translation import gettext

    return gettext(
        "contains a character that changes the text direction (%(character)s); remove it."
    ) % {"character": f"U+{ord(found):04X}"}


# How card files write the rarity of a common card (rule 1−2−3 exempts common navigators).
COMMON_RARITIES = ("コモン", "C", "Common")


def is_common(rarity: str) -> bool:
    """Whether ``rarity`` names the common rarity, in any width, case or spacing."""
    return bool(rarity) and search_key(rarity) in {search_key(word) for word in COMMON_RARITIES}
