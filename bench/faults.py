"""kill -9 of `make run`'s server (the embedded default: SQLite, in-process jobs) during a
migration, a burst of price writes, a recompute and a webhook delivery; after each kill
the server is started again and must catch up by itself. Prints, per kill point: kills,
restarts that served, acknowledged writes lost, jobs lost, duplicate webhooks.

"Jobs lost" counts stored prices newer than the last recompute once the queue is empty
(their recompute never ran); "scores off" counts stored score rows that differ from a
full recompute of the stored prices on a snapshot of the database (a half-done or lost
recompute of market prices).

    .venv/bin/python bench/faults.py [--kills 3] [--points migration,write,recompute,delivery]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shared.kit.db import make_engine, session_scope  # noqa: E402
from shared.kit.settings import Settings  # noqa: E402
from tests.processes import Service, free_port, wait_for  # noqa: E402
from tests.receiver import Receiver  # noqa: E402

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
# Used prices near each card's market, so none is quarantined as an outlier.
GPUS = {"rtx-3090": 700, "rtx-4090": 1700, "rtx-3080-10gb": 400, "a100-80gb-pcie": 9000}


@dataclass
class Outcome:
    point: str
    kills: int = 0
    restarts_served: int = 0
    acknowledged: int = 0
    acknowledged_lost: int = 0
    jobs_lost: int = 0
    scores_off: int = 0
    webhooks: int = 0
    duplicates: int = 0
    missing: int = 0
    notes: list[str] = field(default_factory=list)


class Server:
    """`gpu-advisor serve` on a SQLite file: the command `make run` runs."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.db = directory / "app.db"
        self.url = f"sqlite:///{self.db}"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.service: Service | None = None
        self.starts = 0

    def env(self, fault: str = "") -> dict[str, str]:
        return {
            "GPU_ADVISOR_ENVIRONMENT": "test",
            "GPU_ADVISOR_DATA_DIR": str(self.directory),
            "GPU_ADVISOR_DATABASE_URL": self.url,
            "GPU_ADVISOR_FAULT_INJECTION": fault,
            # The catch-up must come from the job queue, not the daily full recompute.
            "GPU_ADVISOR_FULL_RECOMPUTE_ON_START": "false",
            "GPU_ADVISOR_WEBHOOK_ALLOWLIST": "127.0.0.1",
            "GPU_ADVISOR_ALERT_DISPATCH_INTERVAL_S": "0.5",
            "GPU_ADVISOR_WEBHOOK_RETRY_SCHEDULE_S": "1,1,1,1,1,1,1,1,1,1",
            "GPU_ADVISOR_WEBHOOK_LEASE_S": "3",
            "GPU_ADVISOR_JOB_RESUME_INTERVAL_S": "1",
            "GPU_ADVISOR_RATE_LIMIT_PER_MINUTE": "100000",
        }

    def start(self, fault: str = "") -> Server:
        self.starts += 1
        command = f"gpu-advisor serve --host 127.0.0.1 --port {self.port}"
        name = f"serve-{self.starts}"
        self.service = Service(name, command, self.env(fault), self.directory).start()
        return self

    def healthy(self, timeout: float = 120) -> bool:
        try:
            wait_for(
                lambda: httpx.get(f"{self.base}/health", timeout=2).status_code == 200,
                timeout,
                "the server",
            )
        except TimeoutError:
            return False
        return True

    def kill(self) -> None:
        if self.service is not None:
            self.service.kill()

    def stop(self) -> None:
        if self.service is not None:
            self.service.stop()

    def sql(self, query: str, *args: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.db, timeout=30) as db:
            return list(db.execute(query, args).fetchall())

    def queue_empty(self) -> bool:
        try:
            rows = self.sql("SELECT count(*) FROM queued_job WHERE failed_at IS NULL")
        except sqlite3.OperationalError:
            return False
        return bool(rows[0][0] == 0)

    def write_key(self) -> tuple[str, int]:
        """A write key's token and id."""
        from shared.alerts.keys import create_key

        engine = make_engine(self.url)
        with session_scope(engine) as session:
            key = create_key(session, f"bench-{time.monotonic_ns()}", "write")
        engine.dispose()
        return key.key, key.id


def post_price(base: str, key: str, gpu: str, usd: float, listing: str) -> int:
    """POST one used price; the status code."""
    return _post_price(base, key, gpu, usd, listing).status_code


def post_ok(base: str, key: str, gpu: str, usd: float, listing: str) -> None:
    response = _post_price(base, key, gpu, usd, listing)
    if response.status_code != 201:
        raise RuntimeError(f"POST /prices: {response.status_code} {response.text[:300]}")


