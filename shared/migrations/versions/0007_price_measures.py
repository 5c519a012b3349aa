"""price measures: what each stored price measures; cloud rows in the ranking

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 06:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Rows stored before prices carried a measure get it from their kind and source: launch
# prices are list prices, manual entries quotes, eBay sold records sales, Tom's Hardware
# rows monthly sold averages, everything else (listings, Amazon Buy Box) asking prices.
_BACKFILL = (
    "UPDATE price_observation SET measure = CASE"
    " WHEN kind = 'msrp' THEN 'list_price'"
    " WHEN kind = 'manual' THEN 'quote'"
    # "\\:" keeps SQLAlchemy from reading ":sold" as a bind parameter.
    " WHEN kind = 'scraped' AND source LIKE '%\\:sold' THEN 'sale'"
    " WHEN kind = 'scraped' THEN 'ask'"
    " WHEN source LIKE '%Tom''s Hardware%' THEN 'sold_average'"
    " ELSE 'ask' END"
)
_CLOUD_BACKFILL = (
    "UPDATE cloud_offer SET measure = CASE"
    " WHEN kind = 'scraped' AND provider = 'vast' THEN 'offer'"
    " WHEN provider = 'vast' THEN 'marketplace_median'"
    " ELSE 'list' END"
)


def upgrade() -> None:
    with op.batch_alter_table("price_observation") as batch:
        batch.add_column(
            sa.Column("measure", sa.String(length=24), nullable=False, server_default="ask")
        )
    op.execute(sa.text(_BACKFILL))
    with op.batch_alter_table("cloud_offer") as batch:
        batch.add_column(
            sa.Column("measure", sa.String(length=24), nullable=False, server_default="list")
        )
    op.execute(sa.text(_CLOUD_BACKFILL))
    with op.batch_alter_table("score") as batch:
        batch.add_column(
            sa.Column("price_measure", sa.String(length=24), nullable=False, server_default="")
        )
        # Cloud rows hold $/GPU-hour: cents are too coarse for $0.155/h.
        batch.alter_column(
            "price_usd",
            existing_type=sa.Numeric(12, 2),
            type_=sa.Numeric(14, 5),
            existing_nullable=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("score") as batch:
        batch.alter_column(
            "price_usd",
            existing_type=sa.Numeric(14, 5),
            type_=sa.Numeric(12, 2),
            existing_nullable=False,
        )
        batch.drop_column("price_measure")
    with op.batch_alter_table("cloud_offer") as batch:
        batch.drop_column("measure")
    with op.batch_alter_table("price_observation") as batch:
        batch.drop_column("measure")
