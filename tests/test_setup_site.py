"""setup_site: the built-in games, sets, formats and infractions for a production site,
without demo cards, users or events; safe to run again; organizers' edits kept."""

import datetime as dt
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from cardpool.models import Card, CardSet, Game
from decks.models import BanEntry, Format
from rules.models import Erratum, RulesDocument, Ruling
from tournaments.models import Event, Infraction

pytestmark = pytest.mark.django_db

GAMES = ["asura-system", "cross-universe", "crossover", "monster-collection"]
FORMATS = ["asura-system", "crossover", "monster-collection"]
# The built-in ban list names three cards (the β printings of 1−2−1); a ban entry needs
# its card, so those three names exist, with no text and nothing else.
BANNED = ["水姫", "深見まどか", "狡猾フィーリア"]


def setup_site() -> str:
    out = StringIO()
    call_command("setup_site", stdout=out)
    return out.getvalue()


def counts() -> tuple[int, ...]:
    return tuple(
        model.objects.count() for model in (Game, CardSet, Format, BanEntry, Card, Infraction)
    )


def test_a_fresh_database_gets_games_sets_formats_and_infractions_only():
    output = setup_site()
    assert output.splitlines() == [
        "Games: 4 added, 0 already there "
        "(asura-system, cross-universe, crossover, monster-collection).",
        "Card sets: 8 added.",
        "Formats: 3 added (crossover, monster-collection, asura-system).",
        f"Infractions: {Infraction.objects.count()} added.",
        "The site is set up.",
    ]
    assert sorted(Game.objects.values_list("slug", flat=True)) == GAMES
    assert sorted(Format.objects.values_list("slug", flat=True)) == FORMATS
    assert CardSet.objects.filter(game__slug="crossover").count() == 8
    crossover = Format.objects.get(slug="crossover")
    assert crossover.min_deck_size == 50
    assert crossover.copy_limit == 4
    # The v2.02 list of 2002-04-01 (rule 1−2−1), and THIRD EXPANSION from the day after.
    assert sorted(crossover.legal_set_entries.values_list("card_set__code", "legal_from")) == [
        ("base", None),
        ("beta", None),
        ("first", None),
        ("promo", None),
        ("second", None),
        ("setup", None),
        ("third", dt.date(2002, 4, 2)),
    ]
    assert crossover.exempt_card_type == "NAVIGATOR"
    assert sorted(BanEntry.objects.values_list("card__name", flat=True)) == sorted(BANNED)
    assert Infraction.objects.filter(game__slug="crossover").exists()
    # Nothing of the demo.
    assert sorted(Card.objects.values_list("name", flat=True)) == sorted(BANNED)
    assert get_user_model().objects.count() == 0
    assert Event.objects.count() == 0
    assert RulesDocument.objects.count() == 0
    assert Ruling.objects.count() == 0
    assert Erratum.objects.count() == 0


def test_running_it_twice_adds_nothing():
    setup_site()
    before = counts()
    output = setup_site()
    assert output.splitlines() == [
        "Games: 0 added, 4 already there "
        "(asura-system, cross-universe, crossover, monster-collection).",
        "Card sets: 0 added.",
        "Formats: 0 added.",
        "Infractions: 0 added.",
        "The site is set up.",
    ]
    assert counts() == before


def test_organizers_edits_are_kept_and_deleted_builtins_come_back():
    setup_site()
    Game.objects.filter(slug="crossover").update(name="CrossOver (our name)")
    CardSet.objects.filter(code="third").update(name="3rd", release_order=9)
    Format.objects.filter(slug="crossover").update(copy_limit=3, name="House rules")
    BanEntry.objects.filter(card__name="水姫").delete()
    infraction = Infraction.objects.filter(game__slug="crossover").first()
    Infraction.objects.filter(pk=infraction.pk).update(name_en="Edited")
    CardSet.objects.filter(code="promo").delete()

    setup_site()

    assert Game.objects.get(slug="crossover").name == "CrossOver (our name)"
    third = CardSet.objects.get(code="third")
    assert (third.name, third.release_order) == ("3rd", 9)
    crossover = Format.objects.get(slug="crossover")
    assert (crossover.name, crossover.copy_limit) == ("House rules", 3)
    assert not BanEntry.objects.filter(card__name="水姫").exists()  # the format exists
    assert Infraction.objects.get(pk=infraction.pk).name_en == "Edited"
    assert CardSet.objects.filter(code="promo", game__slug="crossover").count() == 1


def test_load_demo_after_setup_site_adds_the_demo_on_top():
    setup_site()
    out = StringIO()
    call_command("load_demo", "--no-admin", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[1:4] == [
        "Formats: 0 added.",
        "Infractions: 0 added.",
        "Demo rules (not official): document added (9 sections), 5 rulings and 2 errata added.",
    ]
    assert Format.objects.count() == 3
    assert Game.objects.count() == 4
    assert Event.objects.count() == 4


def test_load_demo_prints_the_admin_login_at_the_served_address(tmp_path, monkeypatch):
    from tournaments.management.commands import load_demo

    monkeypatch.setattr(load_demo, "PASSWORD_FILE", tmp_path / "password")
    out = StringIO()
    call_command("load_demo", "--site", "http://0.0.0.0:8101/", stdout=out)
    password = (tmp_path / "password").read_text().strip()
    assert out.getvalue().splitlines()[-1] == (
        f"Admin login: http://0.0.0.0:8101/admin/  user: admin  password: {password}"
        "  (stored in .demo-admin-password)"
    )
    assert get_user_model().objects.get(username="admin").check_password(password)
