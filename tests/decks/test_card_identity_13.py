"""One card per name in the database (rules 1−2−1, 4−2−6): the importer, the merge of
cards stored under two written forms of one name, and the admin that shows the merges."""

import datetime as dt

import pytest
from django.apps import apps

from cardpool.merging import merge_same_name_cards
from cardpool.models import Card, CardMerge, CardType, Printing
from cardpool.names import search_key
from cardpool.services import import_cards
from decks.models import BanEntry, CopyGroup, Deck, DeckEntry
from decks.services import check_text
from rules.models import Erratum, Ruling
from tests.factories import CardFactory, PrintingFactory

from .conftest import DAY_BEFORE_BAN

HEADER = "name,set,card_type,number,rarity,unlimited\n"


def csv(*rows: str) -> bytes:
    return (HEADER + "".join(f"{row}\n" for row in rows)).encode()


def stored_as(game, name: str) -> Card:
    """A card saved under the name key older versions computed (brackets kept), as a
    database from before the identity change holds it."""
    card = Card(game=game, name=name, name_key=name.replace(" ", ""), search_key=search_key(name))
    card.card_type = CardType.CHARACTER
    Card.objects.bulk_create([card])
    return Card.objects.get(game=game, name=name)


def test_importing_a_bracketed_name_adds_to_the_stored_card_1_2_1(game, cards, sets):
    summary = import_cards(csv("〔森原さとみ〕,first,CHARACTER,F-01,コモン,"), game=game)
    assert Card.objects.filter(game=game).count() == 3
    assert (summary.cards_created, summary.printings_created) == (0, 1)
    satomi = Card.objects.get(pk=cards["satomi"].pk)
    assert satomi.name == "森原 さとみ"
    assert sorted(p.set.code for p in satomi.printings.all()) == ["base", "first"]
    assert [note.as_dict() for note in summary.notes] == [
        {
            "row": 2,
            "field": "name",
            "reason": "“〔森原さとみ〕” is the card “森原 さとみ”: brackets, spaces and character"
            " width are not part of a card name (rules 1−2−1, 4−2−6), so this row was read as"
            " that card.",
        }
    ]


def test_four_plus_one_bracketed_copy_is_refused_after_the_import_1_2_3(game, crossover, sets):
    import_cards(csv("〔森原さとみ〕,first,CHARACTER,F-01,コモン,"), game=game)
    report = check_text(
        "4 森原 さとみ\n42 スワティ\n4 狡猾フィーリア\nサイドボード\n1 〔森原さとみ〕\n",
        crossover,
        DAY_BEFORE_BAN,
    )
    assert report.codes == ["TOO_MANY_COPIES"]
    assert report.violations[0].details == {"count": 5, "limit": 4}


def test_one_file_with_two_forms_of_one_name_makes_one_card_named_without_brackets(game, sets):
    summary = import_cards(
        csv("『清姫』,third,CHARACTER,T-01,,", "清 姫,first,CHARACTER,F-09,,"), game=game
    )
    assert summary.cards_created == 1
    assert list(Card.objects.filter(game=game).values_list("name", "name_key")) == [
        ("清 姫", "清姫")
    ]
    assert [(note.row, note.field) for note in summary.notes] == [(2, "name")]


def test_the_same_printing_under_two_forms_is_refused_naming_both_rows(game, sets):
    from cardpool.importing import ImportRejected

    with pytest.raises(ImportRejected) as rejected:
        import_cards(
            csv("森原 さとみ,first,CHARACTER,F-01,,", "〔森原さとみ〕,first,CHARACTER,F-01,,"),
            game=game,
        )
    assert [(e.row, e.reason) for e in rejected.value.errors] == [
        (
            3,
            "the same card, set and number as row 2: “〔森原さとみ〕” and “森原 さとみ” are one"
            " card name (rules 1−2−1, 4−2−6).",
        )
    ]
    assert not Card.objects.filter(game=game).exists()


def test_unlimited_on_a_character_is_imported_with_a_warning_1_2_3(game, sets):
    summary = import_cards(csv("鬼の子,first,CHARACTER,F-02,コモン,true"), game=game)
    assert Card.objects.get(name="鬼の子").unlimited is True
    assert [(n.row, n.field) for n in summary.notes] == [(2, "unlimited")]
    assert "rule 1−2−3" in summary.notes[0].reason
    assert "Character" in summary.notes[0].reason


def test_unlimited_on_a_rare_navigator_is_imported_with_a_warning_1_2_3(game, sets):
    summary = import_cards(csv("光の案内人,first,NAVIGATOR,F-03,レア,true"), game=game)
    assert [(n.row, n.field) for n in summary.notes] == [(2, "unlimited")]
    assert "レア" in summary.notes[0].reason


