import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.text import display_number, fold, fold_with_spans, looks_like_number, number_key


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("ＡＢＣ abc", "abcabc"),  # full width, case
        ("ｽﾜﾃｨ", "スワティ"),  # half-width katakana
        ("ｶﾞｲﾄﾞ", "ガイド"),  # half-width voiced marks join their kana
        ("山名 春恵", "山名春恵"),  # spaces, also the ideographic space
        ("山名\u3000春恵", "山名春恵"),
        ("4−3−8", "4-3-8"),  # U+2212
        ("４－３－８", "4-3-8"),  # full width
        ("4ー3ー8", "4-3-8"),  # long vowel mark between digits
        ("4–3—8", "4-3-8"),  # en and em dash
        ("カード−テキスト", "カード−テキスト"),  # dashes between words stay
        ("鳴瀬真奈美", "鳴瀬真奈美"),  # no kana folding (rule 4−2−6)
    ],
)
def test_fold(text, folded):
    assert fold(text) == folded


def test_number_helpers():
    assert number_key("4−3−8") == "4-3-8"
    assert number_key("1.") == "1"
    assert looks_like_number("4-3-8")
    assert not looks_like_number("4-3-")
    assert not looks_like_number("対象")
    assert display_number("4-3-8") == "4−3−8"


@pytest.mark.parametrize("text", ["ｶﾞｲﾄﾞ ＡＢＣ 4−3−8", "Straße ４－３－８", "か\u3099た", "…と㈱"])
def test_fold_with_spans_traces_every_character(text):
    folded, spans = fold_with_spans(text)
    assert folded == fold(text)
    assert len(spans) == len(folded)
    assert all(0 <= start < end <= len(text) for start, end in spans)


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_fold_with_spans_agrees_with_fold(text):
    folded, spans = fold_with_spans(text)
    assert folded == fold(text)
    assert len(spans) == len(folded)
