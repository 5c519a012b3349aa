"""Pages over endpoints that other packages are still building (TCO, quotes).

Each page asks here for the other package's code; while it is missing or broken the page
says so plainly instead of failing, and wiring it in is a change to this file alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import Any

log = logging.getLogger(__name__)

TCO_NOT_AVAILABLE = "The own-vs-rent calculator is not available yet"
QUOTES_NOT_AVAILABLE = "Quotes are not available yet"


@cache
def attribute(module: str, name: str) -> Any | None:
    """module.name, or None when the module is missing or fails to import."""
    try:
        found = import_module(module)
    except Exception:  # a half-built package must not take the whole site down
        log.warning("optional page dependency %s failed to import", module, exc_info=True)
        return None
    return getattr(found, name, None)


def tco_endpoint() -> Callable[..., Any] | None:
    """GET /tco's route function: the page uses it as a dependency (same parameters)."""
    endpoint = attribute("services.api.tco.router", "get_tco")
    return endpoint if callable(endpoint) else None


def quotes_endpoint() -> Callable[..., Any] | None:
    """POST /quotes/cluster's service function, once services/api/quotes has one."""
    endpoint = attribute("services.api.quotes.service", "cluster_quote")
    return endpoint if callable(endpoint) else None
