"""The API's JSON parser (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``, issue #15).

DRF's ``JSONParser`` turns only ``ValueError`` into a 400: a body nested deeper than
Python's recursion limit (``[[[[…]]]]``) raised ``RecursionError`` and was a 500. Here
it is the same ``parse_error`` 400 as any other body that is not JSON, as are a number
of more than 4300 digits (a ``ValueError``), ``NaN``, ``Infinity`` and ``-Infinity``
(DRF's strict JSON) and a number beyond the largest float (read as infinity otherwise).

A JSON body must be UTF-8 (RFC 8259, section 8.1): one that declares another charset
(``application/json; charset=utf-16``) is refused with 415 ``unsupported_media_type``
before it is decoded. Besides following the RFC this keeps the NUL middleware
(config/nul.py) sound: it looks for ``\\u0000`` in the raw bytes, which only holds for
UTF-8 (or ASCII).
"""

from __future__ import annotations

import codecs
import math

from django.utils.http import parse_header_parameters
from rest_framework import exceptions, parsers
from rest_framework.parsers import get_encoding
from rest_framework.utils import json

UTF_8 = {"utf-8", "utf8"}


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        _base, params = parse_header_parameters(media_type or "")
        charset = params.get("charset")
        if charset is not None and charset.strip().lower() not in UTF_8:
            raise exceptions.UnsupportedMediaType(
                media_type, detail=f"a JSON body must be UTF-8, not {charset!r}"
            )
        try:
            decoded = codecs.getreader(get_encoding(parser_context or {}))(stream)
            return json.load(decoded, parse_constant=json.strict_constant, parse_float=_finite)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply") from None
        except ValueError as error:
            raise exceptions.ParseError(f"JSON parse error - {error}") from None


def _finite(text: str) -> float:
    # 1e400 reads as infinity, which no JSON (nor the database's jsonb) can hold.
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number too large: {text[:20]}")
    return value
