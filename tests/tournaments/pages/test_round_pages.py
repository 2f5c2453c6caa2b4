"""Staff pages for rounds and results: re-pair, edit pairings, enter or override a result,
the top cut, printable match slips, the dashboard's round actions and the pairings page's
staff links."""

from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.tournaments.factories import (
    games_for,
    new_event,
    open_event,
    play_round,
    play_top_cut_round,
    register_all,
    report_all,
)
from tournaments import services
from tournaments.models import (
    AuditEntry,
    EventState,
    Match,
    MatchStatus,
    ReportKind,
    ResultReport,
    Round,
    RoundStage,
    RoundStatus,
)

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return response.content.decode()


def name_of(registration) -> str:
    return registration.player.get_full_name() or registration.player.get_username()


def tables_of(round_) -> dict[int, tuple]:
    return {m.table: (m.player1_id, m.player2_id) for m in round_.matches.order_by("table")}


@pytest.fixture
def draft_round(staffed_event, organizer, make_players):
    """Eight players, round 1 generated and not published; a co-organizer and a judge."""
    event = staffed_event
    players = make_players(8)
    registrations = register_all(event, players)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    event.refresh_from_db()
    return SimpleNamespace(event=event, round=round_, players=players, registrations=registrations)


def assert_refused(
    client_for, url, *, outsider, judge=None, player=None, method="post", data=None, draft=False
):
    """403 for the given users, a login redirect for anonymous visitors. A draft round is
    private: the outsider and the player do not learn it exists (404); a judge sees it and
    is refused a manager's action (403)."""
    send = (lambda c: c.post(url, data or {})) if method == "post" else (lambda c: c.get(url))
    hidden = 404 if draft else 403
    for user, status in ((outsider, hidden), (judge, 403), (player, hidden)):
        if user is not None:
            assert send(client_for(user)).status_code == status, user
    anonymous = send(client_for())
    assert anonymous.status_code == 302
    assert anonymous["Location"] == f"/accounts/login/?next={url}"


# --- re-pairing -----------------------------------------------------------------------


def repair_url(event, number=1):
    return reverse("tournaments:repair_round", args=[event.pk, number])


@pytest.mark.parametrize("manager", ["organizer", "co_organizer"])
def test_repair_round_pairs_again_with_the_reason(client_for, draft_round, request, manager):
    user = request.getfixturevalue(manager)
    event, round_ = draft_round.event, draft_round.round
    before = tables_of(round_)
    client = client_for(user)
    response = client.post(repair_url(event), {"reason": "Late arrival sorted"})
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:dashboard", args=[event.pk])
    round_.refresh_from_db()
    assert round_.pairing_attempt == 1
    assert round_.status == RoundStatus.DRAFT
    entry = AuditEntry.objects.get(action="round.repaired", object_id=round_.pk)
    assert entry.actor == user
    assert entry.reason == "Late arrival sorted"
    assert entry.before["tables"] == {str(t): list(p) for t, p in before.items()}
    assert entry.after["tables"] == {str(t): list(p) for t, p in tables_of(round_).items()}
    assert sorted(p for pair in tables_of(round_).values() for p in pair) == sorted(
        r.pk for r in draft_round.registrations
    )
    body = text_of(client.get(response["Location"]))
    assert "Round 1 paired again: review and publish it." in body


def test_repair_round_needs_a_reason(client_for, draft_round, organizer):
    event, round_ = draft_round.event, draft_round.round
    before = tables_of(round_)
    response = client_for(organizer).post(repair_url(event), {"reason": "  "}, follow=True)
    assert "Give a reason for re-pairing round 1." in text_of(response)
    round_.refresh_from_db()
    assert round_.pairing_attempt == 0
    assert tables_of(round_) == before
    assert not AuditEntry.objects.filter(action="round.repaired").exists()


def test_repair_published_round_is_refused_with_a_message(client_for, draft_round, organizer):
    event, round_ = draft_round.event, draft_round.round
    services.publish_round(round_, actor=organizer)
    before = tables_of(round_)
    response = client_for(organizer).post(repair_url(event), {"reason": "x"}, follow=True)
    assert "This round is already published: its pairings can no longer change." in text_of(
        response
    )
    assert tables_of(round_) == before
    assert not AuditEntry.objects.filter(action="round.repaired").exists()


def test_repair_round_refused_for_judge_player_outsider(
    client_for, draft_round, judge, outsider, organizer, crossover
):
    event, round_ = draft_round.event, draft_round.round
    before = tables_of(round_)
    assert_refused(
        client_for,
        repair_url(event),
        outsider=outsider,
        judge=judge,
        player=draft_round.players[0],
        data={"reason": "x"},
        draft=True,
    )
    private = new_event(organizer, crossover, name="Private")
    assert client_for(outsider).post(repair_url(private), {"reason": "x"}).status_code == 404
    round_.refresh_from_db()
    assert round_.pairing_attempt == 0
    assert tables_of(round_) == before
    assert not AuditEntry.objects.filter(action="round.repaired").exists()


