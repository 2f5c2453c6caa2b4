"""Violation messages in English and Japanese, by stable code.

The engine does not use Django's translation machinery (it must run without Django), so
both languages travel in every report and the page shows the one the reader chose.
"""

from __future__ import annotations

import string

MESSAGES: dict[str, tuple[str, str]] = {
    # The line is quoted and the accepted forms shown, so the player can fix it (issue #24);
    # the forms only in a report's first PARSE_ERROR (PARSE_ERROR_AGAIN after it), so a list
    # of many unreadable lines does not repeat them a hundred times.
    "PARSE_ERROR": (
        "Line {line} (“{text}”) cannot be read: {reason}. Write a card as “4 Name”, "
        "“4x Name”, “Name ×4” or “Name 4枚”, and a heading as “サイドボード” or "
        "“Sideboard (15)”.",
        "{line}行目（「{text}」）を読めません: {reason}。カードは「4 カード名」「4x カード名」"
        "「カード名 ×4」「カード名 4枚」、見出しは「サイドボード」「Sideboard (15)」のように"
        "書いてください。",
    ),
    "UNKNOWN_CARD": (
        "Unknown card “{name}” on line {line}.{suggestions_en}{quantity_en}",
        "{line}行目の「{name}」というカードは見つかりません。{suggestions_ja}{quantity_ja}",
    ),
    "UNKNOWN_PRINTING": (
        "“{qualifier}” on line {line} is not a printing of {name}.",
        "{line}行目の「{qualifier}」は〔{name}〕の版ではありません。",
    ),
    "DECK_TOO_SMALL": (
        "The deck has {count:# card|# cards}; it needs at least {minimum}.",
        "デッキが{count}枚です。{minimum}枚以上必要です。",
    ),
    "DECK_TOO_LARGE": (
        "The deck has {count:# card|# cards}; at most {maximum} are allowed.",
        "デッキが{count}枚です。{maximum}枚までです。",
    ),
    "TOO_MANY_COPIES": (
        "{count:# copy|# copies} of {name} in deck and sideboard together; at most {limit}.",
        "〔{name}〕がデッキとサイドボード合わせて{count}枚あります。{limit}枚までです。",
    ),
    "SIDEBOARD_TOO_LARGE": (
        "The sideboard has {count:# card|# cards}; it may have 0, or {minimum} to {maximum}.",
        "サイドボードが{count}枚です。0枚か、{minimum}〜{maximum}枚にしてください。",
    ),
    "SIDEBOARD_TOO_SMALL": (
        "The sideboard has {count:# card|# cards}; it may have 0, or {minimum} to {maximum}.",
        "サイドボードが{count}枚です。0枚か、{minimum}〜{maximum}枚にしてください。",
    ),
    "SIDEBOARD_NOT_ALLOWED": (
        "This format has no sideboard, but {count:# card is|# cards are} listed in one.",
        "このフォーマットではサイドボードを使えませんが、{count}枚あります。",
    ),
    "BANNED": (
        "{name}{printing_en} is banned on {as_of}.",
        "〔{name}〕{printing_ja}は{as_of}時点で禁止カードです。",
    ),
    "PRINTING_NOT_LEGAL": (
        "The {set_name} printing of {name} (line {line}) is not legal in this format; "
        "another printing is.{not_yet_en}",
        "{line}行目の〔{name}〕の{set_name}版はこのフォーマットで使えません（他の版は使えます）。"
        "{not_yet_ja}",
    ),
    "SET_NOT_LEGAL": (
        "{name} (line {line}) has no printing in a set legal in this format.{not_yet_en}",
        "{line}行目の〔{name}〕は、このフォーマットで使えるセットに収録されていません。{not_yet_ja}",
    ),
    "LEADER_COUNT": (
        "The deck needs exactly {expected:# {card_type} card|# {card_type} cards} beside it; "
        "{count} listed.",
        "{card_type}カードはちょうど{expected}枚必要ですが、{count}枚あります。",
    ),
    "LEADER_RANGE_UNKNOWN": (
        "The deck-size range printed on {name} is not known (recorded: {minimum} to "
        "{maximum}), so the deck size cannot be checked; record the card's range first.",
        "〔{name}〕に印刷されたデッキ枚数の範囲が分からないため（登録: {minimum}〜{maximum}）、"
        "デッキ枚数を確認できません。先にカードの範囲を登録してください。",
    ),
    "SWAP_SIZE_MISMATCH": (
        "{out_count:# card goes|# cards go} out but {in_count:# comes|# come} in; the deck size "
        "must stay the same.",
        "{out_count}枚抜いて{in_count}枚入れています。交換の前後でデッキ枚数は同じでなければなりません。",
    ),
    "SWAP_NOT_IN_SIDEBOARD": (
        "Bringing in {count} × {name}, but the registered sideboard has {available}.",
        "〔{name}〕を{count}枚入れようとしていますが、登録したサイドボードには{available}枚です。",
    ),
    "SWAP_NOT_IN_DECK": (
        "Taking out {count} × {name}, but the registered deck has {available}.",
        "〔{name}〕を{count}枚抜こうとしていますが、登録したデッキには{available}枚です。",
    ),
}

