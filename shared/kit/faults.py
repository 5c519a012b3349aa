"""Fault injection for the fault tests (GPU_ADVISOR_FAULT_INJECTION), read from settings."""

from __future__ import annotations

from shared.kit.settings import Settings


def fault(settings: Settings, name: str) -> str | None:
    """The argument of an injected fault `name[:arg]`, if configured ('' when it has none)."""
    for spec in settings.fault_injection.split(","):
        key, _, arg = spec.strip().partition(":")
        if key == name:
            return arg
    return None
