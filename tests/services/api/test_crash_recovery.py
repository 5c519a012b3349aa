"""kill -9 of `make run`'s server mid-recompute and mid-delivery: the next start catches up
from the job queue alone (the full recompute at start is off), as bench/faults.py does
at more kill points and more kills."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.faults import (
    Server,
    jobs_lost,
    kill_in_delivery,
    post_price,
)
from tests.processes import wait_for

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path).start()
    assert running.healthy(), running.service and running.service.log_tail()
    yield running
    running.stop()


def test_a_recompute_killed_midway_runs_at_the_next_start(server: Server) -> None:
    key, _ = server.write_key()
    server.stop()
    server.start("recompute-pause:60")
    assert server.healthy()
    assert post_price(server.base, key, "rtx-3090", 650, "killed") == 201
    wait_for(
        lambda: server.sql("SELECT count(*) FROM queued_job WHERE claimed_by IS NOT NULL")[0][0],
        60,
        "the recompute to start",
    )
    server.kill()
    # The kill left the price without its recompute, and the work in the queue.
    assert jobs_lost(server) == 1
    assert ("compute.recompute_scores",) in server.sql("SELECT name FROM queued_job")
    server.start()
    assert server.healthy()
    wait_for(server.queue_empty, 60, "the queue to empty")
    assert jobs_lost(server) == 0
    # A job given up stays in the queue, and /health counts it.
    server.sql(
        "INSERT INTO queued_job (name, args, queue, created_at, not_before, attempts,"
        " last_error, failed_at) VALUES ('alerts.evaluate', '[null]', 'alerts',"
        " '2026-12-01 00:00:00', '2026-12-01 00:00:00', 6, 'OperationalError: locked',"
        " '2026-12-01 00:10:00')"
    )
    assert httpx.get(f"{server.base}/health").json()["jobs"]["failed"] == 1


def test_a_kill_mid_delivery_loses_no_webhook(server: Server) -> None:
    key, key_id = server.write_key()
    delivery = kill_in_delivery(server, key, key_id, 1)
    assert (delivery.restarts_served, delivery.jobs_lost, delivery.missing) == (1, 0, 0)
    # At least once: the webhook POSTed before the kill and not recorded is sent again.
    assert delivery.webhooks == 1 and delivery.duplicates <= 1
