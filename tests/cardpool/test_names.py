"""Card-name identity (rulebook 4−2−6) and search keys."""

import pytest
from django.db import IntegrityError, transaction

from cardpool.models import Card
from cardpool.names import name_key, search_key
from tests.factories import CardFactory, GameFactory

# The rulebook writes one card both as 〔山名春恵〕 and as 『山名 春恵』; the brackets are
# quotation marks, the names are the bare text between them.
YAMANA_SPELLINGS = [
    "山名春恵",
    "山名 春恵",
    "山名\u3000春恵",  # full-width (ideographic) space
    "山名\t春恵",
    " 山名春恵\n",
    "山名 \u3000\t春恵",
    "山 名 春 恵",
]


@pytest.mark.parametrize("spelling", YAMANA_SPELLINGS)
def test_name_key_rulebook_spellings_are_one_name(spelling):
    assert name_key(spelling) == "山名春恵"


@pytest.mark.parametrize("spelling", YAMANA_SPELLINGS)
def test_search_key_rulebook_spellings_are_one_name(spelling):
    assert search_key(spelling) == "山名春恵"


def test_name_key_different_spellings_of_one_reading_differ():
    # Rule 4−2−6: 〔鳴瀬真奈美〕 and 〔ナルセマナミ〕 are two different names.
    assert name_key("鳴瀬真奈美") == "鳴瀬真奈美"
    assert name_key("ナルセマナミ") == "ナルセマナミ"
    assert name_key("鳴瀬真奈美") != name_key("ナルセマナミ")


def test_search_key_different_spellings_of_one_reading_differ():
    assert search_key("鳴瀬真奈美") != search_key("ナルセマナミ")


def test_name_key_does_not_fold_hiragana_to_katakana():
    assert name_key("なるせまなみ") == "なるせまなみ"
    assert name_key("なるせまなみ") != name_key("ナルセマナミ")
    assert search_key("なるせまなみ") != search_key("ナルセマナミ")


def test_name_key_folds_fullwidth_latin_and_digits():
    assert name_key("ＡＢＣ１２３") == "ABC123"
    assert name_key("Ｆ＆Ｃ") == "F&C"


def test_name_key_folds_halfwidth_katakana():
    assert name_key("ｽﾜﾃｨ") == "スワティ"
    assert name_key("ﾅﾙｾ ﾏﾅﾐ") == "ナルセマナミ"


def test_search_key_halfwidth_katakana_equals_fullwidth():
    assert search_key("ｽﾜﾃｨ") == "スワティ"
    assert search_key("ｽﾜﾃｨ") == search_key("スワティ")


def test_search_key_folds_fullwidth_latin_and_digits():
    assert search_key("ＳＥＣＯＮＤ　ＥＸＰＡＮＳＩＯＮ") == "secondexpansion"
    assert search_key("３rd") == "3rd"


def test_search_key_casefolds():
    assert search_key("Swati") == "swati"
    assert search_key("SWATI") == "swati"
    assert search_key("ＳＷＡＴＩ") == "swati"
    assert search_key("Straße") == "strasse"
    assert search_key("βEDITION") == "βedition"


def test_name_key_keeps_case():
    assert name_key("Swati") == "Swati"
    assert name_key("SWATI") == "SWATI"
    assert name_key("Swati") != name_key("swati")
    assert name_key("ＳＷＡＴＩ") == "SWATI"


def test_name_key_whitespace_only_is_empty():
    assert name_key(" \u3000\t\n") == ""
    assert search_key(" \u3000\t\n") == ""


def test_name_key_keeps_punctuation_and_symbols():
    assert name_key("ダミー・キャラクター") == "ダミー・キャラクター"
    assert name_key("火の玉!") == "火の玉!"
    assert name_key("火の玉！") == "火の玉!"


@pytest.mark.django_db
def test_card_save_sets_name_key_and_search_key():
    card = Card.objects.create(game=GameFactory(), name="Ｓｗａｔｉ　ｽﾜﾃｨ")
    card.refresh_from_db()
    assert card.name == "Ｓｗａｔｉ　ｽﾜﾃｨ"
    assert card.name_key == "Swatiスワティ"
    assert card.search_key == "swatiスワティ"


