"""Legal sets are dated like bans (rule 1−2−1 lists the legal pool as of a date): a set is
legal from the date the format gives it, else from its release date, else on any day.
The built-in crossover format lists THIRD EXPANSION from 2002-04-02, the day after the
v2.02 list that does not name it, so events up to 2002-04-01 check as before (issue #13)."""

import datetime as dt

import pytest
from django.urls import reverse

from cardpool.models import CardType
from decks import services
from decks.models import Format, LegalSet
from tests.decks.conftest import BAN_DAY
from tests.decks.test_admin_recheck import format_form
from tests.factories import CardFactory, PrintingFactory
from tests.tournaments.factories import UserFactory, open_event
from tournaments import services as event_services

pytestmark = pytest.mark.django_db

THIRD_DAY = dt.date(2002, 4, 2)
# 50 cards; 桜庭 ひかる is printed only in THIRD EXPANSION.
THIRD_DECK = "4 桜庭 ひかる\n4 森原 さとみ\n42 スワティ\n"
# 滝口 洋介 named in its THIRD EXPANSION printing; it is in the basic set too.
THIRD_PRINTING_DECK = "4 滝口 洋介 [third]\n4 森原 さとみ\n42 スワティ\n"


@pytest.fixture
def third_cards(game, sets, cards):
    hikaru = CardFactory(game=game, name="桜庭 ひかる", card_type=CardType.CHARACTER)
    PrintingFactory(card=hikaru, set=sets["third"])
    takiguchi = CardFactory(game=game, name="滝口 洋介", card_type=CardType.CHARACTER)
    PrintingFactory(card=takiguchi, set=sets["base"])
    PrintingFactory(card=takiguchi, set=sets["third"])
    return {"hikaru": hikaru, "takiguchi": takiguchi}


def codes(report):
    return [violation.code for violation in report.violations]


def test_1_2_1_builtin_crossover_dates_third_expansion(crossover):
    rules = services.format_rules(crossover)
    assert rules.legal_sets == frozenset(
        {"second", "first", "setup", "base", "beta", "promo", "third"}
    )
    assert rules.legal_from == {"third": THIRD_DAY}
    assert rules.exempt_card_type == "NAVIGATOR"


def test_1_2_1_third_expansion_card_refused_on_2002_04_01(crossover, third_cards):
    report = services.check_text(THIRD_DECK, crossover, BAN_DAY)
    assert codes(report) == ["SET_NOT_LEGAL"]
    assert report.violations[0].cards == ("桜庭 ひかる",)
    assert report.violations[0].lines == (1,)


def test_1_2_1_third_expansion_card_accepted_from_2002_04_02(crossover, third_cards):
    assert services.check_text(THIRD_DECK, crossover, THIRD_DAY).legal


def test_1_2_1_named_third_printing_both_sides_of_the_date(crossover, third_cards):
    before = services.check_text(THIRD_PRINTING_DECK, crossover, BAN_DAY)
    assert codes(before) == ["PRINTING_NOT_LEGAL"]
    assert before.violations[0].details == {"set": "third", "legal_from": "2002-04-02"}
    assert services.check_text(THIRD_PRINTING_DECK, crossover, THIRD_DAY).legal


def test_1_2_1_set_without_a_format_date_is_legal_from_its_release_date(
    crossover, sets, third_cards
):
    LegalSet.objects.filter(format=crossover, card_set=sets["third"]).update(legal_from=None)
    sets["third"].release_date = dt.date(2002, 7, 1)
    sets["third"].save()
    assert services.format_rules(crossover).legal_from == {"third": dt.date(2002, 7, 1)}
    assert codes(services.check_text(THIRD_DECK, crossover, dt.date(2002, 6, 30))) == [
        "SET_NOT_LEGAL"
    ]
    assert services.check_text(THIRD_DECK, crossover, dt.date(2002, 7, 1)).legal


