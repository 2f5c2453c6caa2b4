"""The venue laptop: a printable poster with the site's address as players' phones reach it.

At a venue with no internet the organizer serves the site from a laptop on the venue's
Wi-Fi (``./dev serve 0.0.0.0:8000``, README "Running a venue on a laptop with no
internet"). Phones need the laptop's address on that network: the address this page was
opened at when it is one (a phone or another computer opened it), else, when the
organizer opened it on the laptop itself (``127.0.0.1``, ``localhost``), the laptop's LAN
addresses (``config.lan``), since a code for ``127.0.0.1`` would lead every phone to
itself. Nothing on the poster is private, but the page (and the laptop's addresses) is
for the people who run events here: a superuser or anyone on the staff of an event under
way (``policy.runs_events``); a draft, which anyone may make, is not enough.
"""

from __future__ import annotations

import ipaddress

from django.contrib.auth.decorators import login_required
from django.http.request import split_domain_port
from django.shortcuts import render
from django.views.decorators.http import require_safe

from config import lan

from . import policy

WIFI_NAME_MAX = 64


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _url(scheme: str, host: str, port: str) -> str:
    host = f"[{host}]" if ":" in host else host
    default = {"http": "80", "https": "443"}.get(scheme)
    return f"{scheme}://{host}/" if port in ("", default) else f"{scheme}://{host}:{port}/"


def poster_addresses(request) -> tuple[list[str], bool]:
    """The site's addresses a phone may open, best first, and whether they were found on
    the laptop's network (the page was opened on the laptop itself) rather than taken
    from the request."""
    host, port = split_domain_port(request.get_host())
    if not _is_loopback(host):
        return [request.build_absolute_uri("/")], False
    port = port or request.get_port()
    return [_url(request.scheme, address, port) for address in lan.lan_addresses()], True


@require_safe
@login_required
def venue_poster(request):
    """The A4 poster: join the Wi-Fi (its name, when given), scan the code or type the
    address. ``?address=`` picks another of the laptop's addresses; ``?wifi=`` prints the
    network's name."""
    policy.require(
        policy.runs_events(request.user),
        "not_event_staff",
        "Only the staff of an event under way here print it.",
    )
    addresses, from_lan = poster_addresses(request)
    chosen = request.GET.get("address", "")
    if chosen not in addresses:
        chosen = addresses[0] if addresses else ""
    wifi = " ".join(request.GET.get("wifi", "").split())[:WIFI_NAME_MAX]
    return render(
        request,
        "tournaments/venue/poster.html",
        {
            "address": chosen,
            "short_address": chosen.split("://", 1)[-1].rstrip("/"),
            "addresses": addresses,
            "from_lan": from_lan,
            "wifi": wifi,
            "wifi_max": WIFI_NAME_MAX,
        },
    )
