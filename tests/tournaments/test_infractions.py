"""Infractions as data: the upgrade rules (pure), the built-in list and its loader, the
penalty service with an infraction from the list, the player page's form, the penalty
report (filter, counts, CSV, permissions, query counts) and the API."""

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from cardpool.models import Game
from tests.factories import GameFactory
from tournaments import infractions, services
from tournaments.engine.penalties import (
    EarlierPenalty,
    InfractionRule,
    Kind,
    Scope,
    Upgrade,
    suggest_penalty,
)
from tournaments.models import AuditEntry, Infraction, Match, Penalty

from .factories import UserFactory, open_event, register_all

API = "/api/v1"

# --- the rules (no database) -------------------------------------------------------------

SLOW = InfractionRule("slow_play", "tournament", Kind.WARNING, Upgrade.STEP)


def earlier(*rows):
    return [EarlierPenalty(code, category, Kind(kind)) for code, category, kind in rows]


def test_first_offence_gets_the_default():
    suggestion = suggest_penalty(SLOW, [])
    assert (suggestion.kind, suggestion.default, suggestion.repeat, suggestion.upgraded) == (
        Kind.WARNING,
        Kind.WARNING,
        1,
        False,
    )


def test_step_goes_one_up_for_each_earlier_offence_and_stops_at_match_loss():
    one = earlier(("slow_play", "tournament", "warning"))
    assert suggest_penalty(SLOW, one).kind == Kind.GAME_LOSS
    assert suggest_penalty(SLOW, one).repeat == 2
    two = one * 2
    assert suggest_penalty(SLOW, two).kind == Kind.MATCH_LOSS
    assert suggest_penalty(SLOW, one * 5).kind == Kind.MATCH_LOSS  # never a DQ by counting


def test_step_from_a_disqualification_stays_one():
    rule = InfractionRule("cheating", "serious", Kind.DISQUALIFICATION, Upgrade.STEP)
    assert suggest_penalty(rule, earlier(("cheating", "serious", "warning"))).kind == (
        Kind.DISQUALIFICATION
    )


def test_other_infractions_and_written_ones_do_not_count():
    others = earlier(
        ("extra_cards", "game_play", "warning"),
        (None, None, "warning"),
        ("tardiness", "tournament", "game_loss"),
    )
    suggestion = suggest_penalty(SLOW, others)
    assert (suggestion.kind, suggestion.repeat) == (Kind.WARNING, 1)


def test_category_scope_counts_every_infraction_of_the_category():
    rule = InfractionRule(
        "slow_play", "tournament", Kind.WARNING, Upgrade.STEP, scope=Scope.CATEGORY
    )
    rows = earlier(
        ("tardiness", "tournament", "game_loss"),
        ("extra_cards", "game_play", "warning"),
        (None, None, "warning"),
    )
    suggestion = suggest_penalty(rule, rows)
    assert (suggestion.kind, suggestion.repeat, suggestion.scope) == (
        Kind.GAME_LOSS,
        2,
        Scope.CATEGORY,
    )


def test_upgrade_to_a_fixed_penalty_from_the_first_repeat():
    rule = InfractionRule(
        "unsporting_major", "conduct", Kind.MATCH_LOSS, Upgrade.TO, Kind.DISQUALIFICATION
    )
    assert suggest_penalty(rule, []).kind == Kind.MATCH_LOSS
    rows = earlier(("unsporting_major", "conduct", "match_loss"))
    assert suggest_penalty(rule, rows).kind == Kind.DISQUALIFICATION
    assert suggest_penalty(rule, rows * 3).kind == Kind.DISQUALIFICATION


def test_upgrade_to_never_lowers_the_default():
    rule = InfractionRule("x", "conduct", Kind.MATCH_LOSS, Upgrade.TO, Kind.WARNING)
    assert suggest_penalty(rule, earlier(("x", "conduct", "warning"))).kind == Kind.MATCH_LOSS


