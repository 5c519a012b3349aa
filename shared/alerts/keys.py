"""API keys: created once, stored as a SHA-256 hash plus a lookup prefix.

Keys carry 256 bits of randomness, so a fast hash is enough (no password stretching);
the prefix finds the row and the hash comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlmodel import Session, select

from shared.alerts.models import Alert, ApiKey
from shared.pricing.quotes import QuoteViewer

SCOPES = ("read", "write")
KEY_PREFIX = "gpa"


@dataclass(frozen=True, slots=True)
class CreatedKey:
    id: int
    name: str
    scope: str
    key: str
    prefix: str
    all_quotes: bool = False


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_key(
    session: Session, name: str, scope: str = "write", all_quotes: bool = False
) -> CreatedKey:
    """A new key; `all_quotes` (operators' keys) sees every posted quote and is alerted on
    them, where other keys see only their own (shared/pricing/quotes.py)."""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
    if not name.strip():
        raise ValueError("name must not be empty")
    prefix = secrets.token_hex(6)
    key = f"{KEY_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}"
    row = ApiKey(
        name=name.strip(),
        prefix=prefix,
        key_hash=_hash(key),
        scope=scope,
        created_at=datetime.now(UTC),
        all_quotes=all_quotes,
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    return CreatedKey(row.id, row.name, scope, key, prefix, all_quotes)


def quote_viewer(key: ApiKey | None) -> QuoteViewer | None:
    """Whose quotes a caller with `key` sees; None (no key) sees none."""
    if key is None:
        return None
    return QuoteViewer(key.id, key.all_quotes)


def verify_key(session: Session, key: str) -> ApiKey | None:
    """The live key row for `key`, or None (unknown, malformed or revoked)."""
    parts = key.split("_", 2)
    if len(parts) != 3 or parts[0] != KEY_PREFIX:
        return None
    row = session.exec(select(ApiKey).where(ApiKey.prefix == parts[1])).first()
    if row is None or row.revoked_at is not None:
        return None
    return row if hmac.compare_digest(row.key_hash, _hash(key)) else None


def revoke_key(session: Session, key_id: int) -> bool:
    row = session.get(ApiKey, key_id)
    if row is None or row.revoked_at is not None:
        return False
    row.revoked_at = datetime.now(UTC)
    session.add(row)
    # Nobody can manage a revoked key's alerts any more, so they stop with it.
    owned = session.exec(select(Alert).where(Alert.owner_key_id == key_id, Alert.enabled == True))  # noqa: E712
    for alert in owned:
        alert.enabled = False
        alert.disabled_reason = "the API key that owns this alert was revoked"
        alert.updated_at = row.revoked_at
        session.add(alert)
    session.flush()
    return True


def list_keys(session: Session) -> list[ApiKey]:
    return list(session.exec(select(ApiKey).order_by(ApiKey.id)))  # type: ignore[arg-type]
