"""Checking an event file: the JSON Schema, then the file's own consistency.

No database: what a file says about itself (messages in the active language; the
schema's own messages, from jsonschema, are in English). What depends on the importing
site (the format exists there, the infraction codes) is checked by the importer.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Iterable
from functools import cache

from django.utils.translation import gettext as _
from jsonschema import Draft202012Validator, FormatChecker

from config.nul import shown

from .schema import Problem, load_schema


def json_path(parts: Iterable) -> str:
    """``["rounds", 2, "matches", 5, "player2"]`` → ``rounds[2].matches[5].player2`` (a
    key holding NUL shown with ``\\u0000``: the path is shown and stored)."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            part = shown(str(part))
            text += f".{part}" if text else part
    return text


def _is_datetime(value) -> bool:
    if not isinstance(value, str):
        return True
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return False
    return parsed.tzinfo is not None


def _is_date(value) -> bool:
    if not isinstance(value, str):
        return True
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def _is_uuid(value) -> bool:
    if not isinstance(value, str):
        return True
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


@cache
def _validator() -> Draft202012Validator:
    checker = FormatChecker(formats=())
    checker.checks("date-time")(_is_datetime)
    checker.checks("date")(_is_date)
    checker.checks("uuid")(_is_uuid)
    return Draft202012Validator(load_schema(), format_checker=checker)


def schema_problems(document) -> list[Problem]:
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(map(str, e.path)))
    problems = []
    for error in errors:
        message = error.message
        if error.validator == "format":
            message = _("%(value)s is not a valid %(format)s") % {
                "value": repr(error.instance),
                "format": error.validator_value,
            }
        problems.append(Problem(json_path(error.absolute_path), message))
    return problems


def validate(document) -> list[Problem]:
    """Every problem of ``document``: the schema's, and when the file fits the schema, its
    consistency (references, duplicates, results). Empty: the file is good."""
    problems = schema_problems(document)
    if problems:
        return problems
    return _Consistency(document).run()


