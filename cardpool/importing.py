"""Reading and checking card files (CSV or JSON Lines), without touching the database.

The file is read whole and every row is checked before anything is written, so that the
caller can write all rows or none. Every problem is reported with its row (the line of
the file, the header being row 1 of a CSV file), the field, and the reason.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import io
import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from config.nul import shown

from .models import COST_SYMBOLS, CardType, Element, Gender
from .names import bidi_problem, name_key, search_key

FIELDS = (
    "name",
    "set",
    "card_type",
    "number",
    "rarity",
    "cost",
    "gender",
    "ap",
    "dp",
    "text",
    "unlimited",
    "element",
    "notes",
    "deck_size_min",
    "deck_size_max",
    "release_date",
)
REQUIRED = ("name", "set", "card_type")
# Fields that describe the card itself (the same for all its printings).
CARD_FIELDS = (
    "card_type",
    "element",
    "cost",
    "gender",
    "ap",
    "dp",
    "unlimited",
    "notes",
    "deck_size_min",
    "deck_size_max",
)
PRINTING_FIELDS = ("rarity", "text", "release_date")
MAX_LENGTHS = {"name": 200, "number": 20, "rarity": 40}
_TRUE = {"true", "yes", "1", "y"}
_FALSE = {"false", "no", "0", "n"}


@dataclass(frozen=True, order=True)
class RowError:
    row: int
    field: str
    reason: str

    def __str__(self) -> str:
        if self.field:
            return _("row %(row)s, field %(field)s: %(reason)s") % {
                "row": self.row,
                "field": self.field,
                "reason": self.reason,
            }
        return _("row %(row)s: %(reason)s") % {"row": self.row, "reason": self.reason}

    def as_dict(self) -> dict:
        return {"row": self.row, "field": self.field, "reason": self.reason}


@dataclass
class CardRow:
    """One checked row. ``values`` holds only the fields the row gives a value for:
    an empty cell means "unknown / leave as it is", never "erase"."""

    row: int
    name: str
    set_id: int | None
    number: str
    values: dict[str, object] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return name_key(self.name)


class ImportRejected(Exception):
    def __init__(self, errors: list[RowError]):
        super().__init__(f"{len(errors)} problem(s)")
        self.errors = sorted(errors)


def read_table(
    data: bytes, filename: str = "", required: Iterable[str] = REQUIRED
) -> tuple[list[tuple[int, dict]], list[RowError]]:
    """Split a file into ``(row_number, {field: raw value})`` pairs.

    JSON Lines is recognised by a ``.jsonl``/``.ndjson`` name or, failing that, by a first
    non-blank character ``{``; anything else is read as CSV with a header row.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # "utf-8-sig" reports positions after a stripped byte-order mark.
        start = exc.start + (len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0)
        line = data[:start].count(b"\n") + 1
        return [], [RowError(line, "", _("the file is not UTF-8 text (byte %s).") % start)]
    lowered = filename.lower()
    if lowered.endswith((".jsonl", ".ndjson")) or (
        not lowered.endswith(".csv") and text.lstrip().startswith("{")
    ):
        return _read_jsonl(text)
    return _read_csv(text, tuple(required))


def _read_csv(
    text: str, required: tuple[str, ...]
) -> tuple[list[tuple[int, dict]], list[RowError]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    errors: list[RowError] = []
    try:
        header = next(reader, None)
    except csv.Error as exc:
        return [], [RowError(1, "", _("the header cannot be read: %s") % exc)]
    if header is None or not any(cell.strip() for cell in header):
        return [], [RowError(1, "", _("the file is empty; expected a header row."))]
    columns = [cell.strip().lower() for cell in header]
    errors.extend(_check_columns(columns, row=1, required=required))
    if errors:
        return [], errors
    rows: list[tuple[int, dict]] = []
    while True:
        # A quoted cell may span lines; the row is numbered by the line it starts on.
        start = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            errors.append(RowError(reader.line_num, "", _("the line cannot be read: %s") % exc))
            break
        row = start
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) > len(columns):
            errors.append(
                RowError(
                    row,
                    "",
                    _("has %(cells)s cells but the header has %(columns)s columns.")
                    % {"cells": len(cells), "columns": len(columns)},
                )
            )
            continue
        rows.append((row, dict(zip(columns, cells, strict=False))))
    return rows, errors


def _read_jsonl(text: str) -> tuple[list[tuple[int, dict]], list[RowError]]:
    rows: list[tuple[int, dict]] = []
    errors: list[RowError] = []
    # Lines end only at \n, \r\n or \r: str.splitlines() would also split inside JSON
    # strings at characters such as U+2028 or U+0085, which JSON allows unescaped.
    for row, line in enumerate(io.StringIO(text, newline=""), start=1):
        if not line.strip():
            continue
        try:
            # A long integer stays text (int() refuses 4,300+ digits), so the field that
            # holds it is named when its check refuses it.
            record = json.loads(line, parse_int=_json_int)
        except json.JSONDecodeError as exc:
            errors.append(RowError(row, "", _("not valid JSON: %s") % exc.msg))
            continue
        except RecursionError:
            errors.append(
                RowError(row, "", _("nested too deeply; a card row is one flat JSON object {…}."))
            )
            continue
        if not isinstance(record, dict):
            errors.append(RowError(row, "", _("expected a JSON object {…}.")))
            continue
        keys = [str(key).strip().lower() for key in record]
        row_errors = _check_columns(keys, row=row, required=())
        values: dict[str, str] = {}
        for key, value in zip(keys, record.values(), strict=True):
            if value is None:
                values[key] = ""
            elif isinstance(value, bool):
                values[key] = "true" if value else "false"
            elif isinstance(value, int | str):
                values[key] = str(value)
            else:
                row_errors.append(
                    RowError(
                        row,
                        shown(key),
                        _("must be text, a whole number or true/false."),
                    )
                )
        errors.extend(row_errors)
        if not row_errors:
            rows.append((row, values))
    return rows, errors


def _json_int(digits: str) -> int | str:
    return int(digits) if len(digits) <= 20 else digits


def _shown(value: str, limit: int = 20) -> str:
    """``value`` for a message, cut to ``limit`` characters."""
    return value if len(value) <= limit else value[:limit] + "…"


def _check_columns(columns: list[str], *, row: int, required: Iterable[str]) -> list[RowError]:
    errors = []
    seen = set()
    for column in columns:
        if column not in FIELDS:
            errors.append(
                RowError(
                    row,
                    # Shown, and stored with the job's report: PostgreSQL refuses U+0000.
                    shown(column),
                    _("unknown column; the columns are %s.") % ", ".join(FIELDS),
                )
            )
        elif column in seen:
            errors.append(RowError(row, column, _("the column appears twice.")))
        seen.add(column)
    for column in required:
        if column not in seen:
            errors.append(RowError(row, column, _("required column is missing.")))
    return errors


def clean_rows(
    rows: Iterable[tuple[int, Mapping[str, str]]],
    *,
    set_ids: Mapping[str, int],
    required: Iterable[str] = REQUIRED,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[CardRow], list[RowError]]:
    """Check every row; return the clean rows and every problem found.

    ``set_ids`` maps :func:`set_lookup_key` of each accepted set name or code to the set's id.
    ``progress`` is called with the number of rows checked so far, every 500 rows.
    """
    required = tuple(required)
    cleaned: list[CardRow] = []
    errors: list[RowError] = []
    for count, (row, raw) in enumerate(rows, start=1):
        card_row, row_errors = _clean_row(row, raw, set_ids=set_ids, required=required)
        errors.extend(row_errors)
        if card_row is not None:
            cleaned.append(card_row)
        if progress is not None and count % 500 == 0:
            progress(count)
    errors.extend(_cross_row_errors(cleaned))
    return cleaned, sorted(errors)


def set_lookup_key(value: str) -> str:
    return search_key(value)


def _clean_row(
    row: int, raw: Mapping[str, str], *, set_ids: Mapping[str, int], required: tuple[str, ...]
) -> tuple[CardRow | None, list[RowError]]:
    # No database stores U+0000 in text the same way (PostgreSQL refuses it, SQLite keeps
    # it): refused on both.
    errors: list[RowError] = [
        RowError(row, key, _("contains a NUL character (U+0000), which cannot be stored."))
        for key, value in raw.items()
        if "\x00" in value
    ]
    if errors:
        return None, errors
    text = {key: unicodedata.normalize("NFC", value).strip() for key, value in raw.items()}
    bidi = bidi_problem(text.get("name", ""))
    if bidi:  # as the card admin refuses it (cardpool/admin.py)
        errors.append(RowError(row, "name", bidi))
    for column in required:
        if not text.get(column):
            errors.append(RowError(row, column, _("is required but empty.")))
    # The number and the name's keys are stored NFKC-folded, and folding can lengthen
    # text (㍿ → 株式会社), so the limits apply to the longest stored form.
    text["number"] = unicodedata.normalize("NFKC", text.get("number", "")).strip()
    stored_forms = {
        "name": (
            text.get("name", ""),
            name_key(text.get("name", "")),
            search_key(text.get("name", "")),
        ),
    }
    for column, limit in MAX_LENGTHS.items():
        forms = stored_forms.get(column, (text.get(column, ""),))
        if max(len(form) for form in forms) > limit:
            errors.append(RowError(row, column, _("is longer than %s characters.") % limit))

    set_id = None
    if text.get("set"):
        set_id = set_ids.get(set_lookup_key(text["set"]))
        if set_id is None:
            errors.append(
                RowError(
                    row,
                    "set",
                    _("unknown set %r; add it in the admin first or use a known set code.")
                    % text["set"],
                )
            )

    values: dict[str, object] = {}
    checks: dict[str, Callable[[str], object]] = {
        "card_type": _card_type,
        "element": _element,
        "cost": _cost,
        "gender": _gender,
        "ap": _stat,
        "dp": _stat,
        "deck_size_min": _stat,
        "deck_size_max": _stat,
        "unlimited": _boolean,
    }
    for column, check in checks.items():
        value = text.get(column, "")
        if not value:
            continue
        try:
            values[column] = check(value)
        except ValueError as exc:
            errors.append(RowError(row, column, str(exc)))
    low, high = values.get("deck_size_min"), values.get("deck_size_max")
    if low is not None and high is not None and low > high:
        errors.append(
            RowError(
                row,
                "deck_size_max",
                _("%(high)s is below deck_size_min %(low)s.") % {"high": high, "low": low},
            )
        )
    for column in ("rarity", "text", "notes"):
        if text.get(column):
            values[column] = text[column]
    if text.get("release_date"):
        try:
            values["release_date"] = dt.date.fromisoformat(text["release_date"].strip())
        except ValueError:
            errors.append(
                RowError(
                    row,
                    "release_date",
                    _("%r is not a date; write it as YYYY-MM-DD.") % text["release_date"],
                )
            )
    if text.get("name") and not name_key(text["name"]):
        errors.append(RowError(row, "name", _("has no visible characters.")))
    if errors:
        return None, errors
    return (
        CardRow(row=row, name=text["name"], set_id=set_id, number=text["number"], values=values),
        [],
    )


def _card_type(value: str) -> str:
    upper = unicodedata.normalize("NFKC", value).strip().upper()
    if upper in CardType.values:
        return upper
    raise ValueError(
        _("%(value)r is not a card type; use one of %(choices)s.")
        % {"value": value, "choices": ", ".join(CardType.values)}
    )


def _element(value: str) -> str:
    if value in Element.values:
        return value
    raise ValueError(
        _("%(value)r is not an element; use one of %(choices)s.")
        % {"value": value, "choices": " ".join(Element.values)}
    )


def _cost(value: str) -> str:
    symbols = "".join(unicodedata.normalize("NFKC", value).split())
    bad = sorted({symbol for symbol in symbols if symbol not in COST_SYMBOLS})
    if bad:
        raise ValueError(
            _("%(bad)s cannot appear in a cost; use only %(symbols)s.")
            % {"bad": " ".join(bad), "symbols": " ".join(COST_SYMBOLS)}
        )
    if len(symbols) > 20:
        raise ValueError(_("is longer than 20 symbols."))
    return symbols


def _gender(value: str) -> str:
    for choice in Gender.values:
        if value.casefold() == choice.casefold():
            return choice
    raise ValueError(
        _("%(value)r is not a gender; use one of %(choices)s.")
        % {"value": value, "choices": ", ".join(Gender.values)}
    )


def _stat(value: str) -> int:
    digits = unicodedata.normalize("NFKC", value).strip()
    if not digits.isascii() or not digits.isdigit():
        raise ValueError(_("%r is not a whole number of 0 or more.") % value)
    # Compared as text first: int() refuses 4,300+ digits.
    if len(digits.lstrip("0")) > 3 or int(digits) > 999:
        raise ValueError(_("%r is larger than 999.") % _shown(value))
    return int(digits)


def _boolean(value: str) -> bool:
    word = unicodedata.normalize("NFKC", value).strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError(_("%r is not true or false.") % value)


def _cross_row_errors(rows: list[CardRow]) -> list[RowError]:
    """Rows that contradict each other: the same printing twice, or one card described
    with two different values for the same field."""
    errors: list[RowError] = []
    printing_rows: dict[tuple, int] = {}
    names = {card_row.row: card_row.name for card_row in rows}
    card_values: dict[str, dict[str, tuple[object, int]]] = {}
    for card_row in rows:
        if card_row.set_id is not None:
            printing = (card_row.key, card_row.set_id, card_row.number)
            first = printing_rows.setdefault(printing, card_row.row)
            if first != card_row.row:
                first_name = names[first]
                if first_name == card_row.name:
                    reason = _("the same card, set and number as row %s.") % first
                else:
                    reason = _(
                        "the same card, set and number as row %(row)s: “%(name)s” and"
                        " “%(other)s” are one card name (rules 1−2−1, 4−2−6)."
                    ) % {"row": first, "name": card_row.name, "other": first_name}
                errors.append(RowError(card_row.row, "", reason))
        known = card_values.setdefault(card_row.key, {})
        for column in CARD_FIELDS:
            if column not in card_row.values:
                continue
            value = card_row.values[column]
            if column in known and known[column][0] != value:
                errors.append(
                    RowError(
                        card_row.row,
                        column,
                        _("%(value)r contradicts %(other)r given for this card in row %(row)s.")
                        % {"value": value, "other": known[column][0], "row": known[column][1]},
                    )
                )
            else:
                known.setdefault(column, (value, card_row.row))
    return errors