def test_1_2_1_format_date_wins_over_the_release_date(crossover, sets, third_cards):
    sets["third"].release_date = dt.date(2002, 7, 1)
    sets["third"].save()
    assert services.format_rules(crossover).legal_from == {"third": THIRD_DAY}


def test_set_without_any_date_is_legal_on_any_day(crossover, sets, third_cards):
    LegalSet.objects.filter(format=crossover, card_set=sets["third"]).update(legal_from=None)
    assert services.format_rules(crossover).legal_from == {}
    assert services.check_text(THIRD_DECK, crossover, dt.date(1999, 1, 1)).legal


def test_1_2_1_event_after_the_release_accepts_third_before_refuses(crossover, third_cards):
    organizer = UserFactory(username="organizer")
    player = UserFactory(username="player1")
    before = open_event(organizer, crossover, date=BAN_DAY)
    after = open_event(organizer, crossover, date=THIRD_DAY)
    with pytest.raises(event_services.DeckIllegal) as refused:
        event_services.register_player(before, actor=player, deck_text=THIRD_DECK)
    assert refused.value.report.codes == ["SET_NOT_LEGAL"]
    registration = event_services.register_player(after, actor=player, deck_text=THIRD_DECK)
    assert registration.deck_report["legal"] is True
    assert registration.deck_report["as_of"] == "2002-04-02"


def test_format_rules_query_count_does_not_grow_with_legal_sets(
    crossover, sets, django_assert_num_queries
):
    fmt = Format.objects.get(pk=crossover.pk)
    with django_assert_num_queries(4) as first:  # game, bans, legal sets, copy groups
        services.format_rules(fmt)
    LegalSet.objects.filter(format=crossover).update(legal_from=dt.date(2001, 1, 1))
    fmt = Format.objects.get(pk=crossover.pk)
    with django_assert_num_queries(len(first.captured_queries)):
        services.format_rules(fmt)


# --- the admin: legal sets are inline rows with their date -------------------------------


def test_admin_format_page_lists_legal_sets_with_their_date(admin_client, crossover):
    response = admin_client.get(reverse("admin:decks_format_change", args=[crossover.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'name="legal_set_entries-TOTAL_FORMS" value="7"' in body
    assert 'value="2002-04-02"' in body
    assert 'name="exempt_card_type"' in body


def test_admin_saves_a_legal_set_date_and_rechecks(admin_client, crossover, sets):
    data = format_form(crossover)
    index = next(i for i in range(7) if data[f"legal_set_entries-{i}-card_set"] == sets["third"].pk)
    data[f"legal_set_entries-{index}-legal_from"] = "2002-05-01"
    response = admin_client.post(reverse("admin:decks_format_change", args=[crossover.pk]), data)
    assert response.status_code == 302, response.context["errors"]
    row = LegalSet.objects.get(format=crossover, card_set=sets["third"])
    assert row.legal_from == dt.date(2002, 5, 1)
    crossover.refresh_from_db()
    assert crossover.version == 2


def test_admin_saves_the_navigator_only_exemption(admin_client, formats):
    fmt = formats["asura-system"]
    data = format_form(fmt, exempt_card_type="NAVIGATOR")
    response = admin_client.post(reverse("admin:decks_format_change", args=[fmt.pk]), data)
    assert response.status_code == 302, response.context["errors"]
    fmt.refresh_from_db()
    assert fmt.exempt_card_type == "NAVIGATOR"


def test_admin_format_page_refused_to_a_non_staff_user(client, crossover):
    client.force_login(UserFactory(username="outsider"))
    response = client.get(reverse("admin:decks_format_change", args=[crossover.pk]))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_legal_set_of_another_game_is_refused_by_name(crossover):
    from django.core.exceptions import ValidationError

    from tests.factories import CardSetFactory, GameFactory

    other = CardSetFactory(game=GameFactory(slug="other-game"), code="x1", name="Other set")
    with pytest.raises(ValidationError) as refused:
        LegalSet(format=crossover, card_set=other).full_clean()
    assert refused.value.message_dict == {"card_set": ["The set belongs to another game."]}