def test_upgrade_to_without_a_penalty_is_an_error():
    rule = InfractionRule("x", "conduct", Kind.WARNING, Upgrade.TO, None)
    assert suggest_penalty(rule, []).kind == Kind.WARNING  # no repeat: not needed
    with pytest.raises(ValueError, match="'x'"):
        suggest_penalty(rule, earlier(("x", "conduct", "warning")))


def test_no_upgrade_keeps_the_default_however_many_repeats():
    rule = InfractionRule("outside_assistance", "tournament", Kind.MATCH_LOSS)
    rows = earlier(("outside_assistance", "tournament", "match_loss")) * 3
    suggestion = suggest_penalty(rule, rows)
    assert (suggestion.kind, suggestion.repeat, suggestion.upgraded) == (Kind.MATCH_LOSS, 4, False)


@pytest.mark.parametrize(
    ("number", "text"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (22, "22nd")]
)
def test_ordinals(number, text):
    with translation.override("en"):
        assert infractions.ordinal(number) == text


# --- the built-in list ----------------------------------------------------------------


@pytest.fixture
def games(db):
    return {
        slug: GameFactory(slug=slug, name=slug)
        for slug in ("crossover", "monster-collection", "asura-system")
    }


def test_builtin_list_is_complete_and_valid():
    specs = infractions.builtin_specs()
    assert set(specs) == {"crossover", "monster-collection", "cross-universe", "asura-system"}
    for slug, entries in specs.items():
        codes = [entry["code"] for entry in entries]
        assert len(codes) == len(set(codes)), slug
        for entry in entries:
            assert entry["name_ja"], entry["code"]
            assert entry["name_en"], entry["code"]
            infraction = Infraction(
                game=Game(slug=slug, name=slug),
                **{key: value for key, value in entry.items() if key != "game"},
            )
            # The fields hold allowed values (the same check as the admin form).
            infraction.clean_fields(exclude=["game"])
    crossover = {entry["code"]: entry for entry in specs["crossover"]}
    assert crossover["cheating"]["default_penalty"] == "disqualification"
    assert crossover["serious_violation"]["default_penalty"] == "match_loss"
    assert crossover["serious_violation"]["upgrade_to"] == "disqualification"
    assert crossover["serious_violation"]["source"] == (
        "CrossOver wiki summary, victory conditions (重大な違反)"
    )
    assert crossover["cheating"]["source"] == crossover["serious_violation"]["source"]
    assert crossover["illegal_decklist"]["source"].endswith(
        "1−2−3 and 1−2−4 (deck size, copies, sideboard)"
    )
    assert "serious_violation" not in {entry["code"] for entry in specs["asura-system"]}
    assert all(entry["source"] == "" for entry in specs["asura-system"])


def test_loader_creates_the_missing_ones_for_existing_games_only(games):
    created = infractions.load_builtin_infractions()
    per_game = {game.slug: Infraction.objects.filter(game=game).count() for game in games.values()}
    common = len(infractions.builtin_specs()["asura-system"])
    assert per_game == {
        "crossover": common + 1,
        "monster-collection": common,
        "asura-system": common,
    }
    assert len(created) == sum(per_game.values())
    slow = Infraction.objects.get(game=games["crossover"], code="slow_play")
    assert (slow.name_en, slow.name_ja, slow.default_penalty, slow.upgrade, slow.builtin) == (
        "Slow play",
        "遅延行為",
        "warning",
        "step",
        True,
    )
    assert slow.source.startswith("CrossOver basic rules 2.02")


def test_loader_is_idempotent_and_leaves_edits_alone(games):
    infractions.load_builtin_infractions()
    slow = Infraction.objects.get(game=games["crossover"], code="slow_play")
    slow.default_penalty = "game_loss"
    slow.name_en = "Slow play (edited)"
    slow.save()
    Infraction.objects.filter(game=games["crossover"], code="cheating").delete()
    before = Infraction.objects.count()
    created = infractions.load_builtin_infractions()
    assert [(i.game.slug, i.code) for i in created] == [("crossover", "cheating")]
    assert Infraction.objects.count() == before + 1
    slow.refresh_from_db()
    assert (slow.default_penalty, slow.name_en) == ("game_loss", "Slow play (edited)")
    assert infractions.load_builtin_infractions() == []


