"""decisions: a /recommend answer kept with the query and the prices behind it

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-08 00:15:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# A decision is written once and read back unchanged, so its answer and prices are kept
# as the JSON text that was returned, never rebuilt from other tables.
def upgrade() -> None:
    op.create_table(
        "decision",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_key_id", sa.Integer(), nullable=False),
        sa.Column("note", sa.String(length=2000), nullable=True),
        sa.Column("query_json", sa.Text(), nullable=False),
        sa.Column("answer_json", sa.Text(), nullable=False),
        sa.Column("prices_json", sa.Text(), nullable=False),
        sa.Column("model_version", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["owner_key_id"], ["api_key.id"], name="fk_decision_owner_key_id"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.create_index("ix_decision_owner", ["owner_key_id", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.drop_index("ix_decision_owner")
    op.drop_table("decision")
