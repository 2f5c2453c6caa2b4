"""The calculator page's effect rows: blank rows are left out, a partly filled row is
refused naming its row and field, and the rule links exist only where the section does."""

from urllib.parse import urlsplit

import pytest
from django.http import QueryDict
from django.urls import reverse

from rules.forms import EffectFormSet
from rules.parsing import ParsedDocument, ParsedSection
from rules.services import import_parsed_document
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db

BLANK_ROW = {
    "source": "",
    "source_kind": "",
    "step": "",
    "card_type": "",
    "gender": "",
    "gain_ability": "",
    "ap": "",
    "dp": "",
}


def example_data(client, slug="4-3-8-example-1") -> QueryDict:
    """The worked example's form data, as the example link's redirect gives it."""
    location = client.get(reverse("rules:calculator"), {"example": slug})["Location"]
    return QueryDict(urlsplit(location).query, mutable=True)


def with_blank_rows(data, count: int) -> QueryDict:
    """The data plus ``count`` blank rows, every field sent empty as a browser sends it."""
    if not isinstance(data, QueryDict):
        query = QueryDict(mutable=True)
        for key, value in data.items():
            query[key] = str(value)
        data = query
    data = data.copy()
    total = int(data["form-TOTAL_FORMS"])
    for index in range(total, total + count):
        data.update({f"form-{index}-{name}": value for name, value in BLANK_ROW.items()})
    data["form-TOTAL_FORMS"] = str(total + count)
    return data


def card(**extra) -> dict:
    return {
        "name": "x",
        "card_type": "character",
        "ap": 1,
        "dp": 1,
        "damage": 0,
        "form-INITIAL_FORMS": 0,
        **extra,
    }


def test_worked_example_with_its_spare_row_and_blank_rows_is_worked_out(client):
    data = example_data(client)
    # The example's own spare row (sent by a browser with empty selects) and two more.
    spare = int(data["form-TOTAL_FORMS"]) - 1
    data.update({f"form-{spare}-{name}": value for name, value in BLANK_ROW.items()})
    response = client.get(reverse("rules:calculator"), with_blank_rows(data, 2))
    assert response.status_code == 200
    outcome = response.context["outcome"]
    assert (outcome.final.card_type, outcome.final.gender) == ("character", "Other")
    assert (outcome.final.ap, outcome.final.dp) == (5, 5)
    assert response.context["row_errors"] == []
    assert "This field is required" not in response.content.decode()


def test_example_2_with_blank_rows_gives_4_6(client):
    data = with_blank_rows(example_data(client, "4-3-8-example-2"), 3)
    outcome = client.get(reverse("rules:calculator"), data).context["outcome"]
    assert (outcome.final.gender, outcome.final.ap, outcome.final.dp) == ("Male", 4, 6)


def test_only_blank_rows_work_out_the_printed_card_and_damage(client):
    data = with_blank_rows(
        card(name="萌木玉緒", ap=2, dp=2, damage=3, **{"form-TOTAL_FORMS": 0}), 3
    )
    response = client.get(reverse("rules:calculator"), data)
    outcome = response.context["outcome"]
    assert (outcome.final.ap, outcome.final.dp, outcome.crashed) == (2, 2, True)
    assert outcome.steps[1].entries == ()


def test_a_blank_row_between_filled_rows_keeps_their_order(client):
    data = card(
        **{
            "form-TOTAL_FORMS": 3,
            "form-0-source": "A",
            "form-0-source_kind": "event",
            "form-0-step": "4",
            "form-0-ap": "0",
            "form-0-dp": "5",
            **{f"form-1-{name}": value for name, value in BLANK_ROW.items()},
            "form-2-source": "B",
            "form-2-source_kind": "item",
            "form-2-step": "5",
            "form-2-ap": "2",
            "form-2-dp": "-1",
        }
    )
    outcome = client.get(reverse("rules:calculator"), data).context["outcome"]
    assert (outcome.final.ap, outcome.final.dp) == (2, 4)
    assert [effect.source for step in outcome.steps for effect, _ in step.entries] == ["A", "B"]


def test_a_partly_filled_row_names_its_row_and_the_missing_fields(client):
    data = with_blank_rows(example_data(client), 1)
    last = int(data["form-TOTAL_FORMS"]) - 1
    data[f"form-{last}-ap"] = "3"  # only AP filled in the last row
    response = client.get(reverse("rules:calculator"), data)
    assert response.context["outcome"] is None
    row = last + 1
    assert response.context["row_errors"] == [
        f"Effect row {row}: fill in “Source card” too, or clear the whole row to leave it out.",
        f"Effect row {row}: fill in “Source kind” too, or clear the whole row to leave it out.",
        f"Effect row {row}: fill in “Step” too, or clear the whole row to leave it out.",
    ]
    body = response.content.decode()
    assert "Nothing was worked out: fix these rows (blank rows are left out)." in body
    assert "This field is required" not in body


def test_a_row_saying_nothing_for_its_step_is_named_in_the_summary(client):
    data = card(
        **{
            "form-TOTAL_FORMS": 2,
            **{f"form-0-{name}": value for name, value in BLANK_ROW.items()},
            "form-1-source": "魔界",
            "form-1-source_kind": "event",
            "form-1-step": "5",
        }
    )
    response = client.get(reverse("rules:calculator"), data)
    assert response.context["outcome"] is None
    assert response.context["row_errors"] == [
        "Effect row 2: Fill in what this effect does in its step."
    ]


def test_an_out_of_range_value_names_row_and_field(client):
    data = card(
        **{
            "form-TOTAL_FORMS": 1,
            "form-0-source": "魔界",
            "form-0-source_kind": "event",
            "form-0-step": "5",
            "form-0-ap": "100",
        }
    )
    response = client.get(reverse("rules:calculator"), data)
    assert response.context["row_errors"] == [
        "Effect row 1, “AP”: Ensure this value is less than or equal to 99."
    ]


def test_the_formset_leaves_out_blank_rows():
    data = {"form-TOTAL_FORMS": "2", "form-INITIAL_FORMS": "2"}
    data.update({f"form-0-{name}": value for name, value in BLANK_ROW.items()})
    data.update(
        {
            "form-1-source": "藤島綾香",
            "form-1-source_kind": "character",
            "form-1-step": "6",
        }
    )
    formset = EffectFormSet(data)
    assert formset.is_valid(), formset.errors
    assert [effect.source for effect in formset.effects()] == ["藤島綾香"]
    assert [form.row for form in formset.forms] == [1, 2]


def test_rule_links_only_to_sections_that_exist(client, django_assert_num_queries):
    response = client.get(reverse("rules:calculator"))
    assert response.context["rule_links"] == [
        {"number": "4−3−8", "url": None},
        {"number": "4−3−9", "url": None},
    ]
    body = response.content.decode()
    assert 'href="/rules/crossover/4-3-8/"' not in body
    assert "The CrossOver rulebook is not on this site yet" in body

    game = GameFactory(slug="crossover")
    import_parsed_document(
        game=game,
        parsed=ParsedDocument(
            style="test",
            title="R",
            version="1",
            date=None,
            sections=(ParsedSection("4−3−8", "4-3-8", "順番", "本文。", 1, None),),
        ),
        checksum="small",
    )
    with django_assert_num_queries(1):
        response = client.get(reverse("rules:calculator"))
    assert response.context["rule_links"] == [
        {"number": "4−3−8", "url": "/rules/crossover/4-3-8/"},
        {"number": "4−3−9", "url": None},
    ]
    assert client.get("/rules/crossover/4-3-8/").status_code == 200
