"""One card per name whatever the brackets (rules 1−2−1 and 4−2−6), without Django.

1−2−1: cards with the same name count together towards the copy limit (1−2−3); 4−2−6: the
rulebook writes one card as 〔山名春恵〕 and 『山名 春恵』, so brackets, spaces and character
width are not part of a name, but 〔鳴瀬真奈美〕 and 〔ナルセマナミ〕 are different names.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardpool.names import has_bidi_controls, name_key, search_key
from decks.engine.model import CardInfo, CardPool

from .pools import MORIHARA, SWATI, check, crossover_cards, crossover_pool, deck, filler_lines

BRACKET_PAIRS = [
    ("〔", "〕"),
    ("《", "》"),
    ("『", "』"),
    ("「", "」"),
    ("【", "】"),
    ("[", "]"),
    ("［", "］"),  # full-width square brackets
    ("｢", "｣"),  # half-width corner brackets
    ("〈", "〉"),
    ("＜", "＞"),
    ("<", ">"),
    ("“", "”"),
    ("‘", "’"),
    ("（", "）"),  # parentheses wrapping the whole name
]


@pytest.mark.parametrize(("opening", "closing"), BRACKET_PAIRS)
def test_name_key_strips_brackets_of_every_kind_1_2_1(opening, closing):
    assert name_key(f"{opening}森原さとみ{closing}") == "森原さとみ"
    assert name_key(f"{opening}森原 さとみ{closing}") == name_key("森原 さとみ")


def test_name_key_strips_nested_and_spaced_brackets_4_2_6():
    assert name_key(" 「『山名　春恵』」 ") == "山名春恵"
    assert name_key("〔 山名春恵 〕") == "山名春恵"


def test_name_key_keeps_brackets_inside_a_name():
    assert name_key("魔法の【炎】の杖") == "魔法の【炎】の杖"


def test_name_key_keeps_parentheses_that_are_part_of_a_name():
    # A printed name may end in parentheses; only a pair wrapping the whole name goes.
    assert name_key("レプリカント（改）") == "レプリカント(改)"
    assert name_key("(森原さとみ)") == "森原さとみ"
    assert name_key("（レプリカント（改））") == "レプリカント(改)"
    assert name_key("(改)レプリカント(改)") == "(改)レプリカント(改)"


@pytest.mark.parametrize("spelling", ["月〜星", "月～星", "月~星", "〔月〜星〕"])
def test_name_key_folds_wave_dash_variants(spelling):
    assert name_key(spelling) == "月〜星"


@pytest.mark.parametrize(
    "spelling", ["待って……", "待って…", "待って・・・", "待って...", "待って･･･"]
)
def test_name_key_folds_ellipsis_variants(spelling):
    assert name_key(spelling) == "待って…"


def test_name_key_keeps_a_single_middle_dot():
    # ・ between words is part of many printed names (a single one is not an ellipsis);
    # the Latin middle dot is the same separator.
    assert name_key("ジョン・スミス") == "ジョン・スミス"
    assert name_key("ジョン·スミス") == "ジョン・スミス"
    assert name_key("ジョン・スミス") != name_key("ジョンスミス")


INVISIBLES = [
    "\u200b",  # zero-width space
    "\u200c",
    "\u200d",
    "\ufeff",  # byte-order mark
    "\u200e",  # left-to-right mark
    "\u200f",
    "\u2060",  # word joiner
    "\u202e",  # right-to-left override
    "\u034f",  # combining grapheme joiner
    "\ufe00",  # variation selector 1
    "\U000e0100",  # variation selector 17
    "\u3164",  # Hangul filler
    "\uffa0",  # half-width Hangul filler
    "\u115f",
    "\u2800",  # braille blank
    "\u00ad",  # soft hyphen
]


@pytest.mark.parametrize("char", INVISIBLES)
def test_name_key_drops_invisible_characters(char):
    assert name_key(f"森原{char}さとみ") == "森原さとみ"


def test_has_bidi_controls():
    assert has_bidi_controls("abc\u202eevil")
    assert has_bidi_controls("\u2066x\u2069")
    assert not has_bidi_controls("森原 さとみ")


def test_different_spellings_stay_different_cards_4_2_6():
    assert name_key("〔鳴瀬真奈美〕") != name_key("〔ナルセマナミ〕")
    assert name_key("なるせまなみ") != name_key("ナルセマナミ")


@given(st.text(max_size=40))
def test_name_key_is_idempotent(text):
    assert name_key(name_key(text)) == name_key(text)
    assert search_key(text) == name_key(text).casefold()


def test_name_key_is_linear_on_a_long_line():
    # A 20 KB line of dots and spaces must not be quadratic (no backtracking regex).
    text = "a" + " ." * 10_000 + "b"
    assert name_key(text) == "a…b"


# --- hypothesis: every written form of a pool name is the same card ----------------------

_WIDE = {chr(code): chr(code + 0xFEE0) for code in range(0x21, 0x7F)}
_NARROW_KANA = {}
for _code in range(0xFF61, 0xFFA0):
    _folded = unicodedata.normalize("NFKC", chr(_code))
    if len(_folded) == 1:
        _NARROW_KANA.setdefault(_folded, chr(_code))
_SPACES = [" ", "\u3000", "\t", *INVISIBLES]


@st.composite
def written_forms(draw, name: str) -> str:
    """``name`` as a player might type it: width changed, spaces and invisible characters
    put between characters, and wrapped in a bracket pair (or not)."""
    chars = []
    for char in name.replace(" ", ""):
        style = draw(st.sampled_from(["same", "wide", "narrow"]))
        if style == "wide":
            char = _WIDE.get(char, char)
        elif style == "narrow":
            char = _NARROW_KANA.get(char, char)
        chars.append(char)
        if draw(st.booleans()):
            chars.append(draw(st.sampled_from(_SPACES)))
    text = "".join(chars)
    if draw(st.booleans()):
        opening, closing = draw(st.sampled_from(BRACKET_PAIRS))
        text = f"{opening}{text}{closing}"
    return text


POOL_NAMES = [card.name for card in crossover_cards()[:9]] + ["Ｆ＆Ｃ Ｇｉｒｌ"]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_written_form_of_a_pool_name_is_that_card(data):
    pool = CardPool([*crossover_cards(), CardInfo(key=name_key("F&C Girl"), name="F&C Girl")])
    name = data.draw(st.sampled_from(POOL_NAMES))
    form = data.draw(written_forms(name))
    found = pool.lookup(form)
    assert found is not None, form
    assert found.key == pool.lookup(name).key


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_copy_count_never_drops_when_a_line_is_rewritten_1_2_3(data):
    name = data.draw(st.sampled_from([MORIHARA, "狡猾フィーリア", "深見まどか", "水姫"]))
    deck_copies = data.draw(st.integers(1, 4))
    side_copies = data.draw(st.integers(1, 3))
    form = data.draw(written_forms(name))
    main = [f"{deck_copies} {name}", *filler_lines(50 - deck_copies)]
    plain = check(deck(*main, side=[f"{side_copies} {name}"]))
    rewritten = check(deck(*main, side=[f"{side_copies} {form}"]))
    key = name_key(name)

    def copies(report):
        return sum(entry.count for entry in report.entries if entry.card.key == key)

    assert copies(rewritten) == copies(plain) == deck_copies + side_copies
    too_many = deck_copies + side_copies > 4
    assert ("TOO_MANY_COPIES" in rewritten.codes) is too_many
    assert ("TOO_MANY_COPIES" in plain.codes) is too_many


def test_four_in_the_deck_and_one_bracketed_in_the_sideboard_is_five_copies_1_2_3():
    report = check(deck(f"4 {MORIHARA}", *filler_lines(46), side=["1 〔森原さとみ〕"]))
    assert report.codes == ["TOO_MANY_COPIES"]
    assert report.violations[0].details == {"count": 5, "limit": 4}
    assert report.violations[0].cards == (MORIHARA,)


def test_pool_lookup_without_brackets_finds_a_bracketed_pool_name():
    pool = CardPool([CardInfo(key=name_key("『清姫』"), name="『清姫』")])
    assert pool.lookup("清姫").name == "『清姫』"
    assert pool.lookup("〔清姫〕").name == "『清姫』"


def test_swati_written_narrow_is_still_exempt_1_2_3():
    report = check(deck(f"4 {MORIHARA}", "46 ｽﾜﾃｨ"))
    assert report.legal
    assert crossover_pool().lookup("ｽﾜﾃｨ").name == SWATI
