"""quotes

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "quote",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("standard_key", sa.String(length=64), nullable=True),
        sa.Column("gpu_ids", sa.String(length=512), nullable=False),
        sa.Column("request_json", sa.String(), nullable=False),
        sa.Column("result_json", sa.String(), nullable=False),
        sa.Column("total_usd", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("model_version", sa.String(length=64), nullable=False),
        sa.Column("prices_as_of", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("quote", schema=None) as batch_op:
        batch_op.create_index("ix_quote_standard", ["standard_key"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("quote", schema=None) as batch_op:
        batch_op.drop_index("ix_quote_standard")
    op.drop_table("quote")
