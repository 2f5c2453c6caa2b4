"""The schema of the event file and the problems a file can have."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SCHEMA_NAME = "crossover-event/1"
SCHEMA_PATH = Path(__file__).resolve().parent / "crossover-event-1.schema.json"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a file: where (``rounds[2].matches[5].player2``) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class EventFileRejected(Exception):
    """The file was refused; ``problems`` lists every reason, and nothing was written."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__(
            f"{len(self.problems)} problem(s) in the event file: "
            + "; ".join(str(problem) for problem in self.problems[:5])
        )


@cache
def load_schema() -> dict:
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        return json.load(handle)