def test_names_follow_the_reader_language(games):
    infractions.load_builtin_infractions()
    slow = Infraction.objects.get(game=games["crossover"], code="slow_play")
    with translation.override("ja"):
        assert str(slow) == "遅延行為"
    with translation.override("en"):
        assert str(slow) == "Slow play"


# --- issuing a penalty from the list ------------------------------------------------------


@pytest.fixture
def running(organizer, judge, crossover, make_players):
    """A CrossOver event in round 1 (published) with a judge and the built-in list."""
    infractions.load_builtin_infractions()
    event = open_event(organizer, crossover, swiss_rounds=3)
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    services.publish_round(services.generate_round(event, actor=organizer), actor=organizer)
    match = Match.objects.get(round__event=event, table=1)
    return event, match


def listed(event, code):
    return Infraction.objects.get(game__formats=event.format, code=code)


def test_the_suggested_penalty_is_issued_and_upgraded_on_a_repeat(running, judge):
    event, match = running
    player = match.player1
    slow = listed(event, "slow_play")
    first = services.issue_penalty(player, actor=judge, infraction=slow)
    assert (first.kind, first.suggested_kind, first.infraction_ref, first.infraction) == (
        "warning",
        "warning",
        slow,
        "Slow play",
    )
    # A game loss needs the match: the second slow play is upgraded to one.
    second = services.issue_penalty(player, actor=judge, infraction=slow, match=match)
    assert (second.kind, second.suggested_kind, second.deviated) == (
        "game_loss",
        "game_loss",
        False,
    )
    entry = AuditEntry.objects.filter(action="penalty.issued").latest("id")
    assert (entry.after["infraction_code"], entry.after["suggested_kind"]) == (
        "slow_play",
        "game_loss",
    )
    # Another player's count starts again.
    other = services.issue_penalty(match.player2, actor=judge, infraction=slow)
    assert other.kind == "warning"


def test_another_penalty_than_suggested_needs_a_note(running, judge):
    event, match = running
    slow = listed(event, "slow_play")
    with pytest.raises(services.InvalidInput) as refused:
        services.issue_penalty(
            match.player1, actor=judge, kind="game_loss", infraction=slow, match=match
        )
    assert refused.value.code == "override_note_required"
    assert not Penalty.objects.exists()
    penalty = services.issue_penalty(
        match.player1, actor=judge, kind="game_loss", infraction=slow, match=match, note="3rd time"
    )
    assert (penalty.kind, penalty.suggested_kind, penalty.deviated) == (
        "game_loss",
        "warning",
        True,
    )


def test_an_infraction_of_another_game_or_inactive_is_refused(running, judge):
    event, match = running
    asura = GameFactory(slug="asura-x", name="Other")
    foreign = Infraction.objects.create(
        game=asura,
        code="x",
        name_ja="x",
        name_en="x",
        category="conduct",
        default_penalty="warning",
    )
    with pytest.raises(services.InvalidInput) as refused:
        services.issue_penalty(match.player1, actor=judge, infraction=foreign)
    assert refused.value.code == "wrong_game"
    slow = listed(event, "slow_play")
    slow.active = False
    slow.save()
    with pytest.raises(services.InvalidInput) as refused:
        services.issue_penalty(match.player1, actor=judge, infraction=slow)
    assert refused.value.code == "infraction_inactive"
    assert not Penalty.objects.exists()


def test_a_written_infraction_still_needs_its_penalty(running, judge):
    _event, match = running
    with pytest.raises(services.InvalidInput) as refused:
        services.issue_penalty(match.player1, actor=judge, infraction="Marked sleeves")
    assert refused.value.code == "invalid_kind"
    penalty = services.issue_penalty(
        match.player1, actor=judge, kind="warning", infraction="Marked sleeves"
    )
    assert (penalty.infraction_ref, penalty.suggested_kind, penalty.infraction_name) == (
        None,
        "",
        "Marked sleeves",
    )


