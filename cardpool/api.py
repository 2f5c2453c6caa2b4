from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.permissions import AllowAny

from rules.selectors import cards_with_rules, current_card_text

from .models import COST_SYMBOLS, Card, Printing
from .selectors import CardFilter


class PrintingSerializer(serializers.ModelSerializer):
    set = serializers.SlugRelatedField(slug_field="code", read_only=True)
    set_name = serializers.CharField(source="set.name", read_only=True)
    is_beta = serializers.BooleanField(source="set.is_beta", read_only=True)

    class Meta:
        model = Printing
        fields = ["set", "set_name", "is_beta", "number", "rarity", "text"]


@extend_schema_field({"type": "string", "pattern": f"^[{COST_SYMBOLS}]*$", "maxLength": 20})
class CostField(serializers.CharField):
    """A card's cost in the schema: one string that may be empty (the model field's
    ``blank`` would otherwise be a second, overlapping ``oneOf`` branch for "")."""


class CardSerializer(serializers.ModelSerializer):
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    current_text = serializers.SerializerMethodField(
        help_text="The text the card plays with: its latest erratum, else its newest printing's "
        "(rule 1−2−1)."
    )
    printings = PrintingSerializer(many=True, read_only=True)
    cost = CostField(
        read_only=True,
        help_text="Element symbols, e.g. 火火 or 全全全; empty when unknown.",
    )

    class Meta:
        model = Card
        fields = [
            "id",
            "game",
            "name",
            "card_type",
            "element",
            "cost",
            "gender",
            "ap",
            "dp",
            "unlimited",
            "current_text",
            "printings",
        ]

    def get_current_text(self, card) -> str:
        return current_card_text(card)


@extend_schema_view(
    list=extend_schema(summary="List cards", description="Search by name, filter by type…"),
    retrieve=extend_schema(summary="One card with its printings"),
)
class CardViewSet(viewsets.ReadOnlyModelViewSet):
    """The card pool: public and read-only."""

    permission_classes = [AllowAny]
    serializer_class = CardSerializer
    filterset_class = CardFilter
    lookup_value_regex = "[0-9]+"
    queryset = cards_with_rules()