# --- editing pairings -------------------------------------------------------------------


def edit_url(event, number=1):
    return reverse("tournaments:edit_pairings", args=[event.pk, number])


def edit_data(tables, *, reason="Seating fix", allow_rematch=False, remove=(), new=None):
    """The POST of the edit form: ``tables`` table → (player 1, player 2 or None);
    ``new`` rows beyond the existing tables likewise."""
    data = {"reason": reason, "new_tables": str(len(new or {}))}
    if allow_rematch:
        data["allow_rematch"] = "on"
    for table, (player1, player2) in {**tables, **(new or {})}.items():
        data[f"table{table}_player1"] = str(player1) if player1 else ""
        data[f"table{table}_player2"] = str(player2) if player2 else "bye"
    for table in remove:
        data[f"table{table}_remove"] = "on"
    return data


def test_edit_pairings_page_lists_every_table_with_selects(client_for, draft_round, organizer):
    event, round_ = draft_round.event, draft_round.round
    response = client_for(organizer).get(edit_url(event))
    assert response.status_code == 200
    body = text_of(response)
    assert "<h1>Edit the pairings of round 1</h1>" in body
    for table, (player1, player2) in tables_of(round_).items():
        assert f'<label for="id_table{table}_player1" class="visually-hidden">' in body
        assert f"Table {table}: player 1</label>" in body
        assert f"Table {table}: player 2</label>" in body
        assert f'<label for="id_table{table}_remove">Remove table {table}</label>' in body
        select1 = body.split(f'name="table{table}_player1"')[1].split("</select>")[0]
        assert f'<option value="{player1}" selected>' in select1
        select2 = body.split(f'name="table{table}_player2"')[1].split("</select>")[0]
        assert '<option value="bye">bye</option>' in select2
        assert f'<option value="{player2}" selected>' in select2
    for registration in draft_round.registrations:
        assert body.count(f'<option value="{registration.pk}"') == 2 * len(tables_of(round_))
    assert "Allow rematches" in body
    assert '<button type="submit" name="add_table" value="1" formnovalidate>Add a table' in body
    assert "Save the pairings" in body


def test_edit_pairings_swaps_players_with_reason_and_audit(client_for, draft_round, organizer):
    event, round_ = draft_round.event, draft_round.round
    tables = tables_of(round_)
    (a, b), (c, d) = tables[1], tables[2]
    wanted = {**tables, 1: (a, c), 2: (b, d)}
    client = client_for(organizer)
    response = client.post(edit_url(event), edit_data(wanted, reason="Friends"))
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:pairings", args=[event.pk, 1])
    assert tables_of(round_) == wanted
    entry = AuditEntry.objects.get(action="round.pairing_edited", object_id=round_.pk)
    assert entry.reason == "Friends"
    assert entry.actor == organizer
    assert entry.before == {"tables": {"1": [a, b], "2": [c, d]}}
    assert entry.after == {"tables": {"1": [a, c], "2": [b, d]}, "rematches_allowed": []}
    body = text_of(client.get(response["Location"]))
    assert "Pairings of round 1 saved." in body


def test_edit_pairings_adds_and_removes_tables(client_for, draft_round, organizer):
    event, round_ = draft_round.event, draft_round.round
    tables = tables_of(round_)
    client = client_for(organizer)
    # "Add a table" shows one more row and saves nothing
    data = edit_data(tables)
    data["add_table"] = "1"
    response = client.post(edit_url(event), data)
    assert response.status_code == 200
    body = text_of(response)
    assert 'name="table5_player1"' in body
    assert 'name="new_tables" value="1"' in body
    assert 'name="table5_remove"' not in body
    assert "This field is required." not in body
    assert tables_of(round_) == tables
    assert not AuditEntry.objects.filter(action="round.pairing_edited").exists()
    # move table 4's players to the new table 5 and remove table 4
    response = client.post(
        edit_url(event), edit_data(tables, remove=[4], new={5: tables[4]}, reason="Broken table")
    )
    assert response.status_code == 302
    assert tables_of(round_) == {1: tables[1], 2: tables[2], 3: tables[3], 5: tables[4]}
    entry = AuditEntry.objects.get(action="round.pairing_edited")
    assert entry.after["tables"] == {"4": None, "5": list(tables[4])}


def test_edit_pairings_unchanged_says_so(client_for, draft_round, organizer):
    event, round_ = draft_round.event, draft_round.round
    response = client_for(organizer).post(
        edit_url(event), edit_data(tables_of(round_)), follow=True
    )
    assert "No table changed." in text_of(response)
    assert not AuditEntry.objects.filter(action="round.pairing_edited").exists()


