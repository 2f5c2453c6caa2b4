"""The webhook target guard and IPv6 addresses that carry an IPv4 address (issue #21):
a 6to4 address (2002::/16) whose IPv4 is loopback or private reached the site's own
network (``2002:7f00:1::`` is 127.0.0.1 behind a 6to4 relay). Each embedding is read
(``webhooks.embedded_ipv4``) and the IPv4 address it carries is judged as well."""

from __future__ import annotations

import ipaddress

import pytest
from django.urls import reverse

from tournaments import webhooks
from tournaments.models import Webhook

from .factories import open_event

REFUSED = [
    # 6to4 (2002::/16): the IPv4 address follows the prefix
    ("2002:7f00:1::", "127.0.0.1"),
    ("2002:7f00:0001:0000::1", "127.0.0.1"),
    ("2002:a00:1::", "10.0.0.1"),
    ("2002:c0a8:114::", "192.168.1.20"),
    ("2002:a9fe:a9fe::", "169.254.169.254"),
    ("2002:6440:1::", "100.64.0.1"),
    ("2002::", "0.0.0.0"),
    # IPv4-mapped, -compatible and -translated (the last 32 bits)
    ("::ffff:127.0.0.1", "127.0.0.1"),
    ("::ffff:10.1.2.3", "10.1.2.3"),
    ("::127.0.0.1", "127.0.0.1"),
    ("::192.168.0.1", "192.168.0.1"),
    ("::ffff:0:127.0.0.1", "127.0.0.1"),
    # NAT64, the well-known prefix: the gateway forwards to the IPv4 address
    ("64:ff9b::7f00:1", "127.0.0.1"),
    ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
    ("64:ff9b::10.0.0.1", "10.0.0.1"),
    # Teredo (2001::/32): the client's IPv4 address, inverted, in the last 32 bits
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1"),
]


@pytest.mark.parametrize(("address", "inner"), REFUSED)
def test_the_ipv4_address_inside_is_read(address, inner):
    assert ipaddress.ip_address(inner) in webhooks.embedded_ipv4(ipaddress.ip_address(address))


@pytest.mark.parametrize(("address", "inner"), REFUSED)
def test_an_ipv6_address_carrying_a_private_ipv4_is_refused(address, inner):
    assert webhooks.address_refused(address) is True
    with pytest.raises(webhooks.TargetRefused) as refused:
        webhooks.check_target(f"http://[{address}]:8000/hook")
    assert refused.value.code == "private_address"


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b:1::a00:1",  # NAT64 local-use prefix (RFC 8215): never public
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7",  # Teredo to a public client: still a tunnel
    ],
)
def test_other_translation_prefixes_are_refused(address):
    assert webhooks.address_refused(address) is True


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("2002:808:808::1", ["8.8.8.8"]),
        ("2606:4700:4700::1111", []),
        ("::1", []),
        ("fe80::1", []),
    ],
)
def test_only_embedding_prefixes_carry_an_ipv4_address(address, expected):
    assert webhooks.embedded_ipv4(ipaddress.ip_address(address)) == [
        ipaddress.ip_address(inner) for inner in expected
    ]


@pytest.mark.parametrize(
    "address", ["2002:5db8:d70e::1", "::ffff:93.184.215.14", "2606:4700:4700::1111"]
)
def test_a_public_address_in_ipv6_is_accepted(address):
    """6to4 of a public IPv4 address, a mapped public IPv4 address, plain public IPv6."""
    assert webhooks.address_refused(address) is False
    assert webhooks.check_target(f"https://[{address}]/in").addresses == (address,)


def test_the_form_refuses_a_6to4_loopback_target(client, organizer, crossover):
    event = open_event(organizer, crossover)
    client.force_login(organizer)
    response = client.post(
        reverse("tournaments:webhook_new", args=[event.pk]),
        {
            "url": "http://[2002:7f00:1::]:8000/hook",
            "secret": "a-test-secret-of-some-length",
            "kinds": ["round.published"],
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors["url"] == [
        "The host 2002:7f00:1:: is on a private, loopback or reserved address "
        "(2002:7f00:1::); webhooks go to public addresses only."
    ]
    assert not Webhook.objects.exists()


def test_the_form_is_refused_to_an_outsider(client, organizer, outsider, crossover):
    event = open_event(organizer, crossover)
    client.force_login(outsider)
    response = client.post(
        reverse("tournaments:webhook_new", args=[event.pk]),
        {"url": "https://[2002:5db8:d70e::1]/in", "secret": "x" * 20, "kinds": ["event.finished"]},
    )
    assert response.status_code == 403
    assert not Webhook.objects.exists()