def test_unlimited_on_a_common_navigator_needs_no_warning(game, sets):
    summary = import_cards(csv("風の案内人,first,NAVIGATOR,F-04,コモン,true"), game=game)
    assert summary.notes == []
    assert summary.as_dict()["notes"] == []


def test_merge_moves_everything_to_the_card_written_without_brackets(
    game, sets, cards, crossover, django_user_model
):
    bare = cards["satomi"]  # 森原 さとみ, base 001 with no text, element 火, no AP
    old = stored_as(game, "〔森原さとみ〕")
    Card.objects.filter(pk=old.pk).update(ap=3, element="水")
    PrintingFactory(card=old, set=sets["base"], number="001", text="printed text")
    PrintingFactory(card=old, set=sets["first"], number="F-01")
    ruling = Ruling.objects.create(game=game, question="q", answer="a")
    ruling.cards.add(old)
    Erratum.objects.create(card=old, date=dt.date(2002, 1, 1), new_text="new")
    BanEntry.objects.create(format=crossover, card=old)
    group = CopyGroup.objects.create(format=crossover, name="group")
    group.cards.add(old)
    owner = django_user_model.objects.create_user("owner")
    deck = Deck.objects.create(owner=owner, format=crossover, name="d")
    DeckEntry.objects.create(deck=deck, card=old, count=1)

    merged = merge_same_name_cards(apps.get_model)

    assert [(m["kept_id"], m["merged_id"]) for m in merged] == [(bare.pk, old.pk)]
    assert not Card.objects.filter(pk=old.pk).exists()
    bare.refresh_from_db()
    assert (bare.name, bare.name_key) == ("森原 さとみ", "森原さとみ")
    assert (bare.element, bare.ap) == ("火", 3)
    printings = Printing.objects.filter(card=bare)
    assert sorted(printings.values_list("set__code", "number", "text")) == [
        ("base", "001", "printed text"),
        ("first", "F-01", ""),
    ]
    assert list(ruling.cards.all()) == [bare]
    assert list(Erratum.objects.values_list("card_id", flat=True)) == [bare.pk]
    assert list(BanEntry.objects.filter(card=bare).values_list("format__slug", flat=True)) == [
        "crossover"
    ]
    assert list(group.cards.all()) == [bare]
    assert list(DeckEntry.objects.values_list("card_id", flat=True)) == [bare.pk]
    record = CardMerge.objects.get()
    assert (record.card_id, record.merged_name, record.merged_card_id) == (
        bare.pk,
        "〔森原さとみ〕",
        old.pk,
    )
    assert record.moved == {
        "printings": 1,
        "duplicate_printings_dropped": 1,
        "errata": 1,
        "rulings": 1,
        "copy_groups": 1,
        "deck_lines": 1,
        "ban_entries": 1,
        "filled_fields": ["ap"],
        "differing_values_dropped": {"element": "水"},
    }
    # Running it again finds nothing to merge.
    assert merge_same_name_cards(apps.get_model) == []


def test_merge_stores_the_new_key_on_unmerged_cards(game):
    card = stored_as(game, "『清姫』")
    assert merge_same_name_cards(apps.get_model) == []
    card.refresh_from_db()
    assert (card.name, card.name_key, card.search_key) == ("清姫", "清姫", "清姫")


def test_admin_lists_merges_and_refuses_outsiders(admin_client, client, django_user_model, game):
    kept = CardFactory(game=game, name="清姫")
    stored_as(game, "『清姫』")
    merge_same_name_cards(apps.get_model)
    page = admin_client.get("/admin/cardpool/cardmerge/")
    assert page.status_code == 200
    assert "『清姫』" in page.content.decode()
    change = admin_client.get(f"/admin/cardpool/card/{kept.pk}/change/")
    assert "『清姫』" in change.content.decode()
    staff = django_user_model.objects.create_user("staffer", is_staff=True)
    client.force_login(staff)
    assert client.get("/admin/cardpool/cardmerge/").status_code == 403


def card_form(card: Card, **changes) -> dict:
    data = {
        "game": card.game_id,
        "name": card.name,
        "card_type": card.card_type,
        "element": card.element,
        "cost": "",
        "gender": "",
        "ap": "",
        "dp": "",
        "deck_size_min": "",
        "deck_size_max": "",
        "notes": "",
        "printings-TOTAL_FORMS": "0",
        "printings-INITIAL_FORMS": "0",
        "merges-TOTAL_FORMS": "0",
        "merges-INITIAL_FORMS": "0",
    }
    if card.unlimited:
        data["unlimited"] = "on"
    data.update(changes)
    return data