class _Consistency:
    def __init__(self, document: dict) -> None:
        self.doc = document
        self.problems: list[Problem] = []
        self.users: set[str] = set()
        self.registered: set[str] = set()
        self.rounds: dict[int, dict] = {}
        self.matches: dict[tuple[int, int], dict] = {}
        self.versions: dict[tuple[str, int], str] = {}

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def user(self, path: str, name: str | None) -> None:
        if name is not None and name not in self.users:
            self.problem(path, _("%(name)s is not in users") % {"name": repr(name)})

    def player(self, path: str, name: str | None) -> None:
        if name is not None and name not in self.registered:
            self.problem(path, _("%(name)s is not registered for the event") % {"name": repr(name)})

    def round_number(self, path: str, number: int | None) -> None:
        if number is not None and number not in self.rounds:
            self.problem(
                path, _("round %(number)s is not in the file's rounds") % {"number": number}
            )

    def match(self, path: str, ref: dict | None) -> None:
        if ref is None:
            return
        key = (ref["round"], ref["table"])
        if ref["round"] not in self.rounds:
            self.problem(
                path, _("round %(number)s is not in the file's rounds") % {"number": ref["round"]}
            )
        elif key not in self.matches:
            self.problem(
                path,
                _("round %(number)s has no match at table %(table)s")
                % {"number": key[0], "table": key[1]},
            )

    def run(self) -> list[Problem]:
        doc = self.doc
        for index, row in enumerate(doc["users"]):
            if row["username"] in self.users:
                self.problem(
                    f"users[{index}].username",
                    _("%(name)s is listed twice") % {"name": repr(row["username"])},
                )
            self.users.add(row["username"])
        event = doc["event"]
        self.user("event.organizer", event["organizer"])
        staffed = set()
        for index, row in enumerate(event["staff"]):
            self.user(f"event.staff[{index}].user", row["user"])
            if row["user"] in staffed:
                self.problem(
                    f"event.staff[{index}].user",
                    _("%(name)s is listed twice") % {"name": repr(row["user"])},
                )
            staffed.add(row["user"])
        for index, row in enumerate(doc["registrations"]):
            path = f"registrations[{index}].player"
            self.user(path, row["player"])
            if row["player"] in self.registered:
                self.problem(
                    path, _("%(name)s is registered twice") % {"name": repr(row["player"])}
                )
            self.registered.add(row["player"])
        # Rounds and matches first: penalties, checks and the audit log refer to them.
        for index, round_ in enumerate(doc["rounds"]):
            if round_["number"] in self.rounds:
                self.problem(
                    f"rounds[{index}].number",
                    _("round %(number)s is repeated") % {"number": round_["number"]},
                )
                continue
            self.rounds[round_["number"]] = round_
            for m_index, match in enumerate(round_["matches"]):
                key = (round_["number"], match["table"])
                if key in self.matches:
                    self.problem(
                        f"rounds[{index}].matches[{m_index}].table",
                        _("table %(table)s is repeated in round %(number)s")
                        % {"table": match["table"], "number": round_["number"]},
                    )
                    continue
                self.matches[key] = match
        penalties = len(doc["penalties"])
        for index, round_ in enumerate(doc["rounds"]):
            seated: dict[str, int] = {}
            for m_index, match in enumerate(round_["matches"]):
                self._match(f"rounds[{index}].matches[{m_index}]", match, seated, penalties)
        for index, penalty in enumerate(doc["penalties"]):
            path = f"penalties[{index}]"
            self.player(f"{path}.player", penalty["player"])
            self.user(f"{path}.judge", penalty["judge"])
            self.round_number(f"{path}.round", penalty["round"])
            self.match(f"{path}.match", penalty["match"])
            if penalty["deck_check"] is not None and penalty["deck_check"] >= len(
                doc["deck_checks"]
            ):
                self.problem(
                    f"{path}.deck_check",
                    _("there is no deck check %(index)s") % {"index": penalty["deck_check"]},
                )
        for index, check in enumerate(doc["deck_checks"]):
            path = f"deck_checks[{index}]"
            self.player(f"{path}.player", check["player"])
            self.user(f"{path}.judge", check["judge"])
            self.round_number(f"{path}.round", check["round"])
        if doc["top_cut"] is not None:
            self._bracket(doc["top_cut"])
        for index, entry in enumerate(doc["audit"]):
            self._audit_entry(f"audit[{index}]", entry, penalties)
        return self.problems

    def _match(self, path: str, match: dict, seated: dict[str, int], penalties: int) -> None:
        player1, player2 = match["player1"], match["player2"]
        for seat, name in (("player1", player1), ("player2", player2)):
            if name is None:
                continue
            self.user(f"{path}.{seat}", name)
            self.player(f"{path}.{seat}", name)
            if name in seated:
                self.problem(
                    f"{path}.{seat}",
                    _("%(name)s already plays at table %(table)s in this round")
                    % {"name": repr(name), "table": seated[name]},
                )
            else:
                seated[name] = match["table"]
        if player1 == player2:
            self.problem(f"{path}.player2", _("a player cannot play against themselves"))
        if match["reported_by"] is not None and match["reported_by"] not in (player1, player2):
            self.problem(f"{path}.reported_by", _("must be one of the match's players"))
        record, outcome = match["record"], match["outcome"]
        if player2 is None and (
            match["status"] != "final" or record != "2-0-0" or outcome != "player1"
        ):
            self.problem(path, _("a bye is a final 2-0-0 win for player 1"))
        if (record is None) != (outcome is None):
            self.problem(f"{path}.outcome", _("a record and an outcome go together"))
        elif record is not None:
            wins, losses, draws = (int(part) for part in record.split("-"))
            if wins > 2 or losses > 2 or wins + losses + draws > 3:
                self.problem(
                    f"{path}.record",
                    _("%(record)s is not a best-of-three record") % {"record": record},
                )
            expected = "player1" if wins > losses else "player2" if losses > wins else "draw"
            if outcome != expected:
                self.problem(
                    f"{path}.outcome",
                    _("%(record)s means %(expected)s, not %(outcome)s")
                    % {"record": record, "expected": expected, "outcome": outcome},
                )
        self._games(f"{path}.games", match["games"], penalties)
        versions = set()
        for index, submission in enumerate(match["submissions"]):
            sub_path = f"{path}.submissions[{index}]"
            self.user(f"{sub_path}.by", submission["by"])
            if submission["version"] in versions:
                self.problem(
                    f"{sub_path}.version",
                    _("version %(version)s repeated") % {"version": submission["version"]},
                )
            versions.add(submission["version"])
            if submission["version"] > match["version"]:
                self.problem(
                    f"{sub_path}.version",
                    _("version %(version)s is above the match's %(match_version)s")
                    % {"version": submission["version"], "match_version": match["version"]},
                )
            self._games(f"{sub_path}.games", submission["games"], penalties)

    def _games(self, path: str, games: list, penalties: int) -> None:
        for index, game in enumerate(games):
            if "penalty" in game and game["penalty"] >= penalties:
                self.problem(
                    f"{path}[{index}].penalty",
                    _("there is no penalty %(index)s") % {"index": game["penalty"]},
                )

    def _bracket(self, top_cut: dict) -> None:
        for index, row in enumerate(top_cut["bracket"]):
            path = f"top_cut.bracket[{index}]"
            match = self.matches.get((row["round"], row["table"]))
            if match is None:
                self.match(path, {"round": row["round"], "table": row["table"]})
                continue
            if self.rounds[row["round"]]["stage"] != "top_cut":
                self.problem(
                    f"{path}.round",
                    _("round %(number)s is not a top-cut round") % {"number": row["round"]},
                )
            for seat in ("player1", "player2"):
                if row[seat] != match[seat]:
                    self.problem(
                        f"{path}.{seat}", _("the match says %(name)s") % {"name": repr(match[seat])}
                    )
            if row["winner"] is not None and row["winner"] not in (
                match["player1"],
                match["player2"],
            ):
                self.problem(f"{path}.winner", _("must be one of the match's players"))

    def _audit_entry(self, path: str, entry: dict, penalties: int) -> None:
        self.user(f"{path}.actor", entry["actor"])
        obj = entry["object"]
        kind = obj["type"]
        if entry["version"] is not None:
            # One entry per version of an object (results): the site's own rule.
            key = (json.dumps(obj, sort_keys=True), entry["version"])
            if key in self.versions:
                self.problem(
                    f"{path}.version",
                    _("%(path)s already records version %(version)s of this object")
                    % {"path": self.versions[key], "version": entry["version"]},
                )
            else:
                self.versions[key] = path
        wanted = {
            "registration": ("player",),
            "round": ("round",),
            "match": ("round", "table"),
            "penalty": ("penalty",),
            "eventstaff": ("user",),
        }.get(kind, ())
        if kind != "event" and not all(key in obj for key in wanted) and "id" not in obj:
            self.problem(
                f"{path}.object",
                _("a %(kind)s is named by %(keys)s")
                % {"kind": kind, "keys": ", ".join(wanted) or "id"},
            )
            return
        if "player" in obj:
            self.player(f"{path}.object.player", obj["player"])
        if "user" in obj:
            self.user(f"{path}.object.user", obj["user"])
        if kind == "match" and "table" in obj:
            self.match(f"{path}.object", {"round": obj["round"], "table": obj["table"]})
        elif "round" in obj:
            self.round_number(f"{path}.object.round", obj["round"])
        if "penalty" in obj and obj["penalty"] >= penalties:
            self.problem(
                f"{path}.object.penalty",
                _("there is no penalty %(index)s") % {"index": obj["penalty"]},
            )
