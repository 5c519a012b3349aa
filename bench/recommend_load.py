"""Load /recommend and /health on one server with the same concurrency and duration.

Prints requests/s and p50/p99 latency of both, and the /recommend : /health ratio.
Rounds alternate between the endpoints so machine noise hits both alike.

    .venv/bin/python bench/recommend_load.py                # starts its own server
    .venv/bin/python bench/recommend_load.py --url http://127.0.0.1:8000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

QUERY = "/recommend?task=cv&memory_gb=24"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server() -> Iterator[str]:
    port = _free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        env = {**os.environ, "GPU_ADVISOR_DATA_DIR": data_dir}
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(url)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)


def _wait_ready(url: str) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError("server did not start")


async def _worker(client: httpx.AsyncClient, path: str, until: float, out: list[float]) -> None:
    n = 0
    while time.perf_counter() < until:
        n += 1
        # --uncached: a distinct, result-neutral budget per request defeats the answer cache.
        target = path.replace("{n}", f"{id(out) % 1000}{n}")
        start = time.perf_counter()
        response = await client.get(target)
        response.raise_for_status()
        out.append(time.perf_counter() - start)


async def _round(url: str, path: str, concurrency: int, seconds: float) -> list[float]:
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:
        await client.get(path)  # warm the connection and the server's caches
        until = time.perf_counter() + seconds
        await asyncio.gather(*(_worker(client, path, until, latencies) for _ in range(concurrency)))
    return latencies


def _summary(latencies: list[float], seconds: float) -> tuple[float, float, float]:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return len(ordered) / seconds, statistics.median(ordered) * 1000, p99 * 1000


def run(url: str, concurrency: int, seconds: float, rounds: int, uncached: bool) -> None:
    query = QUERY + "&budget_usd=1000000{n}" if uncached else QUERY
    results: dict[str, list[float]] = {"/health": [], query: []}
    for _ in range(rounds):
        for path in results:
            results[path].extend(asyncio.run(_round(url, path, concurrency, seconds)))
    total = seconds * rounds
    stats = {path: _summary(lat, total) for path, lat in results.items()}
    print(f"concurrency {concurrency}, {rounds} alternating rounds of {seconds:g} s per endpoint")
    for path, (rps, p50, p99) in stats.items():
        print(f"{path[:60]:60s} {rps:8.1f} req/s   p50 {p50:6.1f} ms   p99 {p99:6.1f} ms")
    ratio = stats[query][0] / stats["/health"][0]
    print(f"ratio /recommend : /health throughput = {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="an already running server; default: start one")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--uncached", action="store_true", help="make every /recommend query distinct"
    )
    args = parser.parse_args()
    if args.url:
        run(args.url, args.concurrency, args.seconds, args.rounds, args.uncached)
        return
    with server() as url:
        run(url, args.concurrency, args.seconds, args.rounds, args.uncached)


if __name__ == "__main__":
    main()
