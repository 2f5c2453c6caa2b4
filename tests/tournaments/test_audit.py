"""The audit log: exactly one entry per successful change, none for a refused one, written
in the change's own transaction."""

import pytest

from tests.decks.conftest import LEGAL_DECK
from tournaments import services
from tournaments.models import AuditEntry, Match, ResultReport

from .factories import games_for, new_event

pytestmark = pytest.mark.django_db


class Log:
    """Runs a service call and checks how many audit entries it wrote."""

    def __init__(self):
        self.seen = 0

    def one(self, action, call):
        before = AuditEntry.objects.count()
        result = call()
        new = list(AuditEntry.objects.order_by("id")[before:])
        assert [entry.action for entry in new] == [action]
        self.seen += 1
        return result, new[0]

    def none(self, error, call):
        before = AuditEntry.objects.count()
        with pytest.raises(error) as raised:
            call()
        assert AuditEntry.objects.count() == before
        return raised.value


def play_whole_event(log, organizer, judge, crossover, make_players):
    """An event through every kind of change (each checked to write one entry by
    ``log``): staff, settings, registrations, a decklist, a drop, a round paired, paired
    again, edited, published, timed, a game-loss penalty, results reported, disputed,
    overridden and confirmed, a top cut, the finish. Returns the event."""
    event, created = log.one(
        "event.created",
        lambda: new_event(organizer, crossover, swiss_rounds=1, top_cut_size=2, capacity=4),
    )
    assert (created.actor, created.object_type, created.before) == (organizer, "event", None)
    log.one(
        "staff.added", lambda: services.add_staff(event, actor=organizer, user=judge, role="judge")
    )
    log.one(
        "event.updated", lambda: services.update_event(event, actor=organizer, round_minutes=40)
    )
    log.one("event.registration_opened", lambda: services.open_registration(event, actor=organizer))
    players = make_players(5)
    registrations = [
        log.one(
            "registration.created",
            lambda p=p: services.register_player(event, actor=p, deck_text=LEGAL_DECK),
        )[0]
        for p in players
    ]
    log.one(
        "registration.decklist_submitted",
        lambda: services.submit_decklist(registrations[0], actor=players[0], deck_text=LEGAL_DECK),
    )
    log.one("registration.dropped", lambda: services.drop_player(registrations[3], actor=judge))
    log.one("event.started", lambda: services.start_event(event, actor=organizer))
    round_1, _ = log.one("round.generated", lambda: services.generate_round(event, actor=organizer))
    round_1, _ = log.one(
        "round.repaired", lambda: services.repair_round(round_1, actor=organizer, reason="again")
    )
    tables = {m.table: (m.player1_id, m.player2_id) for m in round_1.matches.all()}
    log.one(
        "round.pairing_edited",
        lambda: services.edit_pairing(
            round_1,
            actor=organizer,
            tables={1: (tables[1][1], tables[1][0])},
            reason="seat the wheelchair user at table 1",
        ),
    )
    log.one("round.published", lambda: services.publish_round(round_1, actor=organizer))
    log.one("round.clock_started", lambda: services.start_round_clock(round_1, actor=organizer))
    first, second = (
        Match.objects.filter(round=round_1)
        .order_by("table")
        .select_related("player1__player", "player2__player")
    )
    log.one(
        "penalty.issued",
        lambda: services.issue_penalty(
            first.player2, actor=judge, kind="game_loss", infraction="Tardiness", match=first
        ),
    )
    first.refresh_from_db()
    log.one(
        "match.reported",
        lambda: services.report_result(
            first, actor=first.player1.player, games=games_for("2-0")[:1], expected_version=2
        ),
    )
    log.one(
        "match.disputed",
        lambda: services.dispute_result(
            first, actor=first.player2.player, expected_version=3, reason="it was 1-1"
        ),
    )
    log.one(
        "match.overridden",
        lambda: services.override_result(
            first, actor=judge, expected_version=4, record="2-0", reason="slip shows 2-0"
        ),
    )
    log.one(
        "match.reported",
        lambda: services.report_result(
            second, actor=second.player2.player, games=games_for("0-2"), expected_version=1
        ),
    )
    log.one(
        "match.confirmed",
        lambda: services.confirm_result(second, actor=second.player1.player, expected_version=2),
    )
    log.one("round.closed", lambda: services.close_round(round_1, actor=organizer))
    final, _ = log.one(
        "event.top_cut_generated", lambda: services.generate_top_cut(event, actor=organizer)
    )
    log.one("round.published", lambda: services.publish_round(final, actor=organizer))
    match = Match.objects.select_related("player1__player").get(round=final)
    log.one(
        "match.overridden",
        lambda: services.override_result(
            match, actor=organizer, expected_version=1, record="2-1", reason="entered from slip"
        ),
    )
    log.one("round.closed", lambda: services.close_round(final, actor=organizer))
    log.one("event.finished", lambda: services.finish_event(event, actor=organizer))
    return event


