"""A tiny run of the scale bench's measurements, so the bench cannot rot (no timings)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import httpx
import pytest
from fastapi.testclient import TestClient

from bench.scale import (
    Figures,
    full_recompute_seconds,
    history_after_a_price,
    history_latencies,
    parse_args,
    quote_to_recommend,
    report,
    scraped_to_recommend,
)
from bench.scale_data import ScaleSpec, insert_all
from services.api.app import create_app
from shared.alerts.keys import create_key
from shared.kit.db import make_engine, migrate, session_scope
from shared.seed import seed_catalog
from tests.conftest import make_settings


def test_each_measurement_runs_on_a_small_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'scale.db'}"
    # Eager in-process jobs: each price's recompute is done when its commit returns.
    settings = make_settings(url, tmp_path, inprocess_mode="eager", load_bundled_data=False)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    insert_all(engine, ScaleSpec(3000, end=end))
    with session_scope(engine) as session:
        key = create_key(session, "bench", "write").key
    engine.dispose()
    assert full_recompute_seconds(settings, runs=1) > 0
    with TestClient(create_app(settings)) as test_client:
        client = cast(httpx.Client, test_client)  # an httpx client at run time
        assert len(history_latencies(client, rounds=1)) == 40
        assert len(quote_to_recommend(client, key, changes=2)) == 2
        assert len(scraped_to_recommend(client, settings, changes=2)) == 2
        after, again = history_after_a_price(client, settings, samples=2)
        assert len(after) == len(again) == 2


def test_the_report_prints_growth_between_the_smallest_and_largest_size(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = parse_args(["--sizes", "10,1000", "--changes", "3"])
    assert (args.sizes, args.changes, args.paths) == ("10,1000", 3, "recompute,recommend,history")
    assert parse_args(["--paths", "history"]).paths == "history"
    report(
        [
            Figures(10, 1.0, (10, 20), (10, 30), (5, 10), (8, 10), (4, 5)),
            Figures(1000, 3.0, (15, 40), (12, 60), (6, 20), (20, 30), (5, 10)),
        ]
    )
    out = capsys.readouterr().out
    assert "growth 10 -> 1000 rows (100x data): recompute 3.00x" in out
    assert "quote->recommend p95 2.00x" in out and "history p95 2.00x" in out
    assert "history after a price p95 3.00x" in out
    # The first page after a price against the same page again, in the same run.
    assert "1000 rows: first history page after a price / again: p50 4.00x, p95 3.00x" in out
