"""The venue poster (/venue/poster/): the site's address as players' phones reach the
laptop, for the people who run events here (issue #14, "The venue laptop")."""

from __future__ import annotations

import pytest
from django.urls import reverse

from config import lan
from tournaments import views_venue

from .factories import UserFactory, open_event

URL = "/venue/poster/"


@pytest.fixture
def laptop_network(monkeypatch):
    """The laptop's interfaces are the boundary: pretend it is on a venue's Wi-Fi."""
    monkeypatch.setattr(lan, "lan_addresses", lambda: ["192.168.1.20", "10.0.0.7"])


def poster_address(response) -> str:
    """The address the QR code encodes (segno's input, in the SVG's data-url)."""
    text = response.content.decode()
    start = text.index('data-url="') + len('data-url="')
    return text[start : text.index('"', start)]


def test_venue_poster_route_name():
    assert reverse("venue_poster") == URL


def test_venue_poster_shows_the_address_the_request_came_to(client, organizer, crossover, settings):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "192.168.1.20"]  # as ./dev serve sets
    open_event(organizer, crossover)
    client.force_login(organizer)
    response = client.get(URL, HTTP_HOST="192.168.1.20:8000")
    assert response.status_code == 200
    assert poster_address(response) == "http://192.168.1.20:8000/"
    assert (
        '<p class="poster__url" data-address="http://192.168.1.20:8000/">192.168.1.20:8000</p>'
        in (response.content.decode())
    )


def test_venue_poster_opened_on_the_laptop_shows_its_lan_address(
    client, organizer, crossover, laptop_network
):
    """127.0.0.1 would lead every phone to itself: the LAN address with the same port."""
    open_event(organizer, crossover)
    client.force_login(organizer)
    response = client.get(URL, HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 200
    assert poster_address(response) == "http://192.168.1.20:8000/"
    assert response.context["addresses"] == ["http://192.168.1.20:8000/", "http://10.0.0.7:8000/"]
    assert response.context["from_lan"] is True
    # The other address can be chosen; an address that is not the laptop's cannot.
    chosen = client.get(URL, {"address": "http://10.0.0.7:8000/"}, HTTP_HOST="localhost:8000")
    assert poster_address(chosen) == "http://10.0.0.7:8000/"
    foreign = client.get(URL, {"address": "http://evil.example/"}, HTTP_HOST="localhost:8000")
    assert poster_address(foreign) == "http://192.168.1.20:8000/"


def test_venue_poster_without_a_network_warns_and_prints_nothing(
    client, organizer, crossover, monkeypatch
):
    monkeypatch.setattr(lan, "lan_addresses", lambda: [])
    open_event(organizer, crossover)
    client.force_login(organizer)
    response = client.get(URL, HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 200
    assert b"data-url=" not in response.content
    assert b"no address on a local network" in response.content


def test_venue_poster_prints_the_wifi_name(client, organizer, crossover):
    open_event(organizer, crossover)
    client.force_login(organizer)
    response = client.get(URL, {"wifi": "  Venue   Guest <5G> "})
    assert response.context["wifi"] == "Venue Guest <5G>"
    assert "1. Join the Wi-Fi “Venue Guest &lt;5G&gt;”" in response.content.decode()
    long = client.get(URL, {"wifi": "x" * 200})
    assert long.context["wifi"] == "x" * views_venue.WIFI_NAME_MAX


def test_venue_poster_in_japanese(client, organizer, crossover):
    open_event(organizer, crossover)
    client.force_login(organizer)
    response = client.get(URL, {"wifi": "Hall"}, HTTP_ACCEPT_LANGUAGE="ja")
    text = response.content.decode()
    assert '<html lang="ja">' in text
    assert "会場ポスター" in text
    assert "1. Wi-Fi「Hall」に接続" in text


def test_venue_poster_for_staff_of_any_event(client, organizer, judge, staffed_event):
    client.force_login(judge)
    assert client.get(URL).status_code == 200
    admin = UserFactory(username="root", is_superuser=True)
    client.force_login(admin)
    assert client.get(URL).status_code == 200


def test_venue_poster_refuses_an_outsider_and_asks_a_visitor_to_log_in(client, outsider):
    client.force_login(outsider)
    assert client.get(URL).status_code == 403
    client.logout()
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_venue_poster_query_count(client, organizer, crossover, django_assert_num_queries):
    """The session's user, then one query for "runs events here"."""
    open_event(organizer, crossover)
    client.force_login(organizer)
    client.get(URL)
    with django_assert_num_queries(3):
        assert client.get(URL).status_code == 200
