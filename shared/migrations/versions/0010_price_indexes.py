"""price indexes: market windows and history pages without reading a GPU's whole history

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 07:30:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# (gpu, kind, condition, time): the newest scraped price of a GPU and condition is one
# index lookup, and its market window one range (shared/pricing/window.py).
# (gpu, time, id, quarantined): GET /gpus/{id}/prices pages newest first without sorting
# the history, a month of a GPU's prices (the quarantine reference) is one range, and the
# recompute's watermark (max id, count, quarantined) is read from the index alone.
# (time): the newest price of all (each recompute's prices_as_of) without a table scan.
# (gpu, time) on cloud offers: only offers young enough to be current are read.
# Plain CREATE INDEX (not CONCURRENTLY): the upgrade stays one transaction.
def upgrade() -> None:
    with op.batch_alter_table("price_observation") as batch:
        batch.create_index(
            "ix_price_gpu_kind_condition_time",
            ["gpu_id", "kind", "condition", "observed_at"],
            unique=False,
        )
        batch.create_index(
            "ix_price_gpu_time_id", ["gpu_id", "observed_at", "id", "quarantined"], unique=False
        )
        batch.create_index("ix_price_time", ["observed_at"], unique=False)
    with op.batch_alter_table("cloud_offer") as batch:
        batch.create_index("ix_cloud_gpu_time", ["gpu_id", "observed_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("cloud_offer") as batch:
        batch.drop_index("ix_cloud_gpu_time")
    with op.batch_alter_table("price_observation") as batch:
        batch.drop_index("ix_price_time")
        batch.drop_index("ix_price_gpu_time_id")
        batch.drop_index("ix_price_gpu_kind_condition_time")
