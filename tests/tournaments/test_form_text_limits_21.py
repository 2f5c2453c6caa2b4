"""Texts typed on the pages stay within the limits the API and the event-file import
enforce (#21): a page accepted a reason or note of any length, which the site then
exported and its own import refused. Each field refuses one character more than the
API's limit, naming the field."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tournaments.api.limits import NOTE_CHARS, REASON_CHARS
from tournaments.forms import DisputeForm, LateEntryForm, PenaltyForm, ReasonForm
from tournaments.forms_deckcheck import DeckCheckPasteForm
from tournaments.forms_event import EventSettingsForm


@pytest.mark.parametrize(
    ("form_class", "field", "limit"),
    [
        (DisputeForm, "reason", REASON_CHARS),
        (ReasonForm, "reason", REASON_CHARS),
        (LateEntryForm, "reason", REASON_CHARS),
        (PenaltyForm, "note", NOTE_CHARS),
        (DeckCheckPasteForm, "note", NOTE_CHARS),
        (EventSettingsForm, "reason", REASON_CHARS),
    ],
)
def test_page_text_fields_have_the_apis_limit(form_class, field, limit):
    declared = form_class.base_fields[field]
    assert declared.max_length == limit
    assert declared.clean("x" * limit) == "x" * limit
    with pytest.raises(ValidationError) as refused:
        declared.clean("x" * (limit + 1))
    assert [error.code for error in refused.value.error_list] == ["max_length"]
