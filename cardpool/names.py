"""Card-name identity (rulebook 1−2−1, 4−2−6) and search keys.

A card is its printed name (1−2−1: cards with the same name count together). The brackets
the rulebook and players put around a name are quotation marks, not part of it: the rulebook
writes one card both as 〔山名春恵〕 and as 『山名 春恵』. So two written names are the same card
when they are equal after

* Unicode NFKC (full- and half-width forms fold: ``ｽﾜﾃｨ`` = ``スワティ``, ``ＡＢＣ`` = ``ABC``),
* removing every whitespace character and invisible formatting character (zero-width spaces,
  joiners, byte-order marks, direction marks and embeddings),
* removing quotation brackets at the ends (〔〕《》『』「」【】[]〈〉〖〗〘〙 in every width),
* folding the wave dash variants (〜 U+301C, ～ U+FF5E, ~) to one character, and ellipsis
  variants (…, ……, ・・・, ...) to one.

Different spellings of the same reading stay different cards (4−2−6: 〔鳴瀬真奈美〕 and
〔ナルセマナミ〕 are two names), so no kana folding or reading-based matching happens here.
Every step is linear in the length of the name.
"""

from __future__ import annotations

import re
import unicodedata

# Opening and closing quotation brackets, after NFKC (which turns ［］ into [] and ｢｣ into 「」).
OPENING_BRACKETS = "〔《『「【[〈〖〘⟦"
CLOSING_BRACKETS = "〕》』」】]〉〗〙⟧"

# Characters that change nothing a reader sees: zero-width space/joiners, word joiner, BOM,
# soft hyphen, Arabic letter mark, left-to-right/right-to-left marks, embeddings, overrides
# and isolates. A name typed or pasted with one of them is still the same name.
INVISIBLE = "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

_DROP = {ord(char): None for char in INVISIBLE + BIDI_CONTROLS}
# U+301C WAVE DASH is the one kept; NFKC has already turned U+FF5E into "~".
_WAVE = {ord(char): "〜" for char in "~\u2053\u223c\u301c\u3030"}
_FOLD = {**_DROP, **_WAVE}
# After NFKC an ellipsis "…" is "...", "‥" is "..", and "･" is "・": any run of two or
# more dots or middle dots is one ellipsis.
_ELLIPSIS = re.compile(r"[.・]{2,}")


def name_key(name: str) -> str:
    """The identity of a card name (see the module docstring)."""
    text = unicodedata.normalize("NFKC", name).translate(_FOLD)
    # str.split() splits at exactly the characters str.isspace() accepts, like \s does.
    text = "".join(text.split())
    if not unicodedata.is_normalized("NFKC", text):
        # Removing a space can join a combining mark to the letter before it (NFKC turns
        # "¸" into a space and a combining cedilla), so normalise once more.
        text = unicodedata.normalize("NFKC", text)
    text = text.lstrip(OPENING_BRACKETS).rstrip(CLOSING_BRACKETS)
    if "." in text or "・" in text:
        text = _ELLIPSIS.sub("…", text)
    return text


def search_key(text: str) -> str:
    """A key for case-, width- and spacing-insensitive substring search.

    Full-width and half-width forms fold together through NFKC (``ＡＢＣ`` → ``abc``,
    ``ｽﾜﾃｨ`` → ``スワティ``), Latin letters fold case. Used for searching only; it is
    looser than :func:`name_key` on purpose (case), and must never decide identity.
    """
    return name_key(text).casefold()


def has_bidi_controls(text: str) -> bool:
    """True when ``text`` holds a bidirectional embedding, override or isolate, which can
    make a name display as something other than what it is."""
    return any(char in BIDI_CONTROLS for char in text)