def test_the_reason_shown_to_the_judge(running, judge):
    event, match = running
    slow = listed(event, "slow_play")
    services.issue_penalty(match.player1, actor=judge, infraction=slow)
    offer = infractions.offers_for(match.player1, [slow])[slow.pk]
    with translation.override("en"):
        assert offer.reason == "2nd “Slow play” in this event: upgraded from Warning to Game loss."
        assert infractions.suggestion_text(offer) == (
            "Suggested penalty: Game loss. 2nd “Slow play” in this event: upgraded from "
            "Warning to Game loss."
        )
    first = infractions.offers_for(match.player2, [slow])[slow.pk]
    assert first.reason == ""
    cheating = listed(event, "outside_assistance")
    services.issue_penalty(match.player2, actor=judge, infraction=cheating, match=match)
    again = infractions.offers_for(match.player2, [cheating])[cheating.pk]
    with translation.override("en"):
        assert again.reason == "2nd “Outside assistance” in this event: no upgrade, Match loss."


# --- the player page ---------------------------------------------------------------------


def page(event, registration, name="player_detail"):
    return reverse(f"tournaments:{name}", args=[event.pk, registration.pk])


def test_player_page_offers_the_list_grouped_with_the_suggestion(running, judge, client):
    event, match = running
    slow = listed(event, "slow_play")
    services.issue_penalty(match.player1, actor=judge, infraction=slow)
    client.force_login(judge)
    body = client.get(page(event, match.player1)).content.decode()
    assert '<optgroup label="Tournament procedure">' in body
    assert f'<option value="{slow.pk}" data-suggested="game_loss"' in body
    assert "Slow play — Warning</option>" in body
    assert "2nd “Slow play” in this event: upgraded from Warning to Game loss." in body
    assert '<option value="" selected>The suggested penalty</option>' in body


