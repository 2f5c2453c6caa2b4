"""One scan for each of two checks the importers and forms share (#15): where the first
NUL of a text file is (config.nul.first_nul: the event file, rules documents and
check_deck name the same line), and which bidirectional control a name holds
(cardpool.names.first_bidi_control: card names, the event file and the event forms name
the same character)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from cardpool.importing import _check_columns
from cardpool.names import BIDI_CONTROLS, bidi_problem, first_bidi_control, has_bidi_controls
from config.nul import first_nul
from rules.parsing import ParseError, parse_document
from tournaments.event_file.reading import nul_in_text
from tournaments.forms_event import NoBidiControls

_LINES = st.lists(st.sampled_from(["a", "名", "\n", "\x00", " ", "# 1. H\n"]), max_size=30)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("", None),
        ("no nul\nhere\n", None),
        ("\x00", (1, 1)),
        ("ab\x00", (1, 3)),
        ("one\ntwo\nth\x00ree\x00\n\x00", (3, 3)),
        ("\n\n\x00", (3, 1)),
        ("line\r\n\x00", (2, 1)),  # \r belongs to the line before
        ("名前\n大会\x00", (2, 3)),  # columns count characters, not bytes
    ],
)
def test_first_nul_gives_line_and_column_from_one(text, place):
    assert first_nul(text) == place


def test_the_event_file_names_the_place_first_nul_gives():
    with translation.override("en"):
        problem = nul_in_text('{\n  "a": "b",\n  "c\x00": 1\n}')
    assert problem.message == (
        "line 3, column 5: contains a NUL character (U+0000), which cannot be stored."
    )
    assert nul_in_text('{"a": 1}') is None


def test_a_rules_document_names_the_line_first_nul_gives():
    with pytest.raises(ParseError) as failure:
        parse_document("# 1. Heading\r\ntext\r\nmore\x00 text\n")
    assert str(failure.value) == (
        "line 3 contains a NUL character (U+0000), which cannot be stored"
    )


@given(_LINES.map("".join))
def test_the_rules_engine_counts_the_line_first_nul_gives(text):
    """The engine keeps its own two-line count (it runs without Django): held equal."""
    place = first_nul(text)
    if place is None:
        return
    with pytest.raises(ParseError) as failure:
        parse_document(text)
    assert str(failure.value) == (
        f"line {place[0]} contains a NUL character (U+0000), which cannot be stored"
    )


def test_an_unknown_card_column_with_nul_is_shown_as_the_middleware_shows_it():
    (error,) = _check_columns(["name", "co\x00st"], row=1, required=["name"])
    assert error.field == "co\\u0000st"


@pytest.mark.parametrize("char", list(BIDI_CONTROLS))
def test_the_event_forms_and_the_card_names_find_the_same_bidi_control(char):
    text = f"Cup\u200b{char}gnp\u2069.exe"
    assert first_bidi_control(text) == char
    assert has_bidi_controls(text)
    with translation.override("en"):
        assert bidi_problem(text) == (
            f"contains a character that changes the text direction (U+{ord(char):04X}); remove it."
        )
        with pytest.raises(ValidationError) as failure:
            NoBidiControls("Name")(text)
    assert failure.value.code == "bidi_control"
    assert failure.value.params == {"field": "Name", "character": f"U+{ord(char):04X}"}


def test_a_name_without_bidi_controls_passes_everywhere():
    text = "Cup\u200b名前 (ok)"
    assert first_bidi_control(text) is None
    assert not has_bidi_controls(text)
    assert bidi_problem(text) == ""
    NoBidiControls("Name")(text)
