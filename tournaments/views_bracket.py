"""The top cut drawn as a bracket: a column per round (quarterfinal → semifinal → final),
each match a box with both players, the winner in bold and named as such, the score
from the winner's side, and the champion at the end.

The markup is lists and headings, not a layout table: an ordered list of rounds, each
with its heading and its ordered list of matches. On a phone the bracket keeps its shape
and scrolls sideways inside its own box (one round per swipe, the next one peeking in),
with the champion also named above it: a bracket is read across its rounds, and
stacking the rounds would lose which matches feed which.
"""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_safe

from . import selectors, snapshots
from .bracket_texts import round_label
from .engine.bracket import cut_rounds, round_name
from .models import SETTLED_MATCH_STATUSES, Match, MatchOutcome


def score_from_winner(match: Match) -> str:
    """ "2–1" (games won by the winner first; a drawn game adds "–1"); "" while the
    match has no settled winner."""
    if match.wins is None or match.outcome not in (MatchOutcome.PLAYER1, MatchOutcome.PLAYER2):
        return ""
    won, lost = match.wins, match.losses
    if match.outcome == MatchOutcome.PLAYER2:
        won, lost = lost, won
    parts = [won, lost] + ([match.draws] if match.draws else [])
    return "–".join(str(part) for part in parts)


def _seat(registration, seed, won: bool) -> dict | None:
    if registration is None:
        return None
    return {"name": selectors.display_name(registration), "seed": seed, "won": won}


def _box(match: Match | None) -> dict | None:
    """What a match's box shows; None for a match not paired yet."""
    if match is None:
        return None
    settled = match.status in SETTLED_MATCH_STATUSES
    winner = match.outcome if settled else ""
    if match.player2_id is None:
        winner = MatchOutcome.PLAYER1
    return {
        "id": match.pk,
        "players": [
            _seat(match.player1, match.seed1, winner == MatchOutcome.PLAYER1),
            _seat(match.player2, match.seed2, winner == MatchOutcome.PLAYER2),
        ],
        "score": score_from_winner(match) if settled else "",
        "status": "" if settled else match.get_status_display(),
        "bye": match.player2_id is None,
    }


def bracket_columns(size: int, rounds) -> list[dict]:
    """One column per round of a top ``size`` cut: its name, its round (None until
    paired) and a box per match position (None until paired). ``rounds``: the cut's
    rounds in order, each with ``bracket_matches``."""
    columns = []
    for index in range(cut_rounds(size)):
        round_ = rounds[index] if index < len(rounds) else None
        by_position = {m.bracket_position: m for m in (round_.bracket_matches if round_ else [])}
        count = size >> (index + 1)
        columns.append(
            {
                "key": round_name(size, index + 1),
                "name": round_label(round_name(size, index + 1)),
                "round": round_,
                "matches": [_box(by_position.get(position)) for position in range(count)],
            }
        )
    return columns


@require_safe
def bracket(request, pk: int):
    """The top cut as a bracket (rounds the viewer may see: published ones, drafts for
    the staff). Three queries: the event with the viewer's access, the cut's rounds and
    their matches; the champion comes from the cached standings."""
    event, access = selectors.viewed_event(request.user, pk)
    size = event.top_cut_size
    columns = []
    if size:
        columns = bracket_columns(size, selectors.bracket(request.user, event, access))
    return render(
        request,
        "tournaments/bracket.html",
        {
            "event": event,
            "columns": columns,
            "started": bool(columns) and columns[0]["round"] is not None,
            "champion": snapshots.champion(event),
        },
    )
