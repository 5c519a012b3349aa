"""The embedded default under a burst of writes: `make run`'s server takes POST /prices from
two clients for a while; prints the writes acknowledged, the recompute runs they cost (calls
queued together run once) and how long the queue takes to empty after the last write,
as a ratio of the burst's length.

    .venv/bin/python bench/backlog.py [--seconds 30]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.faults import Server, start_writers  # noqa: E402
from tests.processes import wait_for  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-backlog-") as tmp:
        server = Server(Path(tmp)).start()
        try:
            if not server.healthy():
                raise SystemExit(server.service.log_tail() if server.service else "no server")
            key, _ = server.write_key()
            [(revision_before,)] = server.sql("SELECT revision FROM score_state WHERE id = 1")
            acknowledged: list[str] = []
            stop = threading.Event()
            start = time.monotonic()
            clients = start_writers(server, key, "b", stop, acknowledged)
            time.sleep(args.seconds)
            stop.set()
            for client in clients:
                client.join()
            burst = time.monotonic() - start
            last_write = time.monotonic()
            wait_for(server.queue_empty, 600, "the queue to empty", interval=0.05)
            drain = time.monotonic() - last_write
            [(revision_after,)] = server.sql("SELECT revision FROM score_state WHERE id = 1")
        finally:
            server.stop()
    runs = revision_after - revision_before
    print(f"burst: {burst:.1f} s, {len(acknowledged)} writes acknowledged")
    print(f"recompute runs: {runs} ({len(acknowledged) / max(runs, 1):.1f} writes per run)")
    print(f"queue empty {drain:.2f} s after the last write ({drain / burst:.3f}x the burst)")


if __name__ == "__main__":
    main()