def test_admin_refuses_renaming_a_card_to_another_form_of_a_stored_name(admin_client, cards):
    feeria = cards["feeria"]
    response = admin_client.post(
        f"/admin/cardpool/card/{feeria.pk}/change/", card_form(feeria, name="〔森原さとみ〕")
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["name"] == [
        "“〔森原さとみ〕” is the same card name as “森原 さとみ”: brackets, spaces and character"
        " width are not part of a name (rules 1−2−1, 4−2−6). Edit that card instead."
    ]
    feeria.refresh_from_db()
    assert feeria.name == "狡猾フィーリア"


def test_admin_warns_when_any_number_is_set_on_a_character_1_2_3(admin_client, cards):
    satomi = cards["satomi"]
    response = admin_client.post(
        f"/admin/cardpool/card/{satomi.pk}/change/", card_form(satomi, unlimited="on"), follow=True
    )
    assert response.status_code == 200
    satomi.refresh_from_db()
    assert satomi.unlimited is True
    warnings = [str(m) for m in response.context["messages"] if m.level_tag == "warning"]
    assert warnings == [
        "“any number of copies” is set on a card of type Character; rule 1−2−3 allows it only"
        " for common navigators."
    ]


def test_import_command_prints_notes(game, cards, sets, tmp_path):
    from io import StringIO

    from django.core.management import call_command

    path = tmp_path / "cards.csv"
    path.write_bytes(csv("〔森原さとみ〕,first,CHARACTER,F-01,コモン,"))
    out = StringIO()
    call_command("import_cards", str(path), "--game", "crossover", stdout=out)
    assert out.getvalue().splitlines()[0] == (
        "cards.csv: note: row 2, field name: “〔森原さとみ〕” is the card “森原 さとみ”: brackets,"
        " spaces and character width are not part of a card name (rules 1−2−1, 4−2−6), so this"
        " row was read as that card."
    )


def test_a_new_card_written_only_in_brackets_is_stored_as_printed(game, sets):
    summary = import_cards(csv("『清姫』,third,CHARACTER,T-01,,"), game=game)
    assert list(Card.objects.filter(game=game).values_list("name", "name_key")) == [
        ("清姫", "清姫")
    ]
    assert [(note.row, note.field) for note in summary.notes] == [(2, "name")]


def test_saving_a_card_stores_its_name_without_wrapping_brackets(game):
    card = CardFactory(game=game, name="〔 森原 さとみ 〕")
    assert (card.name, card.name_key) == ("森原 さとみ", "森原さとみ")


def test_unlimited_warning_counts_the_stored_printings_rarity_1_2_3(game, sets):
    import_cards(csv("光の案内人,first,NAVIGATOR,F-03,レア,"), game=game)
    summary = import_cards(csv("光の案内人,second,NAVIGATOR,S-03,,true"), game=game)
    assert [(n.row, n.field) for n in summary.notes] == [(2, "unlimited")]
    assert "レア" in summary.notes[0].reason


def test_identity_migration_gives_formats_of_merged_deck_lines_a_new_version(
    game, cards, crossover, django_user_model
):
    import importlib

    migration = importlib.import_module("cardpool.migrations.0003_card_identity")
    old = stored_as(game, "〔森原さとみ〕")
    owner = django_user_model.objects.create_user("owner")
    deck = Deck.objects.create(owner=owner, format=crossover, name="d")
    DeckEntry.objects.create(deck=deck, card=old, count=1)
    version = crossover.version
    migration.merge_cards(apps, None)
    crossover.refresh_from_db()
    assert crossover.version == version + 1
    assert list(DeckEntry.objects.values_list("card_id", flat=True)) == [cards["satomi"].pk]


PROMO_HEADER = "name,set,card_type,number,text,release_date\n"


def test_a_dated_promotional_printing_has_the_text_in_force_1_2_1(game, sets):
    # Rule 1−2−1: the newest set or promotional card's text. A promo given out on its own
    # day carries that day; the sets here have no dates, so the dated promo is newest.
    data = (
        PROMO_HEADER
        + "清姫,first,CHARACTER,F-09,old text,\n"
        + "清姫,promo,CHARACTER,P-03,promo text,2002-03-15\n"
    ).encode()
    import_cards(data, game=game)
    card = Card.objects.prefetch_related("printings__set").get(game=game, name="清姫")
    assert card.newest_printing().set.code == "promo"
    assert card.current_text == "promo text"
    assert Printing.objects.get(set__code="promo").release_date.isoformat() == "2002-03-15"


def test_a_release_date_that_is_not_a_date_is_refused_naming_row_and_field(game, sets):
    from cardpool.importing import ImportRejected

    data = (PROMO_HEADER + "清姫,promo,CHARACTER,P-03,,15/03/2002\n").encode()
    with pytest.raises(ImportRejected) as rejected:
        import_cards(data, game=game)
    assert [(e.row, e.field, e.reason) for e in rejected.value.errors] == [
        (2, "release_date", "'15/03/2002' is not a date; write it as YYYY-MM-DD.")
    ]
    assert not Card.objects.filter(game=game).exists()
