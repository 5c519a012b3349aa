"""Who the client is: the connecting address, or what a configured proxy says it is.

uvicorn's own proxy-header handling trusts X-Forwarded-For from 127.0.0.1 by default, so
any local process could name itself any client and escape the per-client limits (the
anonymous quote limit). `gpu-advisor serve` turns that off and this middleware applies
`trusted_proxies` instead: only a connection from a configured proxy may name the
client, taken as the right-most address in X-Forwarded-For that is not itself a trusted
proxy (the one the outermost trusted proxy saw).

Run directly (`uvicorn --factory ...` without `--no-proxy-headers`), uvicorn rewrites the
client before the app sees it; a rewritten client has port 0 unless the header named one,
which no TCP peer has. Such a request is counted under one shared "unverified" client: a
forged header then buys nothing, and a warning says how to run it.
"""

from __future__ import annotations

import ipaddress
import logging

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from shared.kit.settings import ip_networks

log = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
UNVERIFIED = "forwarded-unverified"


def _trusted(host: str, networks: tuple[Network, ...]) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in network for network in networks)


def forwarded_client(chain: str, networks: tuple[Network, ...]) -> str | None:
    """The right-most address of an X-Forwarded-For chain that is not a trusted proxy."""
    hops = [hop.strip() for hop in chain.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, networks):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return None  # garbage in the header: keep the proxy as the client
    return hops[0] if hops else None


class ForwardedClient:
    """Sets scope["client"] from X-Forwarded-For for connections from trusted proxies."""

    def __init__(self, app: ASGIApp, trusted_proxies: str) -> None:
        self.app = app
        self.networks = ip_networks(trusted_proxies)
        self._warned = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            chain = headers.get("x-forwarded-for")
            client = scope.get("client")
            if chain and client:
                host, port = client
                if self.networks and _trusted(host, self.networks):
                    named = forwarded_client(chain, self.networks)
                    if named is not None:
                        scope["client"] = (named, 0)
                elif port == 0:
                    # uvicorn already took the client from the header (see above).
                    self._warn()
                    scope["client"] = (UNVERIFIED, 0)
        await self.app(scope, receive, send)

    def _warn(self) -> None:
        if not self._warned:
            self._warned = True
            log.warning(
                "the server rewrote the client from X-Forwarded-For: run `gpu-advisor serve` "
                "or uvicorn --no-proxy-headers, and name proxies in GPU_ADVISOR_TRUSTED_PROXIES"
            )


def client_of(request: Request) -> str:
    """The client's address as the per-client limits count it: the IP, or its /64 for
    IPv6, since one IPv6 client commonly holds a whole /64. Behind a configured proxy,
    the address `ForwardedClient` took from X-Forwarded-For; never a raw header."""
    host = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
