"""Every change to an event goes through one of these functions (pages, the API, the
admin, commands and tests all call them). Each checks the actor's permission
(``tournaments.policy``) and the current state, writes with ``update_fields`` or a
compare-and-swap, records exactly one audit entry in the same transaction, and raises a
:mod:`~tournaments.services.errors` exception with a stable code when it refuses, having
written nothing.
"""

from .clock import extend_match_time
from .errors import (
    CapacityFull,
    Conflict,
    DeckIllegal,
    InvalidInput,
    InvalidResult,
    InvalidState,
    NotAllowed,
    TournamentError,
)
from .events import (
    add_staff,
    create_event,
    finish_event,
    open_registration,
    remove_staff,
    start_event,
    suggested_swiss_rounds,
    update_event,
)
from .penalties import issue_penalty
from .registrations import (
    add_late_entry,
    check_decklist,
    decklist_locked,
    drop_player,
    reenter,
    register_player,
    submit_decklist,
)
from .results import (
    confirm_result,
    dispute_result,
    override_result,
    preview_result,
    report_result,
)
from .rounds import (
    close_round,
    edit_pairing,
    generate_round,
    publish_round,
    repair_round,
    start_round_clock,
)
from .standings import EventStandings, StandingLine, compute_standings
from .topcut import advance_bracket, generate_top_cut

__all__ = [
    "CapacityFull",
    "Conflict",
    "DeckIllegal",
    "EventStandings",
    "InvalidInput",
    "InvalidResult",
    "InvalidState",
    "NotAllowed",
    "StandingLine",
    "TournamentError",
    "add_late_entry",
    "add_staff",
    "advance_bracket",
    "check_decklist",
    "close_round",
    "compute_standings",
    "confirm_result",
    "create_event",
    "decklist_locked",
    "dispute_result",
    "drop_player",
    "edit_pairing",
    "extend_match_time",
    "finish_event",
    "generate_round",
    "generate_top_cut",
    "issue_penalty",
    "open_registration",
    "override_result",
    "preview_result",
    "publish_round",
    "reenter",
    "register_player",
    "remove_staff",
    "repair_round",
    "report_result",
    "start_event",
    "start_round_clock",
    "submit_decklist",
    "suggested_swiss_rounds",
    "update_event",
]
