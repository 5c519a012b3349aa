"""Migration 0007 gives rows stored before it the measure they had implicitly."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, text

from shared.kit.db import alembic_config

ROWS = [
    ("msrp", "GPU catalog launch MSRP", "list_price"),
    ("manual", "Acme quote 42", "quote"),
    ("scraped", "ebay:sold", "sale"),
    ("scraped", "ebay", "ask"),
    ("snapshot", "Tom's Hardware monthly eBay sold averages", "sold_average"),
    ("snapshot", "Amazon.com New Buy Box via Keepa", "ask"),
]


def test_rows_stored_before_measures_get_theirs(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0006")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO gpu (id, name, vendor, segment, architecture, form_factor,"
                " release_date, memory_gb, memory_bandwidth_gbs, tdp_w, geforce_eula, sources,"
                " notes) VALUES ('rtx-3090', 'RTX 3090', 'NVIDIA', 'consumer', 'Ampere',"
                " 'pcie', '2020-09-24', 24, 936, 350, 1, '', '')"
            )
        )
        for n, (kind, source, _) in enumerate(ROWS):
            conn.execute(
                text(
                    "INSERT INTO price_observation (gpu_id, condition, price, currency,"
                    " price_usd, kind, source, listing_id, quantity, observed_at, quarantined)"
                    " VALUES ('rtx-3090', 'used', 100, 'USD', 100, :kind, :source, :id, 1,"
                    " '2026-01-01 00:00:00', 0)"
                ),
                {"kind": kind, "source": source, "id": str(n)},
            )
    command.upgrade(alembic_config(url), "head")
    with engine.connect() as conn:
        found = conn.execute(
            text("SELECT kind, source, measure FROM price_observation ORDER BY listing_id")
        ).all()
    engine.dispose()
    assert [tuple(row) for row in found] == ROWS