def _post_price(base: str, key: str, gpu: str, usd: float, listing: str) -> httpx.Response:
    body = {
        "gpu_id": gpu,
        "usd": f"{usd:.2f}",
        "condition": "used",
        "source": "bench-faults",
        "url": f"https://example.com/{listing}",
    }
    headers = {"authorization": f"Bearer {key}"}
    return httpx.post(f"{base}/prices", json=body, headers=headers, timeout=30)


def jobs_lost(server: Server) -> int:
    """Stored prices newer than the last recompute: work the queue never ran."""
    [(computed_at,)] = server.sql("SELECT computed_at FROM score_state WHERE id = 1")
    rows = server.sql(
        "SELECT count(*) FROM price_observation WHERE source = 'bench-faults' AND observed_at > ?",
        computed_at,
    )
    return int(rows[0][0])


def scores_off(server: Server) -> int:
    """Score rows that differ from a full recompute of the stored prices."""
    from sqlmodel import select

    from shared.models import Score
    from shared.perfmodel.registry import get_model
    from shared.scoring.compute import recompute_scores

    snapshot = server.directory / f"snapshot-{time.monotonic_ns()}.db"
    with sqlite3.connect(server.db) as source, sqlite3.connect(snapshot) as target:
        source.backup(target)
    engine = make_engine(f"sqlite:///{snapshot}")

    def scores() -> set[tuple[Any, ...]]:
        with session_scope(engine) as session:
            return {
                (s.gpu_id, s.task, s.precision, s.condition, s.price_usd, s.price_n)
                for s in session.exec(select(Score))
            }

    stored = scores()
    settings = Settings(database_url=f"sqlite:///{snapshot}", environment="test")
    with session_scope(engine) as session:
        recompute_scores(session, None, model=get_model(), settings=settings)
    fresh = scores()
    engine.dispose()
    snapshot.unlink()
    return len(stored - fresh) + max(0, len(fresh) - len(stored))


def catch_up(server: Server, outcome: Outcome) -> None:
    served = server.healthy()
    outcome.restarts_served += served
    if not served:
        outcome.notes.append(
            f"restart did not serve: {server.service and server.service.log_tail(5)}"
        )
        return
    try:
        wait_for(server.queue_empty, 120, "the queue to empty")
    except TimeoutError:
        outcome.notes.append("queue did not empty")
    outcome.jobs_lost += jobs_lost(server)
    outcome.scores_off += scores_off(server)


def kill_in_migration(directory: Path, kills: int) -> Outcome:
    """A kill -9 at a random moment of the first start (migrations, seeding, scores)."""
    outcome = Outcome("migration")
    rng = random.Random(7)
    for i in range(kills):
        server = Server(directory / f"migration-{i}")
        server.directory.mkdir()
        server.start()
        time.sleep(rng.uniform(0.8, 4.0))
        server.kill()
        outcome.kills += 1
        server.start()
        catch_up(server, outcome)
        server.stop()
    return outcome


def write_prices(
    server: Server, key: str, name: str, stop: threading.Event, acknowledged: list[str]
) -> None:
    """POST prices until stopped or the server is gone; note the listings answered 201."""
    local = random.Random(name)
    j = 0
    while not stop.is_set():
        gpu = local.choice(list(GPUS))
        listing = f"{name}-{j}"
        j += 1
        try:
            usd = GPUS[gpu] * local.uniform(0.9, 1.1)
            if post_price(server.base, key, gpu, usd, listing) == 201:
                acknowledged.append(listing)
        except httpx.HTTPError:
            return


def start_writers(
    server: Server, key: str, name: str, stop: threading.Event, acknowledged: list[str]
) -> list[threading.Thread]:
    """Two clients writing prices until `stop` is set."""
    threads = [
        threading.Thread(target=write_prices, args=(server, key, f"{name}-{n}", stop, acknowledged))
        for n in range(2)
    ]
    for thread in threads:
        thread.start()
    return threads


def kill_in_writes(server: Server, key: str, kills: int) -> Outcome:
    """kill -9 during a burst of POST /prices from two clients."""
    outcome = Outcome("write")
    rng = random.Random(11)
    for i in range(kills):
        acknowledged: list[str] = []
        stop = threading.Event()
        threads = start_writers(server, key, f"w{i}", stop, acknowledged)
        time.sleep(rng.uniform(1.0, 3.0))
        server.kill()
        outcome.kills += 1
        stop.set()
        for thread in threads:
            thread.join()
        server.start()
        catch_up(server, outcome)
        stored = {
            row[0].rsplit("/", 1)[1]
            for row in server.sql("SELECT url FROM price_observation WHERE source = 'bench-faults'")
        }
        outcome.acknowledged += len(acknowledged)
        outcome.acknowledged_lost += len(set(acknowledged) - stored)
    return outcome


