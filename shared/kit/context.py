"""What domain and job code is handed instead of reaching for process-wide globals.

The API (`create_app(settings)`), the CLI and each Celery worker build one Context at
their entry point (`shared.wiring.runtime.open_context`); everything below receives it, so a
second app on another database never writes to the first one's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.engine import Engine
from sqlmodel import Session

from shared.kit.db import session_scope
from shared.kit.events import Dispatcher, bind_dispatcher
from shared.kit.settings import Settings

if TYPE_CHECKING:
    # For type checking only: the kit imports no domain at run time.
    from shared.perfmodel.classmodel import ClassModel


@dataclass(frozen=True, slots=True)
class Context:
    settings: Settings
    engine: Engine
    model: ClassModel
    # Where work enqueued by this context's sessions goes (Celery or in-process).
    dispatcher: Dispatcher

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One unit of work on this context's database; enqueued work goes to its
        dispatcher after the commit."""
        with session_scope(self.engine) as session:
            bind_dispatcher(session, self.dispatcher)
            yield session