def test_a_whole_event_writes_one_entry_per_change(organizer, judge, crossover, make_players):
    log = Log()
    event = play_whole_event(log, organizer, judge, crossover, make_players)
    assert AuditEntry.objects.filter(event=event).count() == log.seen


def test_refused_changes_write_nothing(event_after_round_3, outsider):
    built = event_after_round_3
    log = Log()
    round_4, _ = log.one(
        "round.generated", lambda: services.generate_round(built.event, actor=built.organizer)
    )
    services.publish_round(round_4, actor=built.organizer)
    match = (
        Match.objects.exclude(player2=None)
        .select_related("player1__player")
        .filter(round=round_4)[0]
    )
    log.none(services.NotAllowed, lambda: services.report_result(
        match, actor=outsider, games=games_for("2-0"), expected_version=1
    ))  # fmt: skip
    log.none(services.InvalidResult, lambda: services.report_result(
        match, actor=match.player1.player, games=games_for("2-0") * 2, expected_version=1
    ))  # fmt: skip
    log.none(services.Conflict, lambda: services.report_result(
        match, actor=match.player1.player, games=games_for("2-0"), expected_version=7
    ))  # fmt: skip
    log.none(services.InvalidState, lambda: services.close_round(round_4, actor=built.organizer))
    log.none(
        services.InvalidState, lambda: services.start_event(built.event, actor=built.organizer)
    )
    log.none(services.InvalidInput, lambda: services.issue_penalty(
        built.registrations[1], actor=built.judge, kind="warning", infraction=""
    ))  # fmt: skip
    log.none(services.Conflict, lambda: services.add_late_entry(
        built.event, actor=built.judge, player=built.players[0]
    ))  # fmt: skip


def test_audit_entry_shares_the_transaction_of_its_change(event_after_round_3):
    """An entry that cannot be written takes the change down with it: here the database
    already holds an entry for the version the report would create."""
    built = event_after_round_3
    round_4 = services.generate_round(built.event, actor=built.organizer)
    services.publish_round(round_4, actor=built.organizer)
    match = (
        Match.objects.exclude(player2=None)
        .select_related("player1__player")
        .filter(round=round_4)[0]
    )
    AuditEntry.objects.create(
        event=built.event, action="match.reported", object_type="match", object_id=match.pk,
        object_version=2,
    )  # fmt: skip
    with pytest.raises(services.Conflict) as raised:
        services.report_result(
            match, actor=match.player1.player, games=games_for("2-0"), expected_version=1
        )
    assert raised.value.code == "stale_version"
    match.refresh_from_db()
    assert (match.version, match.status, match.wins) == (1, "pending", None)
    assert ResultReport.objects.filter(match=match).count() == 0


def test_audit_entries_record_who_and_when(event_after_round_3):
    entries = AuditEntry.objects.filter(event=event_after_round_3.event)
    assert all(entry.created_at is not None for entry in entries)
    assert all(entry.actor is not None for entry in entries)
    player_entries = entries.filter(action="registration.dropped")
    assert [e.actor for e in player_entries] == [event_after_round_3.players[7]]