def _refused_edit(client_for, organizer, draft_round, data):
    event, round_ = draft_round.event, draft_round.round
    before = tables_of(round_)
    response = client_for(organizer).post(edit_url(event), data)
    assert response.status_code == 400
    assert tables_of(round_) == before
    assert not AuditEntry.objects.filter(action="round.pairing_edited").exists()
    return text_of(response)


def test_edit_pairings_double_booked_names_player_and_tables(client_for, draft_round, organizer):
    tables = tables_of(draft_round.round)
    a = tables[1][0]
    wanted = {**tables, 2: (a, tables[2][1])}
    body = _refused_edit(client_for, organizer, draft_round, edit_data(wanted))
    name = name_of(draft_round.registrations[0].__class__.objects.get(pk=a))
    assert f"{name} is at more than one table: tables 1, 2." in body
    assert 'role="alert"' in body


def test_edit_pairings_unpaired_players_are_named(client_for, draft_round, organizer):
    tables = tables_of(draft_round.round)
    body = _refused_edit(client_for, organizer, draft_round, edit_data(tables, remove=[4]))
    registrations = {r.pk: r for r in draft_round.registrations}
    names = ", ".join(name_of(registrations[pk]) for pk in sorted(tables[4]))
    assert f"These registered players have no table: {names}." in body


def test_edit_pairings_two_byes_are_refused(client_for, draft_round, organizer):
    tables = tables_of(draft_round.round)
    wanted = {**tables, 3: (tables[3][0], None), 4: (tables[4][0], None)}
    body = _refused_edit(client_for, organizer, draft_round, edit_data(wanted))
    assert "A round has at most one bye, but tables 3, 4 are byes." in body


def test_edit_pairings_player_not_active_names_table(client_for, draft_round, organizer):
    tables = tables_of(draft_round.round)
    registrations = {r.pk: r for r in draft_round.registrations}
    dropped = registrations[tables[4][1]]
    services.drop_player(dropped, actor=organizer)
    (a, b), (c, d) = tables[1], tables[2]
    wanted = {**tables, 1: (a, c), 2: (b, d)}
    body = _refused_edit(client_for, organizer, draft_round, edit_data(wanted))
    assert f"{name_of(dropped)} (Dropped)</option>" in body
    assert (
        f"Table 4: {name_of(dropped)} is not a registered player "
        "(dropped, disqualified or waitlisted)." in body
    )


def test_edit_pairings_needs_reason_and_player_1(client_for, draft_round, organizer):
    tables = tables_of(draft_round.round)
    data = edit_data(tables, reason="")
    data["table2_player1"] = ""
    body = _refused_edit(client_for, organizer, draft_round, data)
    assert "This field is required." in body
    assert "Table 2: choose player 1 (or tick “Remove”)." in body


def test_edit_pairings_player_against_themself(client_for, draft_round, organizer):
    tables = tables_of(draft_round.round)
    wanted = {**tables, 3: (tables[3][0], tables[3][0])}
    body = _refused_edit(client_for, organizer, draft_round, edit_data(wanted))
    assert "Table 3: a player cannot play against themself." in body


def test_edit_pairings_rematch_needs_allow_rematch(client_for, event_after_round_3):
    fixture = event_after_round_3
    event, organizer = fixture.event, fixture.organizer
    round_ = services.generate_round(event, actor=organizer)
    tables = tables_of(round_)
    seated = {p for pair in tables.values() for p in pair}
    met = next(
        m
        for m in Match.objects.filter(round=fixture.rounds[0]).order_by("table")
        if {m.player1_id, m.player2_id} <= seated
    )
    a, b = met.player1_id, met.player2_id
    table_a = next(t for t, pair in tables.items() if a in pair)
    table_b = next(t for t, pair in tables.items() if b in pair)
    x = next(p for p in tables[table_a] if p != a)
    y = next(p for p in tables[table_b] if p != b)
    rest = (x, y) if x is not None else (y, None)
    wanted = {**tables, table_a: (a, b), table_b: rest}
    client = client_for(organizer)
    url = edit_url(event, round_.number)
    before = tables_of(round_)
    response = client.post(url, edit_data(wanted))
    assert response.status_code == 400
    body = text_of(response)
    registrations = {r.pk: r for r in fixture.registrations}
    assert "These players met in an earlier round: " in body
    assert f"table {table_a}: {name_of(registrations[a])} – {name_of(registrations[b])}" in body
    assert "tick “Allow rematches” to keep them." in body
    assert tables_of(round_) == before
    assert not AuditEntry.objects.filter(action="round.pairing_edited").exists()

    response = client.post(url, edit_data(wanted, allow_rematch=True, reason="Judge call"))
    assert response.status_code == 302
    assert tables_of(round_) == wanted
    entry = AuditEntry.objects.get(action="round.pairing_edited")
    assert entry.reason == "Judge call"
    assert [a, b] in entry.after["rematches_allowed"]


