"""Domain errors of the tournament services.

Every error has a stable ``code`` (the contract: pages and the API map it to a translated
text), an English ``message`` for logs and tests, optional ``details`` (plain data) and the
HTTP status the API should answer with. A refused call has written nothing: every service
raises before its first write, or inside the transaction that is then rolled back.

=================  ======  ==========================================================
class              status  meaning
=================  ======  ==========================================================
InvalidInput       400     the request itself is wrong (bad games, missing reason, …)
DeckIllegal        400     the decklist breaks the format; ``report`` has every problem
InvalidResult      400     the engine rejected the games; ``engine_code`` says why
NotAllowed         403     the actor lacks the permission (a ``PermissionDenied``)
InvalidState       409     the object is not in a state that allows this change
Conflict           409     another submission won (stale version, duplicate)
CapacityFull       409     no seat left and the caller did not want the waitlist
=================  ======  ==========================================================
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied


class TournamentError(Exception):
    http_status = 400

    def __init__(self, code: str, message: str = "", **details) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message or code
        self.details = details


class InvalidInput(TournamentError):
    http_status = 400


class DeckIllegal(InvalidInput):
    """The decklist is not legal in the event's format as of the event's date."""

    def __init__(self, report) -> None:
        super().__init__(
            "deck_illegal",
            f"the decklist breaks the format: {', '.join(report.codes)}",
            violations=report.codes,
        )
        self.report = report


class InvalidResult(InvalidInput):
    """The engine refused the reported games or record (rulebook 4−1)."""

    def __init__(self, engine_error) -> None:
        super().__init__("invalid_result", engine_error.message, engine_code=engine_error.code)
        self.engine_code = engine_error.code


class NotAllowed(TournamentError, PermissionDenied):
    http_status = 403


class InvalidState(TournamentError):
    http_status = 409


class Conflict(TournamentError):
    http_status = 409


class CapacityFull(TournamentError):
    http_status = 409
