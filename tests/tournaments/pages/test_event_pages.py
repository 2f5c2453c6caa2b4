"""The organizer's event pages: create, edit settings, life cycle, staff team, audit log.
Every POST changes state only through the services (checked by its audit entry); every
refusal leaves the event and the audit log as they were."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import (
    UserFactory,
    new_event,
    open_event,
    play_round,
    register_all,
)
from tournaments import services
from tournaments.models import AuditEntry, Event, EventStaff, EventState, StaffRole
from tournaments.services.events import SETTINGS

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return response.content.decode()


def local(*args) -> dt.datetime:
    return timezone.make_aware(dt.datetime(*args))


def create_data(fmt, **overrides):
    data = {
        "name": "Summer Cup",
        "format": str(fmt.pk),
        "date": "2026-07-04",
        "capacity": "32",
        "registration_deadline": "2026-07-03T18:00",
        "decklist_deadline": "2026-07-04T09:30",
        "swiss_rounds": "",
        "round_minutes": "40",
        "tiebreak_profile": "pokemon",
        "top_cut_size": "8",
        "swiss_timeout_policy": "more_hp_wins",
        "top_cut_timeout_policy": "draw",
        "decklists_public_from": "2026-07-04T20:00",
        "allow_reentry": "on",
        "late_entry_policy": "nothing",
    }
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not None}


def settings_data(event, **overrides):
    """What a browser sends for the settings page as loaded: every editable field with its
    current value (disabled fields are not sent), changed by ``overrides``."""
    from tournaments.services.events import EDITABLE_IN

    data = {}
    for name in SETTINGS:
        if event.state not in EDITABLE_IN[name]:
            continue
        value = getattr(event, name)
        if name == "format":
            value = str(value.pk)
        elif isinstance(value, dt.datetime):
            value = timezone.localtime(value).strftime("%Y-%m-%dT%H:%M")
        elif isinstance(value, dt.date):
            value = value.isoformat()
        elif isinstance(value, bool):
            if not value:
                continue
            value = "on"
        elif value is None:
            value = ""
        data[name] = str(value)
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not None}


def urls(event):
    return {
        "edit": reverse("tournaments:event_edit", args=[event.pk]),
        "team": reverse("tournaments:staff_team", args=[event.pk]),
        "audit": reverse("tournaments:audit_log", args=[event.pk]),
        "dashboard": reverse("tournaments:dashboard", args=[event.pk]),
    }


def transition_url(event, action):
    return reverse("tournaments:event_transition", args=[event.pk, action])


# --- create --------------------------------------------------------------------------


def test_create_form_shows_every_setting_and_the_swiss_suggestion(client_for, organizer, crossover):
    response = client_for(organizer).get(reverse("tournaments:event_create"))
    assert response.status_code == 200
    body = text_of(response)
    for label in (
        "Name",
        "Format",
        "Date",
        "Capacity",
        "Registration deadline",
        "Decklist deadline",
        "Swiss rounds",
        "Round length (minutes)",
        "Tiebreakers",
        "Top cut",
        "Time-out in Swiss rounds",
        "Time-out in the top cut",
        "Decklists public from",
        "Dropped players may re-enter",
        "Missed rounds of late entries",
    ):
        assert f">{label}:</label>" in body, label
    # a new event starts on CrossOver's format, not the alphabetically first game's
    assert crossover.slug == "crossover"
    assert (
        f'<optgroup label="{escape(crossover.game.name)}">\n  '
        f'<option value="{crossover.pk}" selected>{escape(crossover.name)}</option>'
    ) in body
    start = body.index('name="format"')
    select = body[start : body.index("</select>", start)]
    assert select.count(" selected>") == 1
    assert "3 rounds for up to 8 players, 4 rounds for up to 16 players" in body
    assert '<option value="8">Top 8</option>' in body
    assert '<option value="0" selected>No top cut</option>' in body
    assert 'type="datetime-local" name="registration_deadline"' in body
    assert ">Create the event</button>" in body


def test_create_event_with_every_setting(client_for, organizer, crossover):
    client = client_for(organizer)
    response = client.post(reverse("tournaments:event_create"), create_data(crossover))
    event = Event.objects.get(name="Summer Cup")
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:dashboard", args=[event.pk])
    assert event.state == EventState.DRAFT
    assert event.organizer == organizer
    assert event.format == crossover
    assert event.date == dt.date(2026, 7, 4)
    assert event.capacity == 32
    assert event.registration_deadline == local(2026, 7, 3, 18, 0)
    assert event.decklist_deadline == local(2026, 7, 4, 9, 30)
    assert event.swiss_rounds is None
    assert event.round_minutes == 40
    assert event.tiebreak_profile == "pokemon"
    assert event.top_cut_size == 8
    assert event.swiss_timeout_policy == "more_hp_wins"
    assert event.top_cut_timeout_policy == "draw"
    assert event.decklists_public_from == local(2026, 7, 4, 20, 0)
    assert event.allow_reentry is True
    assert event.late_entry_policy == "nothing"
    entries = list(AuditEntry.objects.filter(event=event))
    assert [(e.action, e.actor) for e in entries] == [("event.created", organizer)]
    assert entries[0].after["capacity"] == 32
    assert entries[0].after["top_cut_size"] == 8
    assert entries[0].after["format"] == crossover.pk
    dashboard = text_of(client.get(response["Location"]))
    assert "Event created as a draft: only its staff can see it." in dashboard
    assert ">Open registration</button>" in dashboard


def test_create_event_times_are_read_in_the_current_time_zone(client_for, organizer, crossover):
    client = client_for(organizer)
    client.post(reverse("tournaments:event_create"), create_data(crossover, swiss_rounds="6"))
    event = Event.objects.get(name="Summer Cup")
    # Asia/Tokyo (settings.TIME_ZONE): 18:00 there is 09:00 UTC
    assert event.registration_deadline == dt.datetime(2026, 7, 3, 9, 0, tzinfo=dt.UTC)
    assert event.swiss_rounds == 6


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"capacity": "1"}, "capacity", "The capacity must be at least 2 players."),
        ({"capacity": "4", "top_cut_size": "8"}, "top_cut_size", "larger than the capacity"),
        ({"round_minutes": "0"}, "round_minutes", "A round lasts at least 1 minute."),
        ({"swiss_rounds": "0"}, "swiss_rounds", "At least 1 Swiss round, or leave it empty."),
        ({"capacity": "many"}, "capacity", "Enter a whole number."),
        ({"top_cut_size": "6"}, "top_cut_size", "Select a valid choice."),
        # Tokyo's offset in 1078 had seconds (+09:18:59): no time the API could write.
        (
            {"registration_deadline": "1078-07-03T18:00"},
            "registration_deadline",
            "Give a time from the year 2000 to 8999.",
        ),
        (
            {"decklist_deadline": "9999-12-31T23:00"},
            "decklist_deadline",
            "Give a time from the year 2000 to 8999.",
        ),
    ],
)
def test_create_event_with_bad_input_shows_the_field_error_and_creates_nothing(
    client_for, organizer, crossover, overrides, field, message
):
    response = client_for(organizer).post(
        reverse("tournaments:event_create"), create_data(crossover, **overrides)
    )
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == [field]
    assert message in form.errors[field][0]
    assert message in text_of(response)
    assert not Event.objects.exists()
    assert not AuditEntry.objects.exists()


def test_create_event_requires_login(client_for, crossover):
    url = reverse("tournaments:event_create")
    for response in (client_for().get(url), client_for().post(url, create_data(crossover))):
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/login/?next={url}"
    assert not Event.objects.exists()


def test_event_list_links_create_for_signed_in_users(client_for, outsider):
    link = f'<a href="{reverse("tournaments:event_create")}">Create an event</a>'
    assert link in text_of(client_for(outsider).get(reverse("tournaments:event_list")))
    assert link not in text_of(client_for().get(reverse("tournaments:event_list")))


# --- edit ----------------------------------------------------------------------------


def test_edit_form_is_prefilled_and_locks_what_cannot_change(client_for, staffed_event, organizer):
    response = client_for(organizer).get(urls(staffed_event)["edit"])
    assert response.status_code == 200
    body = text_of(response)
    assert 'name="name" value="Spring Open"' in body
    assert 'name="capacity" value="16"' in body
    # registration is open: format and date are locked
    assert '<input type="date" name="date" value="2026-05-16" required disabled' in body
    assert body.count("Locked: cannot change while the event is “Registration open”.") == 2
    assert ">Save the settings</button>" in body


def test_edit_passes_only_changed_settings_with_the_reason(client_for, staffed_event, organizer):
    event = staffed_event
    response = client_for(organizer).post(
        urls(event)["edit"],
        settings_data(event, capacity="20", round_minutes="45", reason=" More tables "),
    )
    assert response.status_code == 302
    assert response["Location"] == urls(event)["dashboard"]
    event.refresh_from_db()
    assert (event.capacity, event.round_minutes) == (20, 45)
    entry = AuditEntry.objects.get(event=event, action="event.updated")
    assert entry.actor == organizer
    assert entry.before == {"capacity": 16, "round_minutes": 50}
    assert entry.after == {"capacity": 20, "round_minutes": 45}
    assert entry.reason == "More tables"


def test_edit_by_co_organizer_sets_and_clears_times(client_for, staffed_event, co_organizer):
    event = staffed_event
    client_for(co_organizer).post(
        urls(event)["edit"], settings_data(event, decklist_deadline="2026-05-16T09:00")
    )
    event.refresh_from_db()
    assert event.decklist_deadline == local(2026, 5, 16, 9, 0)
    client_for(co_organizer).post(urls(event)["edit"], settings_data(event, decklist_deadline=""))
    event.refresh_from_db()
    assert event.decklist_deadline is None
    entries = AuditEntry.objects.filter(event=event, action="event.updated").order_by("id")
    assert [entry.after for entry in entries] == [
        {"decklist_deadline": "2026-05-16T09:00:00+09:00"},
        {"decklist_deadline": None},
    ]


def test_edit_with_nothing_changed_writes_nothing(client_for, staffed_event, organizer):
    event = staffed_event
    # a stored time with seconds, shown (and sent back) to the minute, is unchanged
    services.update_event(
        event, actor=organizer, registration_deadline=local(2026, 5, 15, 20, 0, 30)
    )
    before = AuditEntry.objects.count()
    event.refresh_from_db()
    client = client_for(organizer)
    response = client.post(urls(event)["edit"], settings_data(event))
    assert response.status_code == 302
    assert response["Location"] == urls(event)["edit"]
    assert "Nothing was changed." in text_of(client.get(response["Location"]))
    assert AuditEntry.objects.count() == before


def test_edit_refuses_a_locked_setting(client_for, staffed_event, organizer, make_players):
    event = staffed_event
    register_all(event, make_players(2))
    services.start_event(event, actor=organizer)
    event.refresh_from_db()
    before = AuditEntry.objects.count()
    data = settings_data(event, date="2026-06-01", tiebreak_profile="pokemon", capacity="12")
    response = client_for(organizer).post(urls(event)["edit"], data)
    assert response.status_code == 400
    errors = response.context["form"].errors
    locked = "This setting cannot change while the event is “Swiss rounds”."
    assert errors == {"date": [locked], "tiebreak_profile": [locked]}
    event.refresh_from_db()
    assert (event.date, event.tiebreak_profile, event.capacity) == (
        dt.date(2026, 5, 16),
        "mtr",
        16,
    )
    assert AuditEntry.objects.count() == before


def test_edit_shows_service_refusal_on_its_field(
    client_for, staffed_event, organizer, make_players
):
    event = staffed_event
    register_all(event, make_players(3))
    response = client_for(organizer).post(urls(event)["edit"], settings_data(event, capacity="2"))
    assert response.status_code == 400
    assert response.context["form"].errors == {
        "capacity": ["3 players are registered: the capacity cannot be lower."]
    }
    response = client_for(organizer).post(
        urls(event)["edit"], settings_data(event, top_cut_size="32")
    )
    assert response.context["form"].errors == {
        "top_cut_size": ["The top cut cannot be larger than the capacity."]
    }
    event.refresh_from_db()
    assert (event.capacity, event.top_cut_size) == (16, 0)
    assert not AuditEntry.objects.filter(event=event, action="event.updated").exists()


def test_edit_is_for_managers_only(
    client_for, staffed_event, judge, outsider, organizer, crossover, make_players
):
    event = staffed_event
    (player,) = make_players(1)
    register_all(event, [player])
    before = AuditEntry.objects.count()
    url = urls(event)["edit"]
    data = settings_data(event, capacity="30")
    for user in (judge, outsider, player):
        assert client_for(user).get(url).status_code == 403
        assert client_for(user).post(url, data).status_code == 403
    anonymous = client_for().post(url, data)
    assert anonymous.status_code == 302
    assert anonymous["Location"] == f"/accounts/login/?next={url}"
    draft = new_event(organizer, crossover, name="Private")
    assert client_for(outsider).get(urls(draft)["edit"]).status_code == 404
    assert client_for(outsider).post(urls(draft)["edit"], data).status_code == 404
    event.refresh_from_db()
    assert event.capacity == 16
    assert AuditEntry.objects.count() == before + 1  # the draft's creation


# --- life cycle ----------------------------------------------------------------------


def test_life_cycle_through_the_dashboard(client_for, organizer, crossover, make_players):
    event = new_event(organizer, crossover)
    client = client_for(organizer)
    dashboard = urls(event)["dashboard"]
    body = text_of(client.get(dashboard))
    assert ">Open registration</button>" in body
    assert ">Start the event</button>" not in body

    response = client.post(transition_url(event, "open-registration"))
    assert response["Location"] == dashboard
    event.refresh_from_db()
    assert event.state == EventState.REGISTRATION_OPEN
    body = text_of(client.get(dashboard))
    assert "Registration is open: players can now register." in body
    assert ">Open registration</button>" not in body
    assert ">Start the event</button>" in body

    first, second = make_players(2)
    services.register_player(event, actor=first, deck_text=LEGAL_DECK)
    late = services.register_player(event, actor=second)  # no decklist yet
    body = text_of(client.post(transition_url(event, "start"), follow=True))
    assert "These players have no decklist yet: player002." in body
    event.refresh_from_db()
    assert event.state == EventState.REGISTRATION_OPEN

    services.submit_decklist(late, actor=second, deck_text=LEGAL_DECK)
    body = text_of(client.post(transition_url(event, "start"), follow=True))
    assert "The event has started and its decklists are locked: generate round 1." in body
    assert ">Generate round 1</button>" in body
    assert "Finish the event" not in body  # not during the Swiss rounds
    event.refresh_from_db()
    assert (event.state, event.swiss_rounds) == (EventState.RUNNING, 1)

    body = text_of(client.post(transition_url(event, "finish"), {"confirm": "yes"}, follow=True))
    assert "Close the last round first." in body
    play_round(event, organizer)
    body = text_of(client.post(transition_url(event, "finish"), {"confirm": "yes"}, follow=True))
    assert "The event is finished." in body
    assert 'data-next="done"' in body
    assert "</button>" not in body.split('id="next-action"')[1].split("</section>")[0]
    event.refresh_from_db()
    assert event.state == EventState.FINISHED
    assert list(
        AuditEntry.objects.filter(event=event, action__startswith="event.")
        .order_by("id")
        .values_list("action", flat=True)
    ) == [
        "event.created",
        "event.registration_opened",
        "event.started",
        "event.finished",
    ]


def test_refused_transitions_show_why(client_for, organizer, crossover, make_players):
    client = client_for(organizer)
    event = open_event(organizer, crossover)
    register_all(event, make_players(1))
    body = text_of(client.post(transition_url(event, "open-registration"), follow=True))
    assert "Not possible while the event is “Registration open”." in body
    body = text_of(client.post(transition_url(event, "start"), follow=True))
    assert "At least two active players are needed." in body

    other = open_event(organizer, crossover, name="Four", swiss_rounds=2)
    register_all(other, make_players(4, prefix="four"))
    services.start_event(other, actor=organizer)
    play_round(other, organizer)
    body = text_of(client.post(transition_url(other, "finish"), {"confirm": "yes"}, follow=True))
    assert "Only 1 of 2 Swiss rounds have been played." in body

    topcut = open_event(organizer, crossover, name="Cut", swiss_rounds=1, top_cut_size=2)
    register_all(topcut, make_players(2, prefix="cut"))
    services.start_event(topcut, actor=organizer)
    play_round(topcut, organizer)
    body = text_of(client.post(transition_url(topcut, "finish"), {"confirm": "yes"}, follow=True))
    assert "This event has a top cut: generate it before finishing the event." in body

    for refused in (event, other, topcut):
        refused.refresh_from_db()
    assert (event.state, other.state, topcut.state) == ("registration_open", "running", "running")
    assert not AuditEntry.objects.filter(action="event.finished").exists()
    assert AuditEntry.objects.filter(event=event, action="event.started").count() == 0


def test_unknown_transition_is_404(client_for, staffed_event, organizer):
    assert client_for(organizer).post(transition_url(staffed_event, "explode")).status_code == 404


def test_transitions_are_post_only(client_for, staffed_event, organizer):
    assert client_for(organizer).get(transition_url(staffed_event, "start")).status_code == 405


@pytest.mark.parametrize("action", ["open-registration", "start", "finish"])
def test_transitions_are_for_managers_only(
    client_for, organizer, judge, outsider, crossover, make_players, action
):
    event = new_event(organizer, crossover)
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    url = transition_url(event, action)
    assert client_for(outsider).post(url).status_code == 404  # a draft
    services.open_registration(event, actor=organizer)
    (player,) = make_players(1)
    register_all(event, [player])
    before = AuditEntry.objects.count()
    for user in (judge, outsider, player):
        assert client_for(user).post(url).status_code == 403
    assert client_for().post(url).status_code == 302
    event.refresh_from_db()
    assert event.state == EventState.REGISTRATION_OPEN
    assert AuditEntry.objects.count() == before


def test_dashboard_panel_shows_settings_and_links(client_for, staffed_event, judge, organizer):
    event = staffed_event
    body = text_of(client_for(organizer).get(urls(event)["dashboard"]))
    assert '<dt>State</dt><dd><span class="badge">Registration open</span></dd>' in body
    assert "<dt>Players</dt><dd>0 of 16 seats taken</dd>" in body
    assert f'<a href="{urls(event)["edit"]}">Event settings</a>' in body
    assert f'<a href="{urls(event)["team"]}">Staff team</a>' in body
    assert f'<a href="{urls(event)["audit"]}">Audit log</a>' in body
    assert f'<a href="{urls(event)["audit"]}">Full audit log</a>' in body
    judge_body = text_of(client_for(judge).get(urls(event)["dashboard"]))
    assert "Event settings" not in judge_body
    assert ">Start the event</button>" not in judge_body
    assert f'<a href="{urls(event)["audit"]}">Audit log</a>' in judge_body


# --- staff team ----------------------------------------------------------------------


def test_organizer_adds_and_removes_staff(client_for, staffed_event, organizer):
    event = staffed_event
    newcomer = UserFactory(username="newcomer")
    client = client_for(organizer)
    body = text_of(client.get(urls(event)["team"]))
    assert "<td>organizer</td><td>Organizer</td>" in body
    assert "<td>co-organizer</td><td>Co-organizer</td>" in body
    assert "<td>judge</td><td>Judge</td>" in body
    assert ">Add to the staff</button>" in body

    response = client.post(urls(event)["team"], {"username": "newcomer", "role": "judge"})
    assert response.status_code == 302
    assert response["Location"] == urls(event)["team"]
    staff = EventStaff.objects.get(event=event, user=newcomer)
    assert staff.role == StaffRole.JUDGE
    entry = AuditEntry.objects.get(event=event, action="staff.added", object_id=staff.pk)
    assert (entry.actor, entry.after) == (organizer, {"user": newcomer.pk, "role": "judge"})
    assert "newcomer added as Judge." in text_of(client.get(urls(event)["team"]))

    remove = reverse("tournaments:staff_remove", args=[event.pk, staff.pk])
    response = client.post(remove)
    assert response["Location"] == urls(event)["team"]
    assert not EventStaff.objects.filter(pk=staff.pk).exists()
    entry = AuditEntry.objects.get(event=event, action="staff.removed", object_id=staff.pk)
    assert entry.before == {"user": newcomer.pk, "role": "judge"}
    assert "newcomer removed from the staff." in text_of(client.get(urls(event)["team"]))


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("nobody", "No user with this username."),
        ("judge", "judge is already on the staff."),
        ("organizer", "organizer is the organizer of this event."),
        ("player001", "player001 plays in this event: a player cannot be on its staff."),
        ("", "This field is required."),
    ],
)
def test_adding_staff_refused_on_the_username_field(
    client_for, staffed_event, organizer, make_players, username, message
):
    register_all(staffed_event, make_players(1))
    before = (EventStaff.objects.count(), AuditEntry.objects.count())
    response = client_for(organizer).post(
        urls(staffed_event)["team"], {"username": username, "role": "judge"}
    )
    assert response.status_code == 400
    assert response.context["form"].errors == {"username": [message]}
    assert (EventStaff.objects.count(), AuditEntry.objects.count()) == before


def test_only_the_organizer_manages_staff(
    client_for, staffed_event, co_organizer, judge, outsider, organizer, crossover, make_players
):
    event = staffed_event
    (player,) = make_players(1)
    register_all(event, [player])
    judge_row = EventStaff.objects.get(event=event, user=judge)
    remove = reverse("tournaments:staff_remove", args=[event.pk, judge_row.pk])
    before = (EventStaff.objects.count(), AuditEntry.objects.count())
    for user in (co_organizer, judge):
        body = text_of(client_for(user).get(urls(event)["team"]))
        assert "<td>judge</td><td>Judge</td>" in body
        assert "Only the organizer can add or remove staff." in body
        assert ">Add to the staff</button>" not in body
    for user in (co_organizer, judge, outsider, player):
        client = client_for(user)
        assert (
            client.post(urls(event)["team"], {"username": "outsider", "role": "judge"}).status_code
            == 403
        )
        assert client.post(remove).status_code == 403
    for user in (outsider, player):
        assert client_for(user).get(urls(event)["team"]).status_code == 403
    assert client_for().get(urls(event)["team"]).status_code == 302
    draft = new_event(organizer, crossover, name="Private")
    assert client_for(outsider).get(urls(draft)["team"]).status_code == 404
    assert (EventStaff.objects.count(), AuditEntry.objects.count()) == (before[0], before[1] + 1)


def test_removing_staff_of_another_event_is_404(client_for, staffed_event, organizer, crossover):
    other = new_event(organizer, crossover, name="Other")
    judge_row = EventStaff.objects.filter(event=staffed_event).first()
    url = reverse("tournaments:staff_remove", args=[other.pk, judge_row.pk])
    assert client_for(organizer).post(url).status_code == 404
    assert EventStaff.objects.filter(pk=judge_row.pk).exists()


# --- audit log -----------------------------------------------------------------------


def test_audit_log_shows_readable_changes(client_for, staffed_event, organizer, judge):
    event = staffed_event
    services.update_event(event, actor=organizer, capacity=24, allow_reentry=True, reason="Room")
    response = client_for(judge).get(urls(event)["audit"])
    assert response.status_code == 200
    body = text_of(response)
    assert "<strong>Event settings changed</strong>" in body
    assert (
        '<span class="audit-changes__label">Capacity:</span> <del class="audit-changes__old">16'
        '</del> <span aria-label="changed to">→</span> <ins>24</ins>'
    ) in body
    assert "Dropped players may re-enter:</span> <del" in body
    assert '">No</del>' in body
    assert "<ins>Yes</ins>" in body
    assert "Reason: Room" in body
    # staff entries name the user, creations show the values set
    assert "<strong>judge added to the staff</strong>" in body
    assert '<span class="audit-changes__label">Role:</span> Judge</li>' in body
    assert '<span class="audit-changes__label">Capacity:</span> 16</li>' in body
    assert "Times in Asia/Tokyo." in body
    assert ">event.updated<" not in body


def test_audit_log_filters_by_action_prefix_and_object_type(client_for, event_after_round_3, judge):
    event = event_after_round_3.event
    client = client_for(judge)
    url = urls(event)["audit"]
    page = client.get(url, {"action": "staff."})
    assert [row["entry"].action for row in page.context["rows"]] == ["staff.added"] * 2
    assert '<option value="staff." selected>Staff (all)</option>' in text_of(page)
    assert '<option value="staff.added">Staff member added</option>' in text_of(page)
    page = client.get(url, {"object_type": "penalty"})
    rows = page.context["rows"]
    assert [row["entry"].action for row in rows] == ["penalty.issued"]
    assert rows[0]["sentence"] == "Warning for player001"
    assert [(c["label"], c["after"]) for c in rows[0]["changes"]] == [
        ("Player", "player001"),
        ("Penalty", "Warning"),
        ("Infraction", "Slow play"),
    ]
    page = client.get(url, {"action": "round.closed", "object_type": "round"})
    assert [row["sentence"] for row in page.context["rows"]] == [
        "Round 3 closed",
        "Round 2 closed",
        "Round 1 closed",
    ]
    page = client.get(url, {"action": "match.confirmed"})
    oldest = page.context["rows"][-1]
    assert oldest["sentence"] == "Result of table 1 in round 1 confirmed"
    # what stayed the same is left out (and the version counter is not shown)
    assert [(c["label"], c["before"], c["after"]) for c in oldest["changes"]] == [
        ("Status", "Reported, waiting for the opponent", "Confirmed by both players"),
    ]
    page = client.get(url, {"action": "match.reported"})
    changes = {c["label"]: c for c in page.context["rows"][-1]["changes"]}
    assert changes["Games"]["before"] == "—"
    assert changes["Games"]["after"] == (
        "Game 1: A player's HP reached 0 (HP 12–0); Game 2: A player's HP reached 0 "
        "(HP 0–12); Game 3: A player's HP reached 0 (HP 12–0)"
    )
    assert changes["Result"]["after"] == "Player 1 won"
    assert changes["Games won–lost–drawn"]["after"] == "2–1–0"
    assert "hp_zero" not in text_of(page)
    assert client.get(url, {"action": "nothing."}).context["rows"] == []


def test_audit_log_is_paginated_by_fifty(client_for, event_after_round_3, organizer):
    event = event_after_round_3.event
    for minutes in (45, 40):
        services.update_event(event, actor=organizer, round_minutes=minutes)
    total = AuditEntry.objects.filter(event=event).count()
    assert total == 52
    client = client_for(organizer)
    first = client.get(urls(event)["audit"])
    assert len(first.context["rows"]) == 50
    assert f"{total} entries" in text_of(first)
    assert "Page 1 of 2" in text_of(first)
    second = client.get(urls(event)["audit"], {"page": 2})
    assert len(second.context["rows"]) == total - 50
    oldest = second.context["rows"][-1]["entry"]
    assert oldest.action == "event.created"
    assert '<a href="?page=2">Next</a>' in text_of(first)
    assert '<a href="?page=1">Previous</a>' in text_of(second)
    # the filters are kept in the page links
    filtered = client.get(urls(event)["audit"], {"action": "match.", "object_type": "match"})
    assert filtered.context["query"] == "action=match.&object_type=match"


def test_audit_log_is_for_staff_only(
    client_for, event_after_round_3, outsider, organizer, crossover
):
    event = event_after_round_3.event
    url = urls(event)["audit"]
    assert client_for(event_after_round_3.players[0]).get(url).status_code == 403
    assert client_for(outsider).get(url).status_code == 403
    anonymous = client_for().get(url)
    assert anonymous["Location"] == f"/accounts/login/?next={url}"
    draft = new_event(organizer, crossover, name="Private")
    assert client_for(outsider).get(urls(draft)["audit"]).status_code == 404


# --- query counts --------------------------------------------------------------------


def _small_event(organizer, judge, crossover, make_players):
    event = open_event(organizer, crossover, name="Small")
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    registrations = register_all(event, make_players(2, prefix="small"))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    services.issue_penalty(registrations[0], actor=judge, kind="warning", infraction="Slow play")
    return event


def test_audit_log_query_count_is_the_same_small_and_large(
    client_for,
    event_after_round_3,
    organizer,
    crossover,
    make_players,
    django_assert_num_queries,
    django_assert_max_num_queries,
):
    """The same kinds of entries, few or fifty: the same queries (the names of the ids
    inside the data are looked up once per kind for the whole page)."""
    small = _small_event(organizer, UserFactory(username="small-judge"), crossover, make_players)
    large = event_after_round_3.event
    assert AuditEntry.objects.filter(event=small).count() < 20
    for query, expected in (
        # session, user, event, staff row, registration, filter choices, count, page,
        # users who reported
        ({"object_type": "match"}, 9),
        # ... the players of the tables
        ({"object_type": "round"}, 9),
        # ... the registered players (named with the entries: nothing more)
        ({"object_type": "registration"}, 8),
    ):
        counts = []
        for event in (small, large):
            client = client_for(organizer)
            url = urls(event)["audit"]
            client.get(url)  # warm the session
            with django_assert_num_queries(expected) as captured:
                assert client.get(url, query).status_code == 200
            counts.append(len(captured.captured_queries))
        assert counts[0] == counts[1], query
    # everything: at most one query per kind of id (users, players, formats) on top
    for event in (small, large):
        with django_assert_max_num_queries(11):
            assert client.get(urls(event)["audit"]).status_code == 200


def test_staff_team_query_count_is_the_same_small_and_large(
    client_for, organizer, crossover, django_assert_num_queries
):
    counts = []
    for size in (1, 4):
        event = new_event(organizer, crossover, name=f"Team {size}")
        for number in range(size):
            user = UserFactory(username=f"staff{size}-{number}")
            services.add_staff(event, actor=organizer, user=user, role=StaffRole.JUDGE)
        client = client_for(organizer)
        url = urls(event)["team"]
        client.get(url)
        # session, user, event, staff row, registration, team
        with django_assert_num_queries(6) as captured:
            assert client.get(url).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


def test_dashboard_with_event_panel_keeps_its_query_count(
    client_for, staffed_event, organizer, django_assert_num_queries
):
    client = client_for(organizer)
    url = urls(staffed_event)["dashboard"]
    client.get(url)
    # as in test_staff: the panel reads only the event row already loaded
    with django_assert_num_queries(11):
        assert client.get(url).status_code == 200


def test_create_event_with_an_empty_post_names_the_required_fields(client_for, organizer):
    response = client_for(organizer).post(reverse("tournaments:event_create"), {})
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert set(errors) >= {"name", "format", "date", "capacity", "round_minutes"}
    assert errors["name"] == ["This field is required."]
    assert not Event.objects.exists()


# --- saves over someone else's change, locked boxes, odd values ------------------------


def test_saving_settings_over_another_managers_change_is_refused(
    client_for, staffed_event, organizer, co_organizer
):
    event = staffed_event
    data = settings_data(event, name="Renamed", loaded=event.updated_at.isoformat())
    services.update_event(event, actor=co_organizer, capacity=64)  # meanwhile
    client = client_for(organizer)
    response = client.post(urls(event)["edit"], data)
    assert response.status_code == 302
    assert response["Location"] == urls(event)["edit"]
    event.refresh_from_db()
    assert (event.name, event.capacity) == ("Spring Open", 64)
    assert AuditEntry.objects.filter(event=event, action="event.updated").count() == 1
    page = text_of(client.get(urls(event)["edit"]))
    assert "Someone changed this event after you opened its settings: nothing was saved." in page


def test_settings_page_carries_the_loaded_version(client_for, staffed_event, organizer):
    page = text_of(client_for(organizer).get(urls(staffed_event)["edit"]))
    assert f'name="loaded" value="{staffed_event.updated_at.isoformat()}"' in page


def test_a_locked_ticked_box_does_not_block_other_changes(
    client_for, organizer, crossover, make_players
):
    """allow_reentry is locked once the event is finished; the browser does not send the
    disabled box, which must not read as "unticked, so changed"."""
    event = open_event(organizer, crossover, allow_reentry=True, swiss_rounds=1)
    register_all(event, make_players(2))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    services.finish_event(event, actor=organizer)
    event.refresh_from_db()
    data = settings_data(event, name="Spring Open 2026")
    assert "allow_reentry" not in data
    response = client_for(organizer).post(urls(event)["edit"], data)
    assert response.status_code == 302, text_of(response)
    event.refresh_from_db()
    assert (event.name, event.allow_reentry) == ("Spring Open 2026", True)


@pytest.mark.parametrize(
    ("field", "value"),
    [("capacity", "99999999999999999999"), ("round_minutes", "100000"), ("swiss_rounds", "31")],
)
def test_absurd_numbers_are_refused_on_their_field(client_for, organizer, crossover, field, value):
    response = client_for(organizer).post(
        reverse("tournaments:event_create"), create_data(crossover, **{field: value})
    )
    assert response.status_code == 400
    assert not Event.objects.exists()


def test_audit_log_survives_a_name_that_looks_like_an_impossible_date(
    client_for, staffed_event, organizer
):
    services.update_event(staffed_event, actor=organizer, name="2024-02-30T10:00")
    response = client_for(organizer).get(urls(staffed_event)["audit"])
    assert response.status_code == 200
    assert "2024-02-30T10:00" in text_of(response)


def test_inactive_users_cannot_be_added_to_the_staff(client_for, staffed_event, organizer):
    UserFactory(username="gone", is_active=False)
    response = client_for(organizer).post(
        urls(staffed_event)["team"], {"username": "gone", "role": "judge"}
    )
    assert response.status_code == 400
    assert "No user with this username." in text_of(response)