def test_edit_pairings_of_published_round_redirects_with_message(
    client_for, draft_round, organizer
):
    event = draft_round.event
    services.publish_round(draft_round.round, actor=organizer)
    client = client_for(organizer)
    response = client.get(edit_url(event))
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:dashboard", args=[event.pk])
    body = text_of(client.get(response["Location"]))
    assert "This round is already published: its pairings can no longer change." in body


@pytest.mark.parametrize("method", ["get", "post"])
def test_edit_pairings_refused_for_judge_player_outsider(
    client_for, draft_round, judge, outsider, organizer, crossover, method
):
    event, round_ = draft_round.event, draft_round.round
    tables = tables_of(round_)
    (a, b), (c, d) = tables[1], tables[2]
    data = edit_data({**tables, 1: (a, c), 2: (b, d)})
    assert_refused(
        client_for,
        edit_url(event),
        outsider=outsider,
        judge=judge,
        player=draft_round.players[0],
        method=method,
        data=data,
        draft=True,
    )
    private = new_event(organizer, crossover, name="Private")
    assert getattr(client_for(outsider), method)(edit_url(private)).status_code == 404
    assert tables_of(round_) == tables
    assert not AuditEntry.objects.filter(action="round.pairing_edited").exists()


def test_edit_pairings_page_query_count_is_the_same_small_and_large(
    client_for, organizer, crossover, make_players
):
    counts = []
    for count, prefix in ((4, "small"), (16, "large")):
        event = open_event(organizer, crossover, name=prefix)
        register_all(event, make_players(count, prefix=prefix))
        services.start_event(event, actor=organizer)
        services.generate_round(event, actor=organizer)
        client = client_for(organizer)
        client.get(edit_url(event))
        with CaptureQueriesContext(connection) as captured:
            assert client.get(edit_url(event)).status_code == 200
        counts.append(len(captured.captured_queries))
    # session, user, event, staff row, registration, round, matches, players
    assert counts == [8, 8]


# --- entering or overriding a result ------------------------------------------------------


@pytest.fixture
def running_round(draft_round, organizer):
    services.publish_round(draft_round.round, actor=organizer)
    services.start_round_clock(draft_round.round, actor=organizer)
    draft_round.round.refresh_from_db()
    return draft_round


def match_url(event, match):
    return reverse("tournaments:match_result", args=[event.pk, match.pk])


def reported(match):
    return services.report_result(
        match, actor=match.player1.player, games=games_for("2-0"), expected_version=match.version
    )


def test_match_page_shows_players_result_version_and_history(client_for, running_round, judge):
    event = running_round.event
    match = reported(running_round.round.matches.get(table=1))
    response = client_for(judge).get(match_url(event, match))
    assert response.status_code == 200
    body = text_of(response)
    p1, p2 = name_of(match.player1), name_of(match.player2)
    assert "<h1>Round 1, table 1</h1>" in body
    assert f"<dt>Player 1</dt><dd>{p1}</dd>" in body
    assert f"<dt>Player 2</dt><dd>{p2}</dd>" in body
    assert "Reported, waiting for the opponent</span> 2-0-0 for " + p1 in body
    assert '<dd id="current-version">2</dd>' in body
    assert (
        f"<td>2</td><td>Reported</td><td>{match.player1.player.username}</td>\n    <td>2-0-0</td>"
        in body
    )
    assert "A player&#x27;s HP reached 0" in body
    assert '<option value="2-1">2-1: ' + p1 + " wins</option>" in body
    assert '<option value="1-1-1">1-1-1: draw</option>' in body
    assert 'name="expected_version" value="2"' in body
    assert "Save the result" in body


def test_override_with_record_makes_result_final(client_for, running_round, judge):
    event = running_round.event
    match = reported(running_round.round.matches.get(table=1))
    client = client_for(judge)
    response = client.post(
        match_url(event, match),
        {"expected_version": "2", "record": "2-1", "reason": "Slip says 2-1"},
    )
    assert response.status_code == 302
    assert response["Location"] == match_url(event, match)
    match.refresh_from_db()
    assert (match.status, match.record_text, match.outcome, match.version) == (
        MatchStatus.FINAL,
        "2-1-0",
        "player1",
        3,
    )
    report = ResultReport.objects.get(match=match, match_version=3)
    assert (report.kind, report.record, report.reason, report.reporter) == (
        ReportKind.OVERRIDE,
        "2-1-0",
        "Slip says 2-1",
        judge,
    )
    entry = AuditEntry.objects.get(action="match.overridden", object_id=match.pk)
    assert entry.reason == "Slip says 2-1"
    assert entry.before["record"] == "2-0-0"
    assert entry.after["record"] == "2-1-0"
    assert entry.object_version == 3
    body = text_of(client.get(response["Location"]))
    assert f"Result saved: 2-1-0 for {name_of(match.player1)}. It is final." in body


