"""The rules engine (parsing, search rules, calculator) runs without Django."""

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.parsing import STYLES, ParseError, parse_document

ROOT = Path(__file__).resolve().parents[2]


def test_engine_modules_do_not_import_django():
    code = (
        "import sys\n"
        "import rules.calculator, rules.calculator_examples, rules.diffing, rules.parsing,"
        " rules.search, rules.text\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


_PIECES = st.sampled_from(
    [
        "1 ",
        "1−1 ",
        "2−3 ",
        "第1部 ",
        "第2章 ",
        "(1)",
        "●",
        "・",
        "◆",
        "◆◆",
        " ",
        "\n",
        "\n\n",
        "見出し",
        "本文。",
        "|",
        "−−−−",
        "4-3-8 ",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join), st.sampled_from([None, *STYLES]))
def test_any_text_parses_to_a_consistent_tree_or_a_clear_error(text, style):
    try:
        document = parse_document(text, style)
    except ParseError:
        return
    for index, section in enumerate(document.sections):
        if section.parent is None:
            assert section.level == 1
        else:
            assert section.parent < index
            assert section.level == document.sections[section.parent].level + 1