def test_judge_issues_the_suggested_penalty_from_the_page(running, judge, client):
    event, match = running
    slow = listed(event, "slow_play")
    client.force_login(judge)
    data = {"penalty-infraction": str(slow.pk), "penalty-kind": "", "penalty-match": ""}
    response = client.post(page(event, match.player1, "player_penalty"), data)
    assert response.status_code == 302
    penalty = Penalty.objects.get()
    assert (penalty.kind, penalty.infraction_ref, penalty.suggested_kind) == (
        "warning",
        slow,
        "warning",
    )
    with translation.override("ja"):
        body = client.get(page(event, match.player1), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "<td>遅延行為</td>" in body


def test_judge_deviating_without_a_note_is_told_where(running, judge, client):
    event, match = running
    slow = listed(event, "slow_play")
    client.force_login(judge)
    data = {
        "penalty-infraction": str(slow.pk),
        "penalty-kind": "match_loss",
        "penalty-match": str(match.pk),
    }
    response = client.post(page(event, match.player1, "player_penalty"), data)
    assert response.status_code == 200
    assert response.context["penalty_form"].errors == {
        "note": ["This is not the suggested penalty: say in the note why you chose it."]
    }
    assert not Penalty.objects.exists()


def test_an_infraction_not_in_the_list_is_a_form_error(running, judge, client):
    event, match = running
    client.force_login(judge)
    data = {"penalty-infraction": "999999", "penalty-kind": "warning"}
    response = client.post(page(event, match.player1, "player_penalty"), data)
    assert response.status_code == 200
    assert list(response.context["penalty_form"].errors) == ["infraction"]
    assert not Penalty.objects.exists()


# --- the penalty report --------------------------------------------------------------------


def report_url(event, query=""):
    return reverse("tournaments:penalty_report", args=[event.pk]) + query


@pytest.fixture
def penalised(running, judge):
    event, match = running
    slow = listed(event, "slow_play")
    services.issue_penalty(match.player1, actor=judge, infraction=slow, note="T1")
    services.issue_penalty(match.player1, actor=judge, infraction=slow, match=match)
    services.issue_penalty(match.player2, actor=judge, kind="warning", infraction="Marked sleeves")
    return event, match


def test_report_lists_filters_and_counts(penalised, judge, client):
    event, _match = penalised
    client.force_login(judge)
    response = client.get(report_url(event))
    assert response.status_code == 200
    assert [p.kind for p in response.context["penalties"]] == ["warning", "game_loss", "warning"]
    assert response.context["counts"] == [
        {
            "name": "Slow play",
            "listed": True,
            "total": 2,
            "kinds": [("Warning", 1), ("Game loss", 1), ("Match loss", 0), ("Disqualification", 0)],
        },
        {
            "name": "Marked sleeves",
            "listed": False,
            "total": 1,
            "kinds": [("Warning", 1), ("Game loss", 0), ("Match loss", 0), ("Disqualification", 0)],
        },
    ]
    filtered = client.get(report_url(event, "?kind=game_loss"))
    assert [p.kind for p in filtered.context["penalties"]] == ["game_loss"]
    assert "1 penalty · Game loss" in filtered.content.decode()
    wrong = client.get(report_url(event, "?kind=yellow"))
    assert wrong.status_code == 200
    assert "kind" in wrong.context["form"].errors
    assert len(wrong.context["penalties"]) == 3


def test_report_in_japanese_names_the_infractions_in_japanese(penalised, judge, client):
    event, _match = penalised
    client.force_login(judge)
    with translation.override("ja"):
        response = client.get(report_url(event), HTTP_ACCEPT_LANGUAGE="ja")
    assert response.context["counts"][0]["name"] == "遅延行為"


def test_report_csv(penalised, judge, client):
    event, match = penalised
    client.force_login(judge)
    response = client.get(report_url(event, "?kind=game_loss&format=csv"))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f'filename="event-{event.pk}-penalties-game_loss.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "Player",
        "Username",
        "Infraction",
        "Infraction code",
        "Penalty",
        "Suggested penalty",
        "Round",
        "Table",
        "Judge",
        "Issued",
        "Note",
    ]
    assert len(rows) == 2
    player = match.player1.player.username
    assert rows[1][:9] == [
        player,
        player,
        "Slow play",
        "slow_play",
        "Game loss",
        "Game loss",
        "1",
        "1",
        "judge",
    ]


def test_report_refuses_outsiders_and_players(penalised, client, outsider):
    event, match = penalised
    assert client.get(report_url(event)).status_code == 302  # anonymous: to the login
    client.force_login(outsider)
    assert client.get(report_url(event)).status_code == 403
    client.force_login(match.player1.player)
    assert client.get(report_url(event)).status_code == 403
    assert client.get(report_url(event, "?format=csv")).status_code == 403


def test_report_query_count_does_not_grow(running, judge, client):
    event, _match = running
    client.force_login(judge)
    slow = listed(event, "slow_play")
    counts = []
    for _ in range(2):
        for registration in event.registrations.all():
            services.issue_penalty(
                registration, actor=judge, infraction=slow, kind="warning", note="again"
            )
            services.issue_penalty(registration, actor=judge, kind="warning", infraction="Other")
        client.get(report_url(event))  # warm the session
        with CaptureQueriesContext(connection) as captured:
            assert client.get(report_url(event)).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]
    assert counts[0] <= 9


def test_player_page_query_count_does_not_grow_with_penalties(running, judge, client):
    event, match = running
    client.force_login(judge)
    slow = listed(event, "slow_play")
    url = page(event, match.player1)
    counts = []
    for _ in range(2):
        services.issue_penalty(
            match.player1, actor=judge, infraction=slow, kind="warning", note="n"
        )
        client.get(url)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


# --- the API -------------------------------------------------------------------------------


def penalty_api(event, registration):
    return f"{API}/events/{event.pk}/registrations/{registration.pk}/penalty/"


@pytest.fixture
def api(judge):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(judge)
    return client


