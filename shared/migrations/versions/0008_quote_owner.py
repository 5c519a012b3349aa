"""quote owner: the API key that made a quote

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# No backfill: rows stored before this held no owner. The standard job's quotes keep
# their `standard_key` (still listed as standard); every other row gets no owner, which
# makes it anonymous: unlisted, reachable only by its id.
def upgrade() -> None:
    with op.batch_alter_table("quote") as batch:
        batch.add_column(sa.Column("owner_key_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_quote_owner_key_id", "api_key", ["owner_key_id"], ["id"])
        batch.create_index("ix_quote_owner", ["owner_key_id", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("quote") as batch:
        batch.drop_index("ix_quote_owner")
        batch.drop_constraint("fk_quote_owner_key_id", type_="foreignkey")
        batch.drop_column("owner_key_id")
