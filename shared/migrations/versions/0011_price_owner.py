"""price owner: the API key that posted a quote, and keys that see everyone's quotes

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# No backfill: quotes stored before this held no owner, which makes them operator quotes
# (as `gpu-advisor prices add` stores them): seen and alerted on only by keys with
# `all_quotes`. Market prices never have an owner.
# (owner, time): whether a key posted any recent quote, one index range.
def upgrade() -> None:
    with op.batch_alter_table("price_observation") as batch:
        batch.add_column(sa.Column("owner_key_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_price_owner_key_id", "api_key", ["owner_key_id"], ["id"])
        batch.create_index("ix_price_owner_time", ["owner_key_id", "observed_at"], unique=False)
    with op.batch_alter_table("api_key") as batch:
        batch.add_column(
            sa.Column("all_quotes", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("api_key") as batch:
        batch.drop_column("all_quotes")
    with op.batch_alter_table("price_observation") as batch:
        batch.drop_index("ix_price_owner_time")
        batch.drop_constraint("fk_price_owner_key_id", type_="foreignkey")
        batch.drop_column("owner_key_id")
