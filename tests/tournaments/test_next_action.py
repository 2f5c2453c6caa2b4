"""The dashboard's next step (tournaments.next_action): every branch, plain data only."""

import pytest

from tournaments import next_action as na
from tournaments.models import EventState, RoundStage, RoundStatus
from tournaments.next_action import NextAction, RoundSummary, next_action


def swiss(number, status="closed", matches=4, open_=0, disputed=0):
    return RoundSummary(number, "swiss", status, matches, open_, disputed)


def cut(number, status="closed", matches=2, open_=0):
    return RoundSummary(number, "top_cut", status, matches, open_)


def run(state="running", rounds=(), swiss_rounds=3, top_cut_size=None):
    return next_action(state, swiss_rounds=swiss_rounds, top_cut_size=top_cut_size, rounds=rounds)


def test_the_module_uses_the_stored_values_of_the_models():
    assert (na.DRAFT, na.REGISTRATION_OPEN, na.RUNNING, na.TOP_CUT, na.FINISHED) == (
        EventState.DRAFT,
        EventState.REGISTRATION_OPEN,
        EventState.RUNNING,
        EventState.TOP_CUT,
        EventState.FINISHED,
    )
    assert na.SWISS == RoundStage.SWISS
    assert na.TOP_CUT == RoundStage.TOP_CUT
    assert (na.ROUND_DRAFT, na.ROUND_PUBLISHED, na.ROUND_RUNNING, na.ROUND_CLOSED) == (
        RoundStatus.DRAFT,
        RoundStatus.PUBLISHED,
        RoundStatus.RUNNING,
        RoundStatus.CLOSED,
    )


def test_draft_event_opens_registration():
    assert run("draft") == NextAction("open_registration")


def test_open_registration_starts_the_event():
    assert run("registration_open") == NextAction("start_event")


def test_finished_event_is_done():
    assert run("finished", rounds=[swiss(1), swiss(2), swiss(3)]) == NextAction("done")


def test_unknown_state_is_done():
    assert run("cancelled").kind == "done"


def test_running_without_rounds_generates_round_1():
    assert run() == NextAction("generate_round", round_number=1, stage="swiss")


def test_top_cut_without_rounds_is_done():
    assert run("top_cut", top_cut_size=4).kind == "done"


def test_draft_round_is_reviewed_and_published():
    action = run(rounds=[swiss(1), swiss(2, "draft", open_=4)])
    assert action == NextAction("review_and_publish", 2, "swiss", 4, 0)
    assert not action.is_top_cut


def test_published_round_with_open_matches_starts_the_clock():
    action = run(rounds=[swiss(1, "published", matches=5, open_=4)])
    assert action == NextAction("start_clock", 1, "swiss", 4, 0)


def test_published_round_with_every_result_in_is_closed():
    action = run(rounds=[swiss(1, "published", open_=0)])
    assert action == NextAction("close_round", 1, "swiss")


def test_running_round_with_open_matches_chases_them():
    action = run(rounds=[swiss(1), swiss(2, "running", open_=3, disputed=1)])
    assert action == NextAction("chase_results", 2, "swiss", outstanding=3, disputed=1)


def test_running_round_with_every_result_in_is_closed():
    action = run(rounds=[swiss(1), swiss(2, "running", open_=0)])
    assert action == NextAction("close_round", 2, "swiss", 0, 0)


def test_closed_round_before_the_last_swiss_generates_the_next():
    assert run(rounds=[swiss(1), swiss(2)]) == NextAction("generate_round", 3, "swiss")


def test_rounds_in_any_order():
    action = run(rounds=[swiss(2, "running", open_=1), swiss(1)])
    assert (action.kind, action.round_number) == ("chase_results", 2)


def test_swiss_rounds_not_set_keeps_generating():
    assert run(rounds=[swiss(1)], swiss_rounds=None) == NextAction("generate_round", 2, "swiss")


def test_last_swiss_closed_without_top_cut_finishes():
    assert run(rounds=[swiss(1), swiss(2), swiss(3)]) == NextAction("finish_event")
    assert run(rounds=[swiss(1), swiss(2), swiss(3)], top_cut_size=0).kind == "finish_event"


def test_last_swiss_closed_with_top_cut_generates_it():
    action = run(rounds=[swiss(1), swiss(2), swiss(3)], top_cut_size=8)
    assert action == NextAction("generate_top_cut", 4, "top_cut")
    assert action.is_top_cut


def test_top_cut_round_in_draft_is_reviewed():
    rounds = [swiss(1), swiss(2), cut(3, "draft", matches=2, open_=2)]
    action = run("top_cut", rounds, swiss_rounds=2, top_cut_size=4)
    assert action == NextAction("review_and_publish", 3, "top_cut", 2, 0)
    assert action.is_top_cut


def test_closed_top_cut_round_with_several_matches_advances_the_bracket():
    rounds = [swiss(1), swiss(2), cut(3, matches=2)]
    action = run("top_cut", rounds, swiss_rounds=2, top_cut_size=4)
    assert action == NextAction("next_bracket_round", 4, "top_cut")


def test_closed_final_finishes_the_event():
    rounds = [swiss(1), swiss(2), cut(3, matches=2), cut(4, matches=1)]
    assert run("top_cut", rounds, swiss_rounds=2, top_cut_size=4) == NextAction("finish_event")


def test_running_final_chases_its_result():
    rounds = [swiss(1), swiss(2), cut(3), cut(4, "running", matches=1, open_=1)]
    action = run("top_cut", rounds, swiss_rounds=2, top_cut_size=4)
    assert action == NextAction("chase_results", 4, "top_cut", 1, 0)


@pytest.mark.parametrize("kind", na.KINDS)
def test_every_kind_is_reachable(kind):
    cases = {
        "open_registration": run("draft"),
        "start_event": run("registration_open"),
        "generate_round": run(),
        "review_and_publish": run(rounds=[swiss(1, "draft", open_=2)]),
        "start_clock": run(rounds=[swiss(1, "published", open_=2)]),
        "chase_results": run(rounds=[swiss(1, "running", open_=2)]),
        "close_round": run(rounds=[swiss(1, "running")]),
        "generate_top_cut": run(rounds=[swiss(1)], swiss_rounds=1, top_cut_size=4),
        "next_bracket_round": run("top_cut", [swiss(1), cut(2)], swiss_rounds=1),
        "finish_event": run(rounds=[swiss(1)], swiss_rounds=1),
        "done": run("finished"),
    }
    assert cases[kind].kind == kind