def test_override_with_games_by_organizer(client_for, running_round, organizer):
    event = running_round.event
    match = running_round.round.matches.get(table=2)
    data = {"expected_version": "1", "reason": "Entered from the slip"}
    data.update(
        {
            "game1_end": "hp_zero",
            "game1_hp1": "0",
            "game1_hp2": "7",
            "game2_end": "hp_zero",
            "game2_hp1": "0",
            "game2_hp2": "3",
        }
    )
    response = client_for(organizer).post(match_url(event, match), data)
    assert response.status_code == 302
    match.refresh_from_db()
    assert (match.status, match.record_text, match.outcome) == (
        MatchStatus.FINAL,
        "0-2-0",
        "player2",
    )
    assert [game["hp"] for game in match.games] == [[0, 7], [0, 3]]
    assert AuditEntry.objects.filter(action="match.overridden", object_id=match.pk).count() == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"reason": "x"}, "Enter the games or pick a match record."),
        (
            {"reason": "x", "record": "2-0", "game1_end": "hp_zero", "game1_hp2": "0"},
            "Enter the games or pick a match record, not both.",
        ),
        ({"record": "2-0"}, "This field is required."),
        (
            {"reason": "x", "game1_end": "hp_zero", "game1_hp1": "5", "game1_hp2": "5"},
            "These games do not give a valid result: ",
        ),
    ],
)
def test_override_bad_input_changes_nothing(client_for, running_round, judge, data, message):
    event = running_round.event
    match = running_round.round.matches.get(table=1)
    response = client_for(judge).post(match_url(event, match), {"expected_version": "1", **data})
    assert response.status_code == 400
    assert message in text_of(response)
    match.refresh_from_db()
    assert (match.status, match.version, match.record_text) == (MatchStatus.PENDING, 1, "")
    assert not AuditEntry.objects.filter(action="match.overridden").exists()


def test_override_with_stale_version_shows_conflict_and_current_result(
    client_for, running_round, judge
):
    event = running_round.event
    match = running_round.round.matches.get(table=1)
    # The judge opened the page at version 1; meanwhile the player reported.
    match = reported(match)
    response = client_for(judge).post(
        match_url(event, match), {"expected_version": "1", "record": "0-2", "reason": "x"}
    )
    assert response.status_code == 409
    body = text_of(response)
    assert (
        "Someone else changed this match first. Check the current result below and try again."
        in body
    )
    assert '<dd id="current-version">2</dd>' in body
    assert "Reported, waiting for the opponent</span> 2-0-0" in body
    assert 'name="expected_version" value="2"' in body
    assert '<option value="0-2" selected>' in body
    match.refresh_from_db()
    assert (match.status, match.version, match.record_text) == (MatchStatus.REPORTED, 2, "2-0-0")
    assert not AuditEntry.objects.filter(action="match.overridden").exists()


def test_match_page_of_bye_and_draft_round_has_no_form(
    client_for, organizer, crossover, make_players
):
    event = open_event(organizer, crossover)
    register_all(event, make_players(3))
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    client = client_for(organizer)
    playing = round_.matches.exclude(player2=None).get()
    body = text_of(client.get(match_url(event, playing)))
    assert "The round is not published yet: its results are entered once it is." in body
    assert "Save the result" not in body
    bye = round_.matches.get(player2=None)
    body = text_of(client.get(match_url(event, bye)))
    assert "<dt>Player 2</dt><dd>bye</dd>" in body
    assert "A bye has no result to enter." in body
    assert "Save the result" not in body
    response = client.post(
        match_url(event, bye), {"expected_version": "1", "record": "0-2", "reason": "x"}
    )
    assert response.status_code == 400
    # the service's refusal (the round is checked first) above the page's note
    body = text_of(response)
    assert '<ul class="errors" role="alert"><li>This round is not published yet.</li></ul>' in body
    assert "A bye has no result to enter." in body
    bye.refresh_from_db()
    assert (bye.record_text, bye.version) == ("2-0-0", 1)


