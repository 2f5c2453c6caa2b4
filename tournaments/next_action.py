"""The staff dashboard's one next step: which action of the event's life the organizer
takes next, from the event's state and its rounds (plain data, no database access).

The rules mirror the services that carry the steps out (``services.events``,
``services.rounds``, ``services.topcut``): a round is generated only when every round is
closed and Swiss rounds remain; a round closes when none of its matches waits for a
result; the top cut follows the last Swiss round when the event has one; the event
finishes after the last Swiss round without a top cut, or after the top cut's final.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Event states and round stages/statuses as stored (tournaments.models' choices: this
# module stays importable without Django's models).
DRAFT = "draft"
REGISTRATION_OPEN = "registration_open"
RUNNING = "running"
TOP_CUT = "top_cut"
FINISHED = "finished"

SWISS = "swiss"
ROUND_DRAFT = "draft"
ROUND_PUBLISHED = "published"
ROUND_RUNNING = "running"
ROUND_CLOSED = "closed"

# The kinds of next step.
OPEN_REGISTRATION = "open_registration"
START_EVENT = "start_event"
GENERATE_ROUND = "generate_round"
REVIEW_AND_PUBLISH = "review_and_publish"
START_CLOCK = "start_clock"
CHASE_RESULTS = "chase_results"
CLOSE_ROUND = "close_round"
GENERATE_TOP_CUT = "generate_top_cut"
NEXT_BRACKET_ROUND = "next_bracket_round"
FINISH_EVENT = "finish_event"
DONE = "done"

KINDS = (
    OPEN_REGISTRATION,
    START_EVENT,
    GENERATE_ROUND,
    REVIEW_AND_PUBLISH,
    START_CLOCK,
    CHASE_RESULTS,
    CLOSE_ROUND,
    GENERATE_TOP_CUT,
    NEXT_BRACKET_ROUND,
    FINISH_EVENT,
    DONE,
)


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """One round as the dashboard counts it. ``open_match_count``: matches without a
    settled (confirmed or final) result; ``disputed_count``: those of them disputed."""

    number: int
    stage: str
    status: str
    match_count: int
    open_match_count: int
    disputed_count: int = 0


@dataclass(frozen=True, slots=True)
class NextAction:
    """The next step. ``round_number``: the round it acts on (or creates); ``stage``:
    that round's stage; ``outstanding`` / ``disputed``: the latest round's matches still
    waiting for a result (and disputed among them)."""

    kind: str
    round_number: int | None = None
    stage: str | None = None
    outstanding: int = 0
    disputed: int = 0

    @property
    def is_top_cut(self) -> bool:
        return self.stage is not None and self.stage != SWISS


def next_action(
    state: str,
    *,
    swiss_rounds: int | None,
    top_cut_size: int | None,
    rounds: Sequence[RoundSummary],
) -> NextAction:
    """The event's next step (see the module's rules). ``rounds`` in any order."""
    if state == DRAFT:
        return NextAction(OPEN_REGISTRATION)
    if state == REGISTRATION_OPEN:
        return NextAction(START_EVENT)
    if state not in (RUNNING, TOP_CUT):
        return NextAction(DONE)
    ordered = sorted(rounds, key=lambda summary: summary.number)
    if not ordered:
        if state == RUNNING:
            return NextAction(GENERATE_ROUND, round_number=1, stage=SWISS)
        return NextAction(DONE)  # a top cut without rounds cannot happen
    latest = ordered[-1]
    number, stage = latest.number, latest.stage
    outstanding, disputed = latest.open_match_count, latest.disputed_count
    if latest.status == ROUND_DRAFT:
        return NextAction(REVIEW_AND_PUBLISH, number, stage, outstanding, disputed)
    if latest.status in (ROUND_PUBLISHED, ROUND_RUNNING):
        if outstanding == 0:
            return NextAction(CLOSE_ROUND, number, stage)
        kind = START_CLOCK if latest.status == ROUND_PUBLISHED else CHASE_RESULTS
        return NextAction(kind, number, stage, outstanding, disputed)
    # The latest round is closed.
    if state == TOP_CUT:
        if latest.match_count > 1:
            return NextAction(NEXT_BRACKET_ROUND, number + 1, TOP_CUT)
        return NextAction(FINISH_EVENT)
    played = sum(1 for summary in ordered if summary.stage == SWISS)
    if swiss_rounds is None or played < swiss_rounds:
        return NextAction(GENERATE_ROUND, number + 1, SWISS)
    if top_cut_size:
        return NextAction(GENERATE_TOP_CUT, number + 1, TOP_CUT)
    return NextAction(FINISH_EVENT)
