"""Webhook targets must be public: no loopback, private, link-local, metadata or other
special addresses, in any spelling, at registration and again at send time.

The hostname is resolved once per check and the connection is made to the address that
was checked (see delivery.py), so DNS cannot change the answer between check and use.
Numeric spellings (decimal `2130706433`, hex `0x7f000001`, octal `0177.0.0.1`, short
`127.1`, IPv4-mapped IPv6) are normalized by the resolver like any other name; mapped,
6to4 and Teredo IPv6 addresses are checked by the IPv4 address they carry.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
SCHEMES = {"http": 80, "https": 443}
# Cloud metadata services; all also fall in ranges refused below, listed for the message.
METADATA = {"169.254.169.254", "fd00:ec2::254", "100.100.100.200", "169.254.170.2"}


class BlockedUrl(ValueError):
    """A webhook URL we will not call, with the reason."""


@dataclass(frozen=True, slots=True)
class Target:
    url: str
    scheme: str
    host: str
    port: int
    path: str
    address: str

    @property
    def host_header(self) -> str:
        default = SCHEMES[self.scheme]
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def pinned_url(self) -> str:
        """The URL with the checked address in place of the name."""
        netloc = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{netloc}:{self.port}{self.path}"


@dataclass(frozen=True, slots=True)
class Allowlist:
    hosts: frozenset[str]
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]

    @classmethod
    def parse(cls, text: str) -> Allowlist:
        hosts: set[str] = set()
        networks = []
        for item in filter(None, (part.strip() for part in text.split(","))):
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                hosts.add(item.lower().rstrip("."))
        return cls(frozenset(hosts), tuple(networks))

    def allows(self, host: str, ip: IPAddress) -> bool:
        return host in self.hosts or any(ip in network for network in self.networks)


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _embedded_v4(ip: IPAddress) -> IPAddress:
    if isinstance(ip, ipaddress.IPv6Address):
        for embedded in (ip.ipv4_mapped, ip.sixtofour, ip.teredo and ip.teredo[1]):
            if embedded:
                return embedded
    return ip


def forbidden_reason(ip: IPAddress) -> str | None:
    ip = _embedded_v4(ip)
    if str(ip) in METADATA:
        return "cloud metadata"
    checks = (
        (ip.is_loopback, "loopback"),
        (ip.is_unspecified, "unspecified"),
        (ip.is_link_local, "link-local"),
        (ip.is_multicast, "multicast"),
        (ip.is_private, "private"),
        (ip.is_reserved, "reserved"),
        # fec0::/10, deprecated (RFC 3879) but still routed inside some networks.
        (isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local, "site-local"),
        # Shared address space (100.64/10), documentation ranges and the like.
        (not ip.is_global, "not globally routable"),
    )
    return next((why for hit, why in checks if hit), None)


def check_url(url: str, allowlist: Allowlist, resolver: Resolver = system_resolver) -> Target:
    """The target to connect to, or BlockedUrl naming why not."""
    # urlsplit silently drops CR, LF and tab (WHATWG rules), so the URL we would store and
    # show is not the one we would call, and a CR/LF could split a header or log line.
    unsafe = next((c for c in url if ord(c) < 0x20 or ord(c) == 0x7F or c == " "), None)
    if unsafe is not None:
        raise BlockedUrl(
            f"the URL holds {repr(unsafe)[1:-1] if unsafe != ' ' else 'a space'}: control "
            "characters and spaces are not allowed (percent-encode them)"
        )
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise BlockedUrl(f"scheme must be http or https, not {parts.scheme or 'none'!r}")
    if parts.username or parts.password:
        raise BlockedUrl("credentials in the URL are not allowed")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise BlockedUrl("the URL has no host")
    try:
        # Internationalized names travel as IDNA (punycode) in DNS, Host and SNI.
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise BlockedUrl(f"invalid host name {host!r}") from None
    try:
        port = parts.port
    except ValueError as exc:
        raise BlockedUrl(f"invalid port: {exc}") from None
    if port is None:
        port = SCHEMES[parts.scheme]
    elif port == 0:  # never the scheme's default: a port-0 URL names no service
        raise BlockedUrl("invalid port: 0")
    try:
        addresses = resolver(host, port)
    except (OSError, UnicodeError) as exc:
        raise BlockedUrl(f"{host} does not resolve ({exc})") from None
    if not addresses:
        raise BlockedUrl(f"{host} does not resolve")
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        reason = forbidden_reason(ip)
        if reason and not allowlist.allows(host, ip):
            raise BlockedUrl(f"{host} resolves to {ip}, a {reason} address: not allowed")
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    return Target(url, parts.scheme, host, port, path, addresses[0])
