"""The laptop's addresses on the venue's network (standard library only, no Django).

``./dev serve 0.0.0.0:8000`` runs ``python3 config/lan.py 0.0.0.0:8000`` before anything is
installed and exports what it prints, so that players' phones on the venue's Wi-Fi, which
ask for ``http://192.168.1.20:8000/``, are not refused by ``ALLOWED_HOSTS``. The venue
poster (``/venue/poster/``) asks :func:`lan_addresses` when the organizer opened it on the
laptop itself (``127.0.0.1``), since a code for ``127.0.0.1`` would lead each phone to
itself.
"""

from __future__ import annotations

import ipaddress
import socket
import sys

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})

# A UDP "connect" sends nothing; it only asks the routing table which of the machine's
# addresses would talk to that destination. One probe per private range finds the
# Wi-Fi's address even at a venue with no internet (no default route); the last one
# (TEST-NET-1, never a real host) follows the default route when there is one.
_PROBES = ("192.168.254.254", "10.254.254.254", "172.31.255.254", "192.0.2.1")


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_multicast)


def lan_addresses() -> list[str]:
    """The machine's IPv4 addresses that another device on its network can reach, most
    likely first (the one facing the venue's network); empty when it has none."""
    found: list[str] = []
    for probe in _PROBES:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                found.append(udp.getsockname()[0])
        except OSError:
            continue  # no route to that range
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    found.extend(info[4][0] for info in infos)
    return list(dict.fromkeys(address for address in found if _usable(address)))


def split_address(address: str) -> tuple[str, str]:
    """``"0.0.0.0:8000"`` → ``("0.0.0.0", "8000")``; ``"[::]:8000"`` → ``("::", "8000")``."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), port


def serve_hosts(address: str, lan: list[str] | None = None) -> list[str]:
    """The host names a server bound to ``address`` ("ADDR:PORT") answers to: this
    machine's own names always, the bound host when it is a specific one, and every LAN
    address (and ``<hostname>.local``, which phones resolve by mDNS) when it listens on
    all interfaces."""
    host, _port = split_address(address)
    hosts = list(LOOPBACK_HOSTS)
    if host in WILDCARD_HOSTS:
        hosts += lan_addresses() if lan is None else lan
        name = socket.gethostname()
        if name and "." not in name and name != "localhost":
            hosts.append(f"{name}.local")
    else:
        hosts.append(host)
    return list(dict.fromkeys(hosts))


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def serve_settings(address: str, lan: list[str] | None = None) -> dict[str, str]:
    """The environment ``./dev serve ADDR:PORT`` sets when the user did not (values as
    ``config.settings`` reads them: comma-separated), and the address to give phones."""
    host, port = split_address(address)
    lan = lan_addresses() if lan is None and host in WILDCARD_HOSTS else (lan or [])
    hosts = serve_hosts(address, lan)
    if host in WILDCARD_HOSTS:
        phones = [f"http://{_url_host(ip)}:{port}/" for ip in lan]
    elif host in LOOPBACK_HOSTS:
        phones = []
    else:
        phones = [f"http://{_url_host(host)}:{port}/"]
    return {
        "ALLOWED_HOSTS": ",".join(hosts),
        "CSRF_TRUSTED_ORIGINS": ",".join(f"http://{_url_host(h)}:{port}" for h in hosts),
        "PHONES": " ".join(phones),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1 or ":" not in argv[0]:
        print("usage: python3 config/lan.py ADDR:PORT", file=sys.stderr)
        return 2
    for key, value in serve_settings(argv[0]).items():
        print(f"{key}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
