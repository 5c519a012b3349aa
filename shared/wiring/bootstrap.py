"""First-start preparation: schema, bundled data, scores."""

from __future__ import annotations

import logging

from sqlmodel import Session, col, select

from shared.kit.context import Context
from shared.kit.db import migrate
from shared.models import Score, ScoreState
from shared.quotes.jobs import recompute_standard_quotes
from shared.scoring.compute import recompute_scores
from shared.seed import seed_all

log = logging.getLogger(__name__)


def prepare_database(ctx: Context) -> None:
    """Migrate, load the bundled data, and recompute scores when they are out of date."""
    settings, model = ctx.settings, ctx.model
    migrate(str(ctx.engine.url.render_as_string(hide_password=False)), settings)
    with ctx.session() as session:
        changed = False
        if settings.load_bundled_data:
            result = seed_all(session)
            changed = result.changed
            log.info("bundled data: %s", result)
        state = session.exec(select(ScoreState)).first()
        if (
            changed
            or state is None
            or state.model_version != model.version
            or _scores_without_band(session)
        ):
            recomputed = recompute_scores(session, model=model, settings=settings)
            log.info("recomputed %d score rows (%s)", recomputed.rows, recomputed.model_version)
            quotes = recompute_standard_quotes(session, None, settings, model)
            log.info("standard quotes: %d updated", len(quotes["updated"]))


def _scores_without_band(session: Session) -> bool:
    """Score rows written before prices carried a band (migration 0012): a ranking needs
    them recomputed once, whatever else changed."""
    query = select(Score.id).where(
        col(Score.price_band_low).is_(None), col(Score.unranked_reason).is_(None)
    )
    return session.exec(query.limit(1)).first() is not None
