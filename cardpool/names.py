"""Card-name identity (rulebook 4−2−6) and search keys.

Two printed names are the same card when they are equal after Unicode NFKC and with every
whitespace character removed: the rulebook writes both 〔山名春恵〕 and 『山名 春恵』 for one
card. Different spellings of the same reading stay different cards (4−2−6: 〔鳴瀬真奈美〕 and
〔ナルセマナミ〕 are two names), so no kana folding or reading-based matching happens here.
"""

from __future__ import annotations

import unicodedata


def name_key(name: str) -> str:
    """The identity of a card name: NFKC, all whitespace removed."""
    # str.split() splits at exactly the characters str.isspace() accepts, like \s does.
    return "".join(unicodedata.normalize("NFKC", name).split())


def search_key(text: str) -> str:
    """A key for case-, width- and spacing-insensitive substring search.

    Full-width and half-width forms fold together through NFKC (``ＡＢＣ`` → ``abc``,
    ``ｽﾜﾃｨ`` → ``スワティ``), Latin letters fold case. Used for searching only; it is
    looser than :func:`name_key` on purpose (case), and must never decide identity.
    """
    return name_key(text).casefold()