@pytest.mark.django_db
def test_card_save_update_fields_name_updates_keys():
    card = CardFactory(name="山名 春恵")
    card.name = "鳴瀬 真奈美"
    card.save(update_fields=["name"])
    card.refresh_from_db()
    assert card.name == "鳴瀬 真奈美"
    assert card.name_key == "鳴瀬真奈美"
    assert card.search_key == "鳴瀬真奈美"
    stored = Card.objects.values("name", "name_key", "search_key").get(pk=card.pk)
    assert stored == {"name": "鳴瀬 真奈美", "name_key": "鳴瀬真奈美", "search_key": "鳴瀬真奈美"}


@pytest.mark.django_db
def test_card_save_update_fields_name_with_case_updates_search_key():
    card = CardFactory(name="swati")
    card.name = "ＳＷＡＴＩ Ｘ"
    card.save(update_fields=("name",))
    stored = Card.objects.values("name_key", "search_key").get(pk=card.pk)
    assert stored == {"name_key": "SWATIX", "search_key": "swatix"}


@pytest.mark.django_db
def test_card_save_update_fields_without_name_keeps_other_columns():
    card = CardFactory(name="山名春恵", notes="")
    card.notes = "changed"
    card.save(update_fields=["notes"])
    stored = Card.objects.values("name", "name_key", "search_key", "notes").get(pk=card.pk)
    assert stored == {
        "name": "山名春恵",
        "name_key": "山名春恵",
        "search_key": "山名春恵",
        "notes": "changed",
    }


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["山名 春恵", "山名\u3000春恵", "山名\t春恵", " 山名春恵 "])
def test_card_whitespace_variant_in_same_game_raises_integrity_error(variant):
    game = GameFactory()
    Card.objects.create(game=game, name="山名春恵")
    with pytest.raises(IntegrityError), transaction.atomic():
        Card.objects.create(game=game, name=variant)
    assert list(Card.objects.values_list("name", flat=True)) == ["山名春恵"]


@pytest.mark.django_db
def test_card_halfwidth_variant_in_same_game_raises_integrity_error():
    game = GameFactory()
    Card.objects.create(game=game, name="スワティ")
    with pytest.raises(IntegrityError), transaction.atomic():
        Card.objects.create(game=game, name="ｽﾜﾃｨ")
    assert Card.objects.count() == 1


@pytest.mark.django_db
def test_card_rename_to_whitespace_variant_raises_integrity_error():
    game = GameFactory()
    Card.objects.create(game=game, name="山名春恵")
    other = Card.objects.create(game=game, name="鳴瀬真奈美")
    other.name = "山名\u3000春恵"
    with pytest.raises(IntegrityError), transaction.atomic():
        other.save(update_fields=["name"])
    assert Card.objects.get(pk=other.pk).name_key == "鳴瀬真奈美"


@pytest.mark.django_db
def test_card_same_name_in_other_game_is_allowed():
    first = Card.objects.create(game=GameFactory(), name="山名春恵")
    second = Card.objects.create(game=GameFactory(slug="other", name="Other"), name="山名 春恵")
    assert first.name_key == second.name_key == "山名春恵"
    assert Card.objects.count() == 2


@pytest.mark.django_db
def test_card_different_spelling_of_reading_is_a_separate_card():
    game = GameFactory()
    Card.objects.create(game=game, name="鳴瀬真奈美")
    Card.objects.create(game=game, name="ナルセマナミ")
    assert sorted(Card.objects.values_list("name_key", flat=True)) == ["ナルセマナミ", "鳴瀬真奈美"]


@pytest.mark.django_db
def test_card_case_variant_is_a_separate_card():
    game = GameFactory()
    Card.objects.create(game=game, name="Swati")
    Card.objects.create(game=game, name="SWATI")
    assert sorted(Card.objects.values_list("name_key", "search_key")) == [
        ("SWATI", "swati"),
        ("Swati", "swati"),
    ]
