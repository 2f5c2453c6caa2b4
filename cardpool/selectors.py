"""Reads of the card pool shared by the HTML pages and the API."""

from __future__ import annotations

import django_filters
from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from .models import Card, CardSet, CardType, Element, Game, Printing
from .names import search_key


def cards_with_printings() -> QuerySet[Card]:
    """Cards with their game and printings (and each printing's set) loaded up front."""
    printings = Prefetch("printings", queryset=Printing.objects.select_related("set"))
    return Card.objects.select_related("game").prefetch_related(printings)


class CardFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(
        label=_("Name"), method="filter_name", help_text=_("Part of the card name.")
    )
    game = django_filters.ModelChoiceFilter(
        label=_("Game"), queryset=Game.objects.all(), to_field_name="slug"
    )
    card_type = django_filters.ChoiceFilter(label=_("Type"), choices=CardType.choices)
    element = django_filters.ChoiceFilter(label=_("Element"), choices=Element.choices)
    set = django_filters.ModelChoiceFilter(
        label=_("Set"),
        queryset=CardSet.objects.select_related("game"),
        to_field_name="code",
        method="filter_set",
    )

    class Meta:
        model = Card
        fields = ["q", "game", "card_type", "element", "set"]

    def filter_name(self, queryset, name, value):
        key = search_key(value)
        return queryset.filter(search_key__contains=key) if key else queryset

    @extend_schema_field(OpenApiTypes.STR)
    def filter_set(self, queryset, name, value):
        return queryset.filter(printings__set=value).distinct()
