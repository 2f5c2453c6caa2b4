"""The stored choices are the engine's values, so conversions by value cannot drift."""

from tournaments import models
from tournaments.engine import games, standings


def test_choices_match_the_engine_enums():
    assert set(models.TimeoutPolicy.values) == {p.value for p in games.TimeoutPolicy}
    assert set(models.TiebreakProfile.values) == {p.value for p in standings.TiebreakProfile}
    assert set(models.MatchOutcome.values) == {o.value for o in games.MatchOutcome}


def test_settled_statuses_are_confirmed_and_final():
    assert set(models.SETTLED_MATCH_STATUSES) == {"confirmed", "final"}
