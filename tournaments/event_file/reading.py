"""Reading an uploaded event file: its bytes to a JSON value, and the text no database
stores alike.

An event file arrives through the import page, the API (a multipart upload or the JSON
body) and ``manage.py import_event``. Every way decodes it with :func:`read_document`
(where it is bytes) and goes through :func:`nul_problems` (in ``import_event``): U+0000
(NUL) anywhere in the file, in a value or a key, refuses the whole file with the place of
each one, before anything is written. PostgreSQL cannot store NUL in text or in ``jsonb``
(it was a 500, or a refusal half-way through the checks) while SQLite keeps it: refused on
both (issue #15).
"""

from __future__ import annotations

import json
import math
import sys

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.nul import first_nul, nul_paths

from .limits import file_size_problem
from .schema import Problem
from .validation import json_path

# A file with NUL all over it is refused with the first ones named and the rest counted.
NUL_PROBLEMS_LISTED = 100


def nul_in_text(text: str) -> Problem | None:
    """The first NUL in the raw text of a file (a NUL byte; never valid JSON), by line and
    column; None when there is none."""
    nul = first_nul(text)
    if nul is None:
        return None
    line, column = nul
    return Problem(
        "",
        _(
            "line %(line)s, column %(column)s: contains a NUL character (U+0000), which "
            "cannot be stored."
        )
        % {"line": line, "column": column},
    )


# Python's limit on the digits of an integer it reads from text (a longer one was a
# ValueError, a 500): a number this long has no place in an event file.
MAX_DIGITS = sys.get_int_max_str_digits() or sys.int_info.default_max_str_digits
# A number too large is shown by its start.
NUMBER_SHOWN = 20


class _NotAJsonNumber(ValueError):
    """``json.loads`` met a number that JSON does not have or that cannot be kept."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _constant(name: str):
    # NaN, Infinity and -Infinity: Python reads them, JSON (RFC 8259) has no such numbers.
    raise _NotAJsonNumber(
        _("not JSON: %(value)s is not a number JSON allows (no NaN, Infinity or -Infinity)")
        % {"value": name}
    )


def _shown_number(text: str) -> str:
    return text if len(text) <= NUMBER_SHOWN else text[:NUMBER_SHOWN] + "…"


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _NotAJsonNumber(
            _("not JSON: the number %(number)s has %(digits)s digits, more than %(limit)s")
            % {"number": _shown_number(text), "digits": digits, "limit": MAX_DIGITS}
        )
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotAJsonNumber(
            _("not JSON: the number %(number)s is too large") % {"number": _shown_number(text)}
        )
    return value


def read_document(raw: bytes) -> tuple[object, list[Problem]]:
    """The JSON value of an uploaded file, or the problem that stops it being read: larger
    than an event file may be (:data:`.limits.FILE_BYTES`: refused before it is decoded),
    not UTF-8, a NUL byte, not JSON, nested too deeply, or a number JSON does not have
    (NaN, Infinity, -Infinity) or that is too long to read (more than :data:`MAX_DIGITS`
    digits; a float beyond the largest)."""
    problem = file_size_problem(len(raw))
    if problem is not None:
        return None, [problem]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return None, [Problem("", _("the file is not UTF-8 text (byte %s).") % error.start)]
    problem = nul_in_text(text)
    if problem is not None:
        return None, [problem]
    try:
        return json.loads(
            text, parse_constant=_constant, parse_int=_integer, parse_float=_float
        ), []
    except RecursionError:
        return None, [Problem("", _("not JSON: nested too deeply"))]
    except _NotAJsonNumber as error:
        return None, [Problem("", error.problem)]
    except json.JSONDecodeError as error:
        return None, [
            Problem(
                "",
                _("not JSON: %(error)s at line %(line)s column %(column)s")
                % {"error": error.msg, "line": error.lineno, "column": error.colno},
            )
        ]


def nul_problems(document) -> list[Problem]:
    """Every text and key of ``document`` (a decoded JSON value) that holds NUL, with its
    JSON path (``users[3].display_name``; a key holding NUL is the path's last part, shown
    with ``\\u0000``): the first :data:`NUL_PROBLEMS_LISTED`, then one problem counting
    the others. Empty: none does."""
    problems: list[Problem] = []
    more = 0
    message = _("contains a NUL character (U+0000), which cannot be stored.")
    for path in nul_paths(document):
        if len(problems) < NUL_PROBLEMS_LISTED:
            problems.append(Problem(json_path(path), message))
        else:
            more += 1
    if more:
        problems.append(
            Problem(
                "",
                ngettext(
                    "%(count)s more place holds a NUL character (U+0000).",
                    "%(count)s more places hold a NUL character (U+0000).",
                    more,
                )
                % {"count": more},
            )
        )
    return problems