def test_top_cut_match_offers_no_draw(client_for, organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=1, top_cut_size=2)
    register_all(event, make_players(2))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    round_ = services.generate_top_cut(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    body = text_of(client_for(organizer).get(match_url(event, round_.matches.get())))
    assert '<option value="2-1">' in body
    assert "draw</option>" not in body


@pytest.mark.parametrize("method", ["get", "post"])
def test_match_page_refused_for_player_and_outsider(
    client_for, running_round, outsider, organizer, crossover, make_players, method
):
    event = running_round.event
    match = running_round.round.matches.get(table=1)
    data = {"expected_version": "1", "record": "2-0", "reason": "mine"}
    assert_refused(
        client_for,
        match_url(event, match),
        outsider=outsider,
        player=match.player1.player,
        method=method,
        data=data,
    )
    # a match of another event through this event's address, and a private event: 404
    other = open_event(organizer, crossover, name="Other")
    register_all(other, make_players(2, prefix="other"))
    services.start_event(other, actor=organizer)
    other_match = services.generate_round(other, actor=organizer).matches.get()
    assert client_for(organizer).get(match_url(event, other_match)).status_code == 404
    private = new_event(organizer, crossover, name="Private")
    url = reverse("tournaments:match_result", args=[private.pk, match.pk])
    assert getattr(client_for(outsider), method)(url).status_code == 404
    match.refresh_from_db()
    assert (match.status, match.version) == (MatchStatus.PENDING, 1)
    assert not AuditEntry.objects.filter(action="match.overridden").exists()


def test_match_page_query_count_does_not_grow_with_history(
    client_for, running_round, judge, django_assert_num_queries
):
    event = running_round.event
    quiet = running_round.round.matches.get(table=1)
    busy = reported(running_round.round.matches.get(table=2))
    busy = services.dispute_result(
        busy, actor=busy.player2.player, expected_version=busy.version, reason="No"
    )
    services.override_result(
        busy, actor=judge, expected_version=busy.version, reason="Judge", record="1-1-1"
    )
    client = client_for(judge)
    client.get(match_url(event, quiet))
    # session, user, event, staff row, registration, match with players, submissions
    for match in (quiet, busy):
        with django_assert_num_queries(7):
            assert client.get(match_url(event, match)).status_code == 200


# --- top cut --------------------------------------------------------------------------


def top_cut_urls(event):
    return {
        "generate": reverse("tournaments:generate_top_cut", args=[event.pk]),
        "advance": reverse("tournaments:advance_bracket", args=[event.pk]),
    }


@pytest.fixture
def swiss_done(organizer, crossover, make_players):
    """Four players, two Swiss rounds played and closed, a top 4 planned."""
    event = open_event(organizer, crossover, swiss_rounds=2, top_cut_size=4)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    play_round(event, organizer)
    event.refresh_from_db()
    return event


def dashboard_of(client, event) -> str:
    return text_of(client.get(reverse("tournaments:dashboard", args=[event.pk])))


def test_top_cut_and_bracket_through_the_dashboard(client_for, swiss_done, organizer):
    event = swiss_done
    client = client_for(organizer)
    urls = top_cut_urls(event)
    body = dashboard_of(client, event)
    assert "Generate the top cut" in body
    assert "Generate round" not in body
    assert "Next bracket round" not in body

    response = client.post(urls["generate"], follow=True)
    assert "Top cut generated: round 3 is ready to review and publish." in text_of(response)
    event.refresh_from_db()
    assert event.state == EventState.TOP_CUT
    round_3 = Round.objects.get(event=event, number=3)
    assert (round_3.stage, round_3.status, round_3.matches.count()) == (
        RoundStage.TOP_CUT,
        RoundStatus.DRAFT,
        2,
    )
    assert AuditEntry.objects.filter(action="event.top_cut_generated").count() == 1
    body = text_of(response)
    assert "Generate the top cut" not in body
    assert "Next bracket round" not in body  # round 3 is not closed
    assert "Re-pair" not in body  # top-cut pairings follow the seeds
    assert "Edit pairings" not in body

    play_top_cut_round(round_3, organizer)
    assert "Next bracket round" in dashboard_of(client, event)
    response = client.post(urls["advance"], follow=True)
    assert "Bracket round 4 generated: review and publish it." in text_of(response)
    final = Round.objects.get(event=event, number=4)
    assert final.matches.count() == 1
    assert AuditEntry.objects.filter(action="round.bracket_advanced", object_id=final.pk).exists()

    play_top_cut_round(final, organizer)
    assert "Next bracket round" not in dashboard_of(client, event)
    response = client.post(urls["advance"], follow=True)
    assert "The final has been played: finish the event." in text_of(response)
    assert Round.objects.filter(event=event).count() == 4


def test_top_cut_errors_are_messages(client_for, organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=2, top_cut_size=4)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    client = client_for(organizer)
    urls = top_cut_urls(event)
    body = dashboard_of(client, event)
    assert "Generate the top cut" not in body
    assert ">Generate round 2</button>" in body
    response = client.post(urls["generate"], follow=True)
    assert "Play all the Swiss rounds first." in text_of(response)
    response = client.post(urls["advance"], follow=True)
    assert "The event is not in its top cut." in text_of(response)
    event.refresh_from_db()
    assert event.state == EventState.RUNNING
    assert Round.objects.filter(event=event).count() == 1


@pytest.mark.parametrize("name", ["generate", "advance"])
def test_top_cut_refused_for_judge_player_outsider(
    client_for, swiss_done, organizer, judge, outsider, crossover, name
):
    event = swiss_done
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    player = event.registrations.first().player
    assert_refused(
        client_for, top_cut_urls(event)[name], outsider=outsider, judge=judge, player=player
    )
    private = new_event(organizer, crossover, name="Private")
    assert client_for(outsider).post(top_cut_urls(private)[name]).status_code == 404
    event.refresh_from_db()
    assert event.state == EventState.RUNNING
    assert Round.objects.filter(event=event).count() == 2
    assert "Generate the top cut" not in dashboard_of(client_for(judge), event)


# --- match slips ------------------------------------------------------------------------


def slips_url(event, number=1):
    return reverse("tournaments:match_slips", args=[event.pk, number])


def test_match_slips_have_every_table_and_both_names(client_for, running_round, judge):
    event = running_round.event
    response = client_for(judge).get(slips_url(event))
    assert response.status_code == 200
    body = text_of(response)
    matches = list(running_round.round.matches.order_by("table"))
    assert len(matches) == 4
    assert body.count('<article class="slip"') == 4
    for match in matches:
        slip = body.split(f'<article class="slip" aria-label="Table {match.table}">')[1]
        slip = slip.split("</article>")[0]
        assert f'<span class="slip-table">Table {match.table}</span>' in slip
        assert "Round 1</span>" in slip
        assert f"Player 1: <strong>{name_of(match.player1)}</strong>" in slip
        assert f"Player 2: <strong>{name_of(match.player2)}</strong>" in slip
        assert f"Signature of {name_of(match.player1)}" in slip
        assert f"Signature of {name_of(match.player2)}" in slip
        for record in ("2-0", "2-1", "1-2", "0-2", "Draw"):
            assert f'<span class="box"></span>{record}' in slip
        assert slip.count('<th scope="row">') == 3
    # The print layout is a stylesheet of its own (no inline <style> under the CSP).
    assert '<link rel="stylesheet" href="/static/css/slips.css">' in body
    assert "<style" not in body
    with open("static/css/slips.css") as stylesheet:
        css = stylesheet.read()
    assert "@media print" in css
    assert "@page { size: A4;" in css
    assert body.count('<div class="slip-page">') == 2  # three slips per page
    assert '<header class="site-header">' not in body
    assert '<div class="no-print">' in body


def test_match_slips_skip_the_bye(client_for, organizer, crossover, make_players):
    event = open_event(organizer, crossover)
    registrations = register_all(event, make_players(3))
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    bye = round_.matches.get(player2=None)
    body = text_of(client_for(organizer).get(slips_url(event)))
    assert body.count('<article class="slip"') == 1
    name = name_of(next(r for r in registrations if r.pk == bye.player1_id))
    assert f"Table {bye.table}: {name} has a bye (no slip)." in body
    assert "This round is not published yet" in body


def test_match_slips_refused_for_player_and_outsider(
    client_for, running_round, outsider, organizer, crossover
):
    event = running_round.event
    assert_refused(
        client_for,
        slips_url(event),
        outsider=outsider,
        player=running_round.players[0],
        method="get",
    )
    private = new_event(organizer, crossover, name="Private")
    assert client_for(outsider).get(slips_url(private)).status_code == 404
    assert client_for(organizer).get(slips_url(event, 9)).status_code == 404


def test_match_slips_query_count_is_the_same_for_8_and_64_players(
    client_for, organizer, crossover, make_players
):
    counts = []
    for count, prefix in ((8, "small"), (64, "large")):
        event = open_event(organizer, crossover, name=prefix, capacity=64)
        register_all(event, make_players(count, prefix=prefix))
        services.start_event(event, actor=organizer)
        round_ = services.generate_round(event, actor=organizer)
        client = client_for(organizer)
        client.get(slips_url(event))
        with CaptureQueriesContext(connection) as captured:
            body = text_of(client.get(slips_url(event)))
        assert body.count('<article class="slip"') == count // 2 == round_.matches.count()
        counts.append(len(captured.captured_queries))
    # session, user, event, staff row, registration, round, matches with players
    assert counts == [7, 7]


# --- dashboard and pairings page ---------------------------------------------------------


def test_dashboard_round_actions_follow_the_round_and_the_role(
    client_for, draft_round, organizer, judge
):
    event, round_ = draft_round.event, draft_round.round
    urls = {
        "publish": reverse("tournaments:round_action", args=[event.pk, 1, "publish"]),
        "start": reverse("tournaments:round_action", args=[event.pk, 1, "start"]),
        "close": reverse("tournaments:round_action", args=[event.pk, 1, "close"]),
        "repair": repair_url(event),
        "edit": edit_url(event),
        "slips": slips_url(event),
        "clock": reverse("tournaments:round_clock", args=[event.pk, 1]),
    }

    def shown(user):
        body = dashboard_of(client_for(user), event)
        return {name for name, url in urls.items() if f'"{url}"' in body}

    assert shown(organizer) == {"publish", "repair", "edit", "slips"}
    body = dashboard_of(client_for(organizer), event)
    assert "Reason for re-pairing" in body
    assert ">Re-pair round 1</button>" in body
    assert ">Edit pairings</a>" in body
    assert ">Match slips</a>" in body
    assert shown(judge) == {"slips"}
    services.publish_round(round_, actor=organizer)
    assert shown(organizer) == {"start", "slips"}  # no closing while results are missing
    services.start_round_clock(round_, actor=organizer)
    assert shown(organizer) == {"slips", "clock"}
    assert shown(judge) == {"slips", "clock"}
    report_all(round_)
    assert shown(organizer) == {"close", "slips", "clock"}
    services.close_round(round_, actor=organizer)
    assert shown(organizer) == set()


def test_dashboard_outstanding_matches_link_to_the_match_page(client_for, running_round, judge):
    event = running_round.event
    body = dashboard_of(client_for(judge), event)
    for match in running_round.round.matches.all():
        assert (
            f'<a href="{match_url(event, match)}">Enter result<span class="visually-hidden"> '
            f"(round 1, table {match.table})</span></a>" in body
        )


def test_pairings_page_of_draft_round_offers_staff_links(client_for, draft_round, organizer):
    event = draft_round.event
    url = reverse("tournaments:pairings", args=[event.pk, 1])
    body = text_of(client_for(organizer).get(url))
    assert f'<a href="{edit_url(event)}">Edit pairings</a>' in body
    assert f'<a href="{slips_url(event)}">Match slips</a>' in body
    assert "Players do not see this round until it is published." in body
    assert "Enter result" not in body  # a draft's results are entered once published
    assert client_for(draft_round.players[0]).get(url).status_code == 404


def test_pairings_page_of_published_round_shows_no_staff_links_to_players(
    client_for, running_round
):
    event = running_round.event
    url = reverse("tournaments:pairings", args=[event.pk, 1])
    for client in (client_for(running_round.players[0]), client_for()):
        body = text_of(client.get(url))
        assert "Enter result" not in body
        assert slips_url(event) not in body
        assert edit_url(event) not in body


def test_pairings_page_links_each_match_for_staff(client_for, running_round, judge):
    event = running_round.event
    body = text_of(client_for(judge).get(reverse("tournaments:pairings", args=[event.pk, 1])))
    assert f'<a href="{slips_url(event)}">Match slips</a>' in body
    assert edit_url(event) not in body
    for match in running_round.round.matches.all():
        assert f'<a href="{match_url(event, match)}">Enter result' in body


def test_edit_pairings_over_a_change_made_meanwhile_is_refused(client_for, draft_round, organizer):
    """The page carries the tables it showed; if another manager changed the round in
    the meantime, saving is refused and nothing changes."""
    from tournaments.forms_rounds import encode_tables

    event, round_ = draft_round.event, draft_round.round
    client = client_for(organizer)
    loaded = tables_of(round_)
    page = client.get(edit_url(event)).content.decode()
    assert f'name="loaded" value="{encode_tables(loaded)}"' in page
    (a1, a2), (b1, b2) = loaded[1], loaded[2]
    services.edit_pairing(  # another manager, meanwhile
        round_, actor=organizer, tables={1: (a1, b1), 2: (a2, b2)}, reason="Meanwhile"
    )
    changed = tables_of(round_)
    data = {**edit_data(loaded), "loaded": encode_tables(loaded)}
    response = client.post(edit_url(event), data)
    assert response.status_code == 302
    assert response["Location"] == edit_url(event)
    assert tables_of(round_) == changed
    assert AuditEntry.objects.filter(action="round.pairing_edited").count() == 1
    page = client.get(edit_url(event)).content.decode()
    assert "Someone changed these pairings after you opened this page" in page


def test_tables_round_trip_through_the_hidden_field():
    from tournaments.forms_rounds import decode_tables, encode_tables

    tables = {1: (12, 14), 2: (15, None), 10: (3, 4)}
    assert encode_tables(tables) == "1:12-14,2:15-,10:3-4"
    assert decode_tables(encode_tables(tables)) == tables
    for garbled in ("", "x", "1:12", "1:a-b", None):
        assert decode_tables(garbled) is None