NOTICES: dict[str, tuple[str, str]] = {
    "HEADING_COUNT_MISMATCH": (
        "The heading “{heading}” on line {line} gives a count of {stated}, but the cards "
        "listed under it add up to {actual}.",
        "{line}行目の見出し「{heading}」は{stated}枚となっていますが、その下のカードは{actual}枚です。",
    ),
    "PRINTING_UNKNOWN": (
        "No printing of {name} is recorded, so its set could not be checked.",
        "〔{name}〕の収録セットが登録されていないため、セットの確認ができません。",
    ),
    "BETA_PRINTING_CHECK": (
        "Check that these cards are not βedition printings, which are banned: {cards_en}. "
        "A βedition card has “βedition” in white letters under the title logo on its back "
        "(1−2−2).",
        "次のカードがβ版でないことを確認してください（β版は禁止カードです）: {cards_ja}。"
        "β版のカードは、うら面のタイトルロゴの下に白い文字で「βedition」と表記されています"
        "（1−2−2）。",
    ),
    "RARITY_CHECK": (
        "{count:# copy|# copies} of {name}: only common navigators may exceed {limit} "
        "(1−2−3), and no rarity is recorded for this card. Check that the cards are commons.",
        "〔{name}〕が{count}枚あります。{limit}枚を超えて入れられるのはコモンのナビゲーターカード"
        "だけです（1−2−3）。このカードのレアリティが登録されていないため、コモンであることを"
        "確認してください。",
    ),
}

# How UNKNOWN_CARD says that a list with very many unknown names was not searched for each.
UNKNOWN_LIMITS: dict[str, tuple[str, str]] = {
    # Added to the first unknown name past the ones given suggestions.
    "SUGGESTIONS_LIMITED": (
        " Suggestions are given for the first {limit} unknown names only.",
        "候補は最初の{limit}種類の名前にだけ示します。",
    ),
    # One violation for every unknown line past the ones reported one by one.
    "UNKNOWN_CARDS_MORE": (
        "Unknown cards on {count:# more line|# more lines}, from line {first} on (only the "
        "first {limit} unknown lines are listed one by one).",
        "{first}行目以降のさらに{count}行にも見つからないカードがあります"
        "（1行ずつ示すのは最初の{limit}行までです）。",
    ),
    # The same for PARSE_ERROR: one violation for the unreadable lines past the first ones.
    "PARSE_ERRORS_MORE": (
        "{count:# more line|# more lines} cannot be read, from line {first} on (only the "
        "first {limit} are listed one by one).",
        "{first}行目以降のさらに{count}行を読めません（1行ずつ示すのは最初の{limit}行までです）。",
    ),
}

# PARSE_ERROR after the report's first one: the line and the reason, without the forms.
PARSE_ERROR_AGAIN = {
    "PARSE_ERROR": (
        "Line {line} (“{text}”) cannot be read: {reason}.",
        "{line}行目（「{text}」）を読めません: {reason}。",
    ),
}

# Added to UNKNOWN_CARD when the name ends in a number that was not read as the count.
QUANTITY_FORMS = (
    " To give a number of copies, write “4 Name”, “4x Name”, “Name ×4” or “Name 4枚”.",
    "枚数は「4 カード名」「4x カード名」「カード名 ×4」「カード名 4枚」のように書いてください。",
)


class _EnglishFormatter(string.Formatter):
    """``{count:# card|# cards}``: the singular form when the number is 1, else the plural,
    with ``#`` replaced by the number (Japanese needs no plural forms)."""

    def format_field(self, value, format_spec: str) -> str:
        if "|" in format_spec:
            singular, plural = format_spec.split("|", 1)
            return (singular if value == 1 else plural).replace("#", str(value))
        return super().format_field(value, format_spec)


_ENGLISH = _EnglishFormatter()


def render(code: str, values: dict, table: dict = MESSAGES) -> tuple[str, str]:
    english, japanese = table[code]
    return _ENGLISH.format(english, **values), japanese.format(**values)