def test_api_issues_a_penalty_by_infraction_code(running, api):
    event, match = running
    response = api.post(
        penalty_api(event, match.player1), {"infraction_code": "slow_play"}, format="json"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["kind"], body["infraction"], body["infraction_code"], body["suggested_kind"]) == (
        "warning",
        "Slow play",
        "slow_play",
        "warning",
    )
    again = api.post(
        penalty_api(event, match.player1),
        {"infraction_code": "slow_play", "match": match.pk},
        format="json",
    )
    assert again.json()["kind"] == "game_loss"


def test_api_refuses_an_unknown_code_and_an_override_without_note(running, api):
    event, match = running
    url = penalty_api(event, match.player1)
    unknown = api.post(url, {"infraction_code": "yellow_card"}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["code"] == "infraction_not_found"
    override = api.post(
        url, {"infraction_code": "slow_play", "kind": "disqualification"}, format="json"
    )
    assert override.status_code == 400
    assert override.json()["code"] == "override_note_required"
    assert not Penalty.objects.exists()


def test_api_refuses_outsiders(running, outsider):
    from rest_framework.test import APIClient

    event, match = running
    client = APIClient()
    url = penalty_api(event, match.player1)
    assert client.post(url, {"infraction_code": "slow_play"}, format="json").status_code in (
        401,
        403,
    )
    client.force_authenticate(outsider)
    assert client.post(url, {"infraction_code": "slow_play"}, format="json").status_code in (
        403,
        404,
    )
    client.force_authenticate(UserFactory(username="someone"))
    assert client.post(url, {"infraction_code": "slow_play"}, format="json").status_code in (
        403,
        404,
    )
    assert not Penalty.objects.exists()


def test_api_penalty_list_query_count(running, judge, api, django_assert_max_num_queries):
    event, _match = running
    slow = listed(event, "slow_play")
    for registration in event.registrations.all():
        services.issue_penalty(registration, actor=judge, infraction=slow)
    with django_assert_max_num_queries(8):
        response = api.get(f"{API}/events/{event.pk}/penalties/")
    assert response.status_code == 200


# --- the admin -----------------------------------------------------------------------------


@pytest.fixture
def site_admin(db):
    return UserFactory(username="site-admin", is_staff=True, is_superuser=True)


def test_admin_lists_filters_and_edits_infractions(games, site_admin, client):
    infractions.load_builtin_infractions()
    client.force_login(site_admin)
    changelist = reverse("admin:tournaments_infraction_changelist")
    response = client.get(changelist, {"game__id__exact": games["asura-system"].pk})
    assert response.status_code == 200
    shown = {row.game.slug for row in response.context["cl"].result_list}
    assert shown == {"asura-system"}
    response = client.get(changelist, {"category__exact": "serious"})
    assert {row.code for row in response.context["cl"].result_list} == {
        "cheating",
        "improper_result",
        "aggressive_behaviour",
        "serious_violation",
    }
    slow = Infraction.objects.get(game=games["crossover"], code="slow_play")
    change = reverse("admin:tournaments_infraction_change", args=[slow.pk])
    with translation.override("ja"):
        page = client.get(change, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "名前（日本語）" in page
    assert "繰り返しの格上げ" in page
    data = {
        "game": slow.game_id,
        "code": "slow_play",
        "name_ja": "遅延行為",
        "name_en": "Slow play",
        "category": "tournament",
        "active": "on",
        "order": "5",
        "default_penalty": "warning",
        "upgrade": "to",
        "upgrade_to": "",
        "repeat_scope": "infraction",
        "description_ja": "",
        "description_en": "",
        "source": "",
    }
    refused = client.post(change, data)
    assert refused.status_code == 200  # "to" without the penalty it upgrades to
    form = refused.context["adminform"].form
    assert form.errors == {"upgrade_to": ["Choose the penalty a repeat is upgraded to."]}
    assert Infraction.objects.get(pk=slow.pk).upgrade == "step"
    response = client.post(change, {**data, "upgrade_to": "match_loss"})
    assert response.status_code == 302
    slow.refresh_from_db()
    assert (slow.upgrade, slow.upgrade_to, slow.order) == ("to", "match_loss", 5)
