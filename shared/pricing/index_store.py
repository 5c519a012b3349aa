"""Fitted indexes kept in the database, so a new process (a CLI command, a worker, a
second API process) reads the fit instead of fitting again.

A stored fit carries its revision: a hash of what the fit depends on (the fitting
code's version and source, the catalog, and the watermark of the rows it read). It
is read only under the same revision, so a fit of other data or other code is never
used. Storing is best effort: the fit is kept only if the committed data still has its
revision (a fit of a transaction's uncommitted rows is never stored), and never waits
long for a lock (it is a cache; the next miss stores it).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from shared.catalog.specs import read_catalog_rows
from shared.pricing.index_codec import StaleFit, decode, encode
from shared.pricing.models import IndexFit

log = logging.getLogger(__name__)

# Bump when what a fit means changes outside the modules digested below (their source
# is hashed into every revision, so an edit of the fitting code needs no bump).
FIT_VERSION = 1
_FIT_MODULES = (
    "shared.pricing.index",
    "shared.pricing.market",
    "shared.pricing.measures",
    "shared.pricing.index_codec",
)
# How long storing a fit may wait for a row lock on PostgreSQL. On SQLite it waits for none:
# the one write lock is often held by the very transaction that asked for the index (a
# recompute writing scores), so any wait would be spent in full and then fail.
_LOCK_WAIT_MS = 250


@cache
def code_digest() -> str:
    """FIT_VERSION, the source of the modules a fit is computed by, and the catalog (the
    cards' peer classes come from it)."""
    digest = hashlib.sha256(f"fit-version:{FIT_VERSION}".encode())
    digest.update(json.dumps(read_catalog_rows()).encode())
    for name in _FIT_MODULES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        digest.update(name.encode())
        if origin is not None and Path(origin).is_file():
            digest.update(Path(origin).read_bytes())
    return digest.hexdigest()


def revision(name: str, watermark: tuple[object, ...]) -> str:
    """The revision of a fit of index `name` on data at `watermark` (see the module doc)."""
    parts = [code_digest(), name, [str(v) for v in watermark]]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def load(session: Session, name: str, at_revision: str, home: ModuleType) -> Any | None:
    """The stored fit of `name` at exactly this revision, or None."""
    body = session.execute(
        select(IndexFit.body).where(
            col(IndexFit.name) == name, col(IndexFit.revision) == at_revision
        )
    ).scalar_one_or_none()
    if body is None:
        return None
    try:
        return decode(zlib.decompress(body).decode(), home)
    except (StaleFit, zlib.error, UnicodeDecodeError) as exc:
        # Only a code change the digest missed gets here: refit, and the save replaces it.
        log.warning("stored fit %s unreadable (%s); refitting", name, exc)
        return None


def save_later(
    session: Session,
    name: str,
    at_revision: str,
    fitted: object,
    revision_now: Callable[[Session], str],
) -> None:
    """`save` in a thread of its own on `session`'s database: encoding and writing the fit
    (0.1 s on the bundled data) stays off the path of the caller that fitted it, a
    recompute after a new price. Not a daemon: a command's process stores its fit before
    it exits."""
    bind = session.get_bind()
    engine = bind if isinstance(bind, Engine) else bind.engine
    thread = threading.Thread(
        target=save, args=(engine, name, at_revision, fitted, revision_now), name="index-store"
    )
    with _saving_lock:
        _saving.add(thread)
    thread.start()


def wait_saved(timeout_s: float = 30.0) -> None:
    """Wait for the fits being stored (tests, and a caller that needs the row)."""
    with _saving_lock:
        threads = list(_saving)
    for thread in threads:
        thread.join(timeout_s)


_saving: set[threading.Thread] = set()
_saving_lock = threading.Lock()


def save(
    engine: Engine,
    name: str,
    at_revision: str,
    fitted: object,
    revision_now: Callable[[Session], str],
) -> bool:
    """Store `fitted` as `name`'s fit at `at_revision`, in a transaction of its own, if
    the committed data still have that revision (`revision_now` reads it). False when
    not stored: the data moved on, or a lock was held, or another process stored it."""
    try:
        return _save(engine, name, at_revision, fitted, revision_now)
    except Exception:
        # A cache that could not be written must not fail whoever fitted it.
        log.exception("fit %s not stored", name)
        return False
    finally:
        with _saving_lock:
            _saving.discard(threading.current_thread())


def _save(
    engine: Engine,
    name: str,
    at_revision: str,
    fitted: object,
    revision_now: Callable[[Session], str],
) -> bool:
    try:
        body = zlib.compress(encode(fitted).encode())
    except TypeError as exc:
        # A field type the codec does not know: serve the fit, and say so.
        log.warning("fit %s not stored: %s", name, exc)
        return False
    try:
        with engine.connect() as connection, _short_lock_wait(connection):
            with connection.begin():
                with Session(bind=connection) as own:
                    if revision_now(own) != at_revision:
                        return False
                connection.execute(delete(IndexFit).where(col(IndexFit.name) == name))
                connection.execute(
                    insert(IndexFit).values(
                        name=name,
                        revision=at_revision,
                        fitted_at=datetime.now(UTC),
                        body=body,
                    )
                )
    except SQLAlchemyError as exc:
        log.info("fit %s not stored (%s); the next miss stores it", name, exc.__class__.__name__)
        return False
    return True


@contextmanager
def _short_lock_wait(connection: Connection) -> Iterator[None]:
    """Wait for no lock on SQLite (the connection's busy timeout, restored after), at most
    _LOCK_WAIT_MS for a row lock on PostgreSQL."""
    if connection.dialect.name == "sqlite":
        before = int(connection.exec_driver_sql("PRAGMA busy_timeout").scalar() or 0)
        setting, reset = "PRAGMA busy_timeout = 0", f"PRAGMA busy_timeout = {before}"
    else:
        setting, reset = f"SET lock_timeout = '{_LOCK_WAIT_MS}ms'", "RESET lock_timeout"
    # Session level on both (SET LOCAL would have to follow the transaction's BEGIN).
    connection.exec_driver_sql(setting)
    connection.commit()
    try:
        yield
    finally:
        connection.exec_driver_sql(reset)
        connection.commit()