def kill_in_recompute(server: Server, key: str, kills: int) -> Outcome:
    """kill -9 while the recompute of a new price is running (paused midway)."""
    outcome = Outcome("recompute")
    for i in range(kills):
        server.stop()
        server.start("recompute-pause:30")
        server.healthy()
        post_ok(server.base, key, "rtx-3090", 640 + i, f"r{i}")
        wait_for(
            lambda: server.sql("SELECT count(*) FROM queued_job WHERE claimed_by IS NOT NULL")[0][
                0
            ],
            60,
            "the recompute to start",
        )
        server.kill()
        outcome.kills += 1
        left = server.sql("SELECT name FROM queued_job")
        outcome.notes.append(f"left queued: {sorted({n for (n,) in left})}")
        server.start()
        catch_up(server, outcome)
    return outcome


def received_more(receiver: Receiver, before: int) -> bool:
    return len(receiver.received) > before


def kill_in_delivery(server: Server, key: str, key_id: int, kills: int) -> Outcome:
    """kill -9 after a webhook was POSTed and before its delivery was recorded."""
    from shared.alerts.models import Alert

    outcome = Outcome("delivery")
    receiver = Receiver().start()
    try:
        for i in range(kills):
            server.stop()
            server.start("deliver-pause:30")
            server.healthy()
            engine = make_engine(server.url)
            now = datetime.now(UTC)
            gpu = list(GPUS)[i % len(GPUS)]
            trigger = {
                "type": "price_below",
                "gpu_id": gpu,
                "condition": "any",
                "max_price_usd": str(GPUS[gpu] * 3),
            }
            with session_scope(engine) as session:
                alert = Alert(
                    id=f"alr_fault_{i}",
                    owner_key_id=key_id,
                    url=receiver.url,
                    trigger_type="price_below",
                    trigger=json.dumps(trigger),
                    secret=SECRET,
                    cooldown_s=86400,
                    created_at=now,
                    updated_at=now,
                )
                session.add(alert)
            engine.dispose()
            before = len(receiver.received)
            post_ok(server.base, key, gpu, GPUS[gpu], f"d{i}")
            wait_for(partial(received_more, receiver, before), 60, "the webhook")
            server.kill()
            outcome.kills += 1
            server.start()
            catch_up(server, outcome)
            wait_for(
                lambda: not server.sql("SELECT id FROM alert_event WHERE status = 'pending'"),
                60,
                "delivery",
            )
        ids = Counter(r.headers.get("webhook-id") for r in receiver.received)
        expected = {row[0] for row in server.sql("SELECT webhook_id FROM alert_event")}
        outcome.webhooks = len(expected)
        outcome.duplicates = sum(n - 1 for n in ids.values())
        outcome.missing = len(expected - set(ids))
    finally:
        receiver.stop()
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--points", default="migration,write,recompute,delivery")
    args = parser.parse_args()
    points = args.points.split(",")
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-faults-") as tmp:
        directory = Path(tmp)
        if "migration" in points:
            outcomes.append(kill_in_migration(directory, args.kills))
        server = Server(directory)
        server.start()
        server.healthy()
        key, key_id = server.write_key()
        try:
            if "write" in points:
                outcomes.append(kill_in_writes(server, key, args.kills))
            if "recompute" in points:
                outcomes.append(kill_in_recompute(server, key, args.kills))
            if "delivery" in points:
                outcomes.append(kill_in_delivery(server, key, key_id, args.kills))
        finally:
            server.stop()
    print(
        "| kill -9 during | kills | restarts that served | acknowledged writes lost | "
        "jobs lost | scores off | webhooks | duplicates | missing |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for o in outcomes:
        lost = f"{o.acknowledged_lost} of {o.acknowledged}" if o.point == "write" else "-"
        hooks = (
            (str(o.webhooks), str(o.duplicates), str(o.missing))
            if o.point == "delivery"
            else ("-", "-", "-")
        )
        print(
            f"| {o.point} | {o.kills} | {o.restarts_served} | {lost} | {o.jobs_lost} | "
            f"{o.scores_off} | {' | '.join(hooks)} |"
        )
    for o in outcomes:
        for note in o.notes:
            print(f"{o.point}: {note}")


if __name__ == "__main__":
    main()
