"""The format's admin page: rule citations edited one row per kind of problem, and the
page fitting a laptop (the layout itself is checked in the browser, tests/e2e)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.urls import reverse

from decks.admin_forms import PROBLEM_LABELS, RuleSectionsField, normalise_section
from decks.engine.messages import MESSAGES
from tests.decks.test_admin_recheck import format_form

pytestmark = pytest.mark.django_db


def change_url(fmt):
    return reverse("admin:decks_format_change", args=[fmt.pk])


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("1−2−3", "1−2−3"),
        ("1-2-3", "1−2−3"),
        ("１－２－３", "1−2−3"),
        (" 4ー3ー8 ", "4−3−8"),
        ("12", "12"),
        ("1−2−3.", "1−2−3"),
    ],
)
def test_a_section_number_is_written_the_rulebook_way(typed, stored):
    assert normalise_section(typed) == stored


@pytest.mark.parametrize("typed", ["1-2-x", "rule 4", "4−3−8 (note)", "-", "1--2"])
def test_anything_else_is_not_a_section_number(typed):
    assert normalise_section(typed) is None


def test_every_problem_the_checker_reports_has_a_row():
    assert set(PROBLEM_LABELS) == set(MESSAGES)


def test_the_field_keeps_filled_rows_and_names_the_row_in_error():
    field = RuleSectionsField(required=False)
    assert field.clean({"DECK_TOO_SMALL": "1-2-3", "BANNED": "", "CUSTOM_CODE": "9"}) == {
        "DECK_TOO_SMALL": "1−2−3",
        "CUSTOM_CODE": "9",
    }
    with pytest.raises(ValidationError) as error:
        field.clean({"TOO_MANY_COPIES": "1-2-x", "BANNED": "1−2−1", "DECK_TOO_LARGE": "big"})
    assert error.value.messages == [
        "Too many copies of one card: “1-2-x” is not a section number like 4−3−8.",
        "Deck too large: “big” is not a section number like 4−3−8.",
    ]


def test_the_change_page_shows_one_row_per_problem_with_its_section(admin_client, crossover):
    body = admin_client.get(change_url(crossover)).content.decode()
    assert '<table class="rule-sections"' in body
    assert (
        '<label for="id_rule_sections__TOO_MANY_COPIES">Too many copies of one card</label>' in body
    )
    assert 'name="rule_sections__TOO_MANY_COPIES" id="id_rule_sections__TOO_MANY_COPIES"' in body
    assert 'value="1−2−3"' in body
    # No raw JSON box any more.
    assert '{"DECK_TOO_SMALL"' not in body
    assert "&quot;DECK_TOO_SMALL&quot;" not in body


def test_saving_rows_stores_them_with_the_rulebook_dash(admin_client, crossover):
    data = format_form(crossover)
    data["rule_sections__TOO_MANY_COPIES"] = "1-2-9"
    data["rule_sections__LEADER_COUNT"] = "２－１"
    data["rule_sections__BANNED"] = ""
    response = admin_client.post(change_url(crossover), data)
    assert response.status_code == 302, response.context["errors"]
    crossover.refresh_from_db()
    assert crossover.rule_sections["TOO_MANY_COPIES"] == "1−2−9"
    assert crossover.rule_sections["LEADER_COUNT"] == "2−1"
    assert "BANNED" not in crossover.rule_sections


def test_a_bad_row_is_refused_by_name_and_nothing_is_saved(admin_client, crossover):
    before = dict(crossover.rule_sections)
    data = format_form(crossover, copy_limit=3)
    data["rule_sections__SIDEBOARD_TOO_LARGE"] = "1.2.4"
    response = admin_client.post(change_url(crossover), data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["rule_sections"] == [
        "Sideboard too large: “1.2.4” is not a section number like 4−3−8."
    ]
    crossover.refresh_from_db()
    assert crossover.rule_sections == before
    assert crossover.copy_limit == 4


def test_the_format_page_is_refused_to_outsiders(client, crossover):
    url = change_url(crossover)
    assert client.get(url).status_code == 302  # anonymous: to the admin login
    client.force_login(User.objects.create_user("player", password="pw"))
    response = client.get(url)
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
