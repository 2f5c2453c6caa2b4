"""Checking an event file: the JSON Schema, then the file's own consistency.

Plain Python (no database): what a file says about itself. What depends on the importing
site (the format exists there, the infraction codes) is checked by the importer.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from functools import cache

from jsonschema import Draft202012Validator, FormatChecker

from .schema import Problem, load_schema


def json_path(parts: Iterable) -> str:
    """``["rounds", 2, "matches", 5, "player2"]`` → ``rounds[2].matches[5].player2``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
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
            message = f"{error.instance!r} is not a valid {error.validator_value}"
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

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def user(self, path: str, name: str | None) -> None:
        if name is not None and name not in self.users:
            self.problem(path, f"{name!r} is not in users")

    def player(self, path: str, name: str | None) -> None:
        if name is not None and name not in self.registered:
            self.problem(path, f"{name!r} is not registered for the event")

    def round_number(self, path: str, number: int | None) -> None:
        if number is not None and number not in self.rounds:
            self.problem(path, f"round {number} is not in the file's rounds")

    def match(self, path: str, ref: dict | None) -> None:
        if ref is None:
            return
        key = (ref["round"], ref["table"])
        if ref["round"] not in self.rounds:
            self.problem(path, f"round {ref['round']} is not in the file's rounds")
        elif key not in self.matches:
            self.problem(path, f"round {key[0]} has no match at table {key[1]}")

    def run(self) -> list[Problem]:
        doc = self.doc
        for index, row in enumerate(doc["users"]):
            if row["username"] in self.users:
                self.problem(f"users[{index}].username", f"{row['username']!r} is listed twice")
            self.users.add(row["username"])
        event = doc["event"]
        self.user("event.organizer", event["organizer"])
        staffed = set()
        for index, row in enumerate(event["staff"]):
            self.user(f"event.staff[{index}].user", row["user"])
            if row["user"] in staffed:
                self.problem(f"event.staff[{index}].user", f"{row['user']!r} is listed twice")
            staffed.add(row["user"])
        for index, row in enumerate(doc["registrations"]):
            path = f"registrations[{index}].player"
            self.user(path, row["player"])
            if row["player"] in self.registered:
                self.problem(path, f"{row['player']!r} is registered twice")
            self.registered.add(row["player"])
        # Rounds and matches first: penalties, checks and the audit log refer to them.
        for index, round_ in enumerate(doc["rounds"]):
            if round_["number"] in self.rounds:
                self.problem(f"rounds[{index}].number", f"round {round_['number']} is repeated")
                continue
            self.rounds[round_["number"]] = round_
            for m_index, match in enumerate(round_["matches"]):
                key = (round_["number"], match["table"])
                if key in self.matches:
                    self.problem(
                        f"rounds[{index}].matches[{m_index}].table",
                        f"table {match['table']} is repeated in round {round_['number']}",
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
                    f"{path}.deck_check", f"there is no deck check {penalty['deck_check']}"
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
                    f"{name!r} already plays at table {seated[name]} in this round",
                )
            else:
                seated[name] = match["table"]
        if player1 == player2:
            self.problem(f"{path}.player2", "a player cannot play against themselves")
        if match["reported_by"] is not None and match["reported_by"] not in (player1, player2):
            self.problem(f"{path}.reported_by", "must be one of the match's players")
        record, outcome = match["record"], match["outcome"]
        if player2 is None and (
            match["status"] != "final" or record != "2-0-0" or outcome != "player1"
        ):
            self.problem(path, "a bye is a final 2-0-0 win for player 1")
        if (record is None) != (outcome is None):
            self.problem(f"{path}.outcome", "a record and an outcome go together")
        elif record is not None:
            wins, losses, draws = (int(part) for part in record.split("-"))
            if wins > 2 or losses > 2 or wins + losses + draws > 3:
                self.problem(f"{path}.record", f"{record} is not a best-of-three record")
            expected = "player1" if wins > losses else "player2" if losses > wins else "draw"
            if outcome != expected:
                self.problem(f"{path}.outcome", f"{record} means {expected}, not {outcome}")
        self._games(f"{path}.games", match["games"], penalties)
        versions = set()
        for index, submission in enumerate(match["submissions"]):
            sub_path = f"{path}.submissions[{index}]"
            self.user(f"{sub_path}.by", submission["by"])
            if submission["version"] in versions:
                self.problem(f"{sub_path}.version", f"version {submission['version']} repeated")
            versions.add(submission["version"])
            if submission["version"] > match["version"]:
                self.problem(
                    f"{sub_path}.version",
                    f"version {submission['version']} is above the match's {match['version']}",
                )
            self._games(f"{sub_path}.games", submission["games"], penalties)

    def _games(self, path: str, games: list, penalties: int) -> None:
        for index, game in enumerate(games):
            if "penalty" in game and game["penalty"] >= penalties:
                self.problem(f"{path}[{index}].penalty", f"there is no penalty {game['penalty']}")

    def _bracket(self, top_cut: dict) -> None:
        for index, row in enumerate(top_cut["bracket"]):
            path = f"top_cut.bracket[{index}]"
            match = self.matches.get((row["round"], row["table"]))
            if match is None:
                self.match(path, {"round": row["round"], "table": row["table"]})
                continue
            if self.rounds[row["round"]]["stage"] != "top_cut":
                self.problem(f"{path}.round", f"round {row['round']} is not a top-cut round")
            for seat in ("player1", "player2"):
                if row[seat] != match[seat]:
                    self.problem(f"{path}.{seat}", f"the match says {match[seat]!r}")
            if row["winner"] is not None and row["winner"] not in (
                match["player1"],
                match["player2"],
            ):
                self.problem(f"{path}.winner", "must be one of the match's players")

    def _audit_entry(self, path: str, entry: dict, penalties: int) -> None:
        self.user(f"{path}.actor", entry["actor"])
        obj = entry["object"]
        kind = obj["type"]
        wanted = {
            "registration": ("player",),
            "round": ("round",),
            "match": ("round", "table"),
            "penalty": ("penalty",),
            "eventstaff": ("user",),
        }.get(kind, ())
        if kind != "event" and not all(key in obj for key in wanted) and "id" not in obj:
            self.problem(f"{path}.object", f"a {kind} is named by {', '.join(wanted) or 'id'}")
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
            self.problem(f"{path}.object.penalty", f"there is no penalty {obj['penalty']}")
