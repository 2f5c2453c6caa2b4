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

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.nul import NUL, nul_paths

from .schema import Problem
from .validation import json_path

# A file with NUL all over it is refused with the first ones named and the rest counted.
NUL_PROBLEMS_LISTED = 100


def nul_in_text(text: str) -> Problem | None:
    """The first NUL in the raw text of a file (a NUL byte; never valid JSON), by line and
    column; None when there is none."""
    index = text.find(NUL)
    if index == -1:
        return None
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return Problem(
        "",
        _(
            "line %(line)s, column %(column)s: contains a NUL character (U+0000), which "
            "cannot be stored."
        )
        % {"line": line, "column": column},
    )


def read_document(raw: bytes) -> tuple[object, list[Problem]]:
    """The JSON value of an uploaded file, or the problem that stops it being read."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return None, [Problem("", _("the file is not UTF-8 text (byte %s).") % error.start)]
    problem = nul_in_text(text)
    if problem is not None:
        return None, [problem]
    try:
        return json.loads(text), []
    except RecursionError:
        return None, [Problem("", _("not JSON: nested too deeply"))]
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
