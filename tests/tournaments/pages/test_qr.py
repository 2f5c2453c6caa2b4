"""QR codes (segno, inline SVG): on each match slip (to its match's page), on the event
page's include (to the current pairings) and on the printable poster. The encoded text is
checked through the SVG's ``data-url`` (the string given to segno)."""

import re

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse
from django.utils.safestring import mark_safe

from tests.tournaments.factories import new_event, open_event, register_all
from tournaments import services
from tournaments.templatetags.qr import qr_svg, qr_svg_markup

pytestmark = pytest.mark.django_db

QR = re.compile(r'<svg role="img" aria-label="([^"]*)" data-url="([^"]*)"')


@pytest.fixture(autouse=True)
def _venue_host(settings):
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "venue.example"]


def text_of(response) -> str:
    return response.content.decode()


def test_qr_svg_encodes_the_url_with_an_accessible_name():
    svg = qr_svg_markup("https://venue.example/events/1/pairings/", "QR code: pairings")
    assert svg.startswith(
        '<svg role="img" aria-label="QR code: pairings" '
        'data-url="https://venue.example/events/1/pairings/"'
    )
    assert "<title>QR code: pairings</title>" in svg
    assert "<path" in svg
    import segno

    code = segno.make("https://venue.example/events/1/pairings/", error="m")
    assert f'viewBox="0 0 {code.symbol_size(border=2)[0]} {code.symbol_size(border=2)[1]}"' in svg


def test_qr_label_that_is_already_html_is_escaped_once():
    """A label from {% blocktranslate asvar %} arrives as escaped HTML: the accessible
    name reads the event's name, not its entities (once escaped in the attribute and in
    segno's <title>, never twice)."""
    escaped = mark_safe("Bob&#x27;s &lt;Cup&gt; &amp; Co")
    for label in ("Bob's <Cup> & Co", escaped):
        svg = qr_svg("https://venue.example/", label)
        assert 'aria-label="Bob&#x27;s &lt;Cup&gt; &amp; Co"' in svg
        assert "<title>Bob's &lt;Cup&gt; &amp; Co</title>" in svg
        assert "&amp;lt;" not in svg


@pytest.fixture
def published(organizer, crossover, make_players):
    event = open_event(organizer, crossover, name="QR Open")
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    return event, round_


def test_every_slip_has_a_qr_code_to_its_match(client_for, published, judge, organizer):
    event, round_ = published
    body = text_of(
        client_for(organizer).get(
            reverse("tournaments:match_slips", args=[event.pk, 1]), HTTP_HOST="venue.example"
        )
    )
    codes = QR.findall(body)
    matches = list(round_.matches.order_by("table"))
    assert codes == [
        (
            f"QR code: the page of table {match.table}",
            f"http://venue.example{reverse('tournaments:match', args=[event.pk, match.pk])}",
        )
        for match in matches
    ]


def test_poster_has_a_big_qr_code_to_the_current_pairings(client_for, published, organizer):
    event, _round = published
    url = reverse("tournaments:poster", args=[event.pk])
    response = client_for().get(url, HTTP_HOST="venue.example")
    assert response.status_code == 200
    body = text_of(response)
    target = f"http://venue.example/events/{event.pk}/pairings/"
    assert QR.findall(body) == [("QR code: the pairings of QR Open", target)]
    assert "<h1>Scan for pairings</h1>" in body
    assert '<p class="poster__event">QR Open</p>' in body
    assert f'<p class="poster__url">venue.example/events/{event.pk}/pairings/</p>' in body
    with open("static/css/clock.css") as stylesheet:
        assert "@page { size: A4" in stylesheet.read()
    # The staff's pairings page links to it.
    pairings = text_of(
        client_for(organizer).get(reverse("tournaments:pairings", args=[event.pk, 1]))
    )
    assert f'<a href="{url}">Pairings poster</a>' in pairings


def test_poster_of_a_private_event_is_404(client_for, organizer, crossover, outsider):
    event = new_event(organizer, crossover, name="Private")
    url = reverse("tournaments:poster", args=[event.pk])
    assert client_for(outsider).get(url).status_code == 404
    assert client_for(organizer).get(url).status_code == 200


def test_event_qr_include_leads_to_the_current_pairings(published):
    event, _round = published
    request = RequestFactory().get("/", HTTP_HOST="venue.example")
    html = render_to_string("tournaments/_event_qr.html", {"event": event}, request=request)
    target = f"http://venue.example/events/{event.pk}/pairings/"
    assert QR.findall(html) == [("QR code: the pairings of QR Open", target)]
    assert f'<a href="{target}">{target}</a>' in html
