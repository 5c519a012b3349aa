"""The quote check of POST /prices/check and `gpu-advisor prices check`, with its `as_of`:
as of a past date the band, verdict and alternatives come from Score rows computed in
memory over the prices observed by the end of that day (shared/scoring/score_rows.py),
and the answer names the day and the (current) model."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from shared.kit.settings import Settings
from shared.perfmodel.base import PerformanceModel
from shared.pricing.quarantine import QuarantineRules
from shared.scoring.as_of import parse_as_of
from shared.scoring.price_check import MarketRules, check_price
from shared.scoring.schemas import PriceCheckOut, PriceCheckRequest
from shared.scoring.score_rows import ScoreRows


def check_quote(
    session: Session,
    req: PriceCheckRequest,
    settings: Settings,
    model: PerformanceModel,
    now: datetime,
) -> PriceCheckOut:
    """The check today, or as of `req.as_of` (an InputError names as_of and the range)."""
    rules = QuarantineRules.from_settings(settings)
    market = MarketRules.from_settings(settings)
    as_of = parse_as_of(session, req.as_of, now)
    if as_of is None:
        return check_price(session, req, rules, now, market_rules=market)
    rows = ScoreRows(session, as_of, model, settings)
    answer = check_price(session, req, rules, as_of.now, market_rules=market, score_rows=rows)
    return answer.model_copy(update={**as_of.fields(model.version), "model_version": model.version})
