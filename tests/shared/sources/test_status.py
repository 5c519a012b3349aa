"""Which source runs may date a vanished listing as a probable sale."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from shared.sources.status import SourceStatus, last_successes

WHEN = datetime(2026, 11, 20, tzinfo=UTC)


def test_a_run_stopped_at_its_page_cap_dates_no_probable_sales(session):
    session.add(
        SourceStatus(
            name="ebay",
            interval_s=3600,
            last_success_at=WHEN,
            last_summary=json.dumps({"capped": True}),
        )
    )
    session.add(
        SourceStatus(
            name="ebay_browse",
            interval_s=3600,
            last_success_at=WHEN,
            last_summary=json.dumps({"capped": False}),
        )
    )
    session.add(SourceStatus(name="newegg", interval_s=3600, last_success_at=None))
    session.flush()
    assert last_successes(session) == {"ebay_browse": WHEN}
