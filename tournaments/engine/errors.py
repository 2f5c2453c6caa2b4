"""Errors raised by the tournament engine.

Every error carries a stable ``code`` (an identifier the site maps to a translated text)
and an English ``message`` with the details. The engine does not import Django, so it
cannot translate; the codes are the contract, the messages are for logs and tests.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class: a rule of the engine was broken by its input."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class InvalidGameReport(EngineError):
    """A game's end report is impossible or incomplete (rulebook 4−1−2)."""


class InvalidMatchRecord(EngineError):
    """A match record breaks the best-of-three rules (rulebook 4−1−1)."""


class PairingError(EngineError):
    """The players handed to the Swiss pairer cannot be paired as given."""


class StandingsError(EngineError):
    """Match results handed to the standings are inconsistent."""


class BracketError(EngineError):
    """A single-elimination bracket was asked for something impossible."""
