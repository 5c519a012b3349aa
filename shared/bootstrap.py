"""First-start preparation: schema, bundled data, scores."""

from __future__ import annotations

import logging

from sqlalchemy.engine import Engine
from sqlmodel import select

from shared.db import migrate, session_scope
from shared.models import ScoreState
from shared.perfmodel.registry import get_model
from shared.quotes.jobs import recompute_standard_quotes
from shared.scoring.compute import recompute_scores
from shared.seed import seed_all
from shared.settings import Settings

log = logging.getLogger(__name__)


def prepare_database(engine: Engine, settings: Settings) -> None:
    """Migrate, load the bundled data, and recompute scores when they are out of date."""
    migrate(str(engine.url.render_as_string(hide_password=False)))
    with session_scope(engine) as session:
        changed = False
        if settings.load_bundled_data:
            result = seed_all(session)
            changed = result.changed
            log.info("bundled data: %s", result)
        state = session.exec(select(ScoreState)).first()
        if changed or state is None or state.model_version != get_model().version:
            recomputed = recompute_scores(session, settings=settings)
            log.info("recomputed %d score rows (%s)", recomputed.rows, recomputed.model_version)
            quotes = recompute_standard_quotes(session, None, settings)
            log.info("standard quotes: %d updated", len(quotes["updated"]))
