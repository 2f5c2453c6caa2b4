import factory

from cardpool.models import Card, CardSet, CardType, Game, Printing


class GameFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Game
        django_get_or_create = ("slug",)

    slug = "crossover"
    name = "CrossOver The F&C TCG"


class CardSetFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CardSet

    game = factory.SubFactory(GameFactory)
    code = factory.Sequence(lambda n: f"set{n}")
    name = factory.Sequence(lambda n: f"Set {n}")
    release_order = factory.Sequence(lambda n: n + 1)


class CardFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Card

    game = factory.SubFactory(GameFactory)
    name = factory.Sequence(lambda n: f"カード{n}")
    card_type = CardType.CHARACTER


class PrintingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Printing

    card = factory.SubFactory(CardFactory)
    set = factory.SubFactory(CardSetFactory, game=factory.SelfAttribute("..card.game"))
    number = ""
    text = ""
