"""index fit: the fitted market and rental indexes, stored with their revision

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-08 01:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# A cache of derived data: empty after the upgrade, filled by the first fit.
def upgrade() -> None:
    op.create_table(
        "index_fit",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("revision", sa.String(length=64), nullable=False),
        sa.Column("fitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("index_fit")
