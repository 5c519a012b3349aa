"""score price band: today's price with its band, estimates and the unranked

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 19:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Score rows are recomputed from the prices at every start whose model or data changed,
# so the new columns need no backfill beyond their defaults: the next recompute fills them.
def upgrade() -> None:
    with op.batch_alter_table("score") as batch:
        batch.add_column(sa.Column("price_band_low", sa.Numeric(14, 5), nullable=True))
        batch.add_column(sa.Column("price_band_high", sa.Numeric(14, 5), nullable=True))
        batch.add_column(
            sa.Column("price_estimated", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("price_basis", sa.String(length=512), nullable=True))
        batch.add_column(sa.Column("price_last_usd", sa.Numeric(14, 5), nullable=True))
        batch.add_column(
            sa.Column("price_last_observed_at", sa.DateTime(timezone=True), nullable=True)
        )
        batch.add_column(sa.Column("price_note", sa.String(length=512), nullable=True))
        batch.add_column(sa.Column("unranked_reason", sa.String(length=512), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("score") as batch:
        for name in (
            "unranked_reason",
            "price_note",
            "price_last_observed_at",
            "price_last_usd",
            "price_basis",
            "price_estimated",
            "price_band_high",
            "price_band_low",
        ):
            batch.drop_column(name)
