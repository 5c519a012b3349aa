"""How the API is served, over real sockets: `gpu-advisor serve` (and bare uvicorn) as
processes. Stalled clients are closed, X-Forwarded-For buys nothing unless it comes from a
configured proxy, and a second embedded API process on one data directory is refused."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.processes import Service, free_port, run_once, wait_for

pytestmark = pytest.mark.slow

ANONYMOUS_LIMIT = 3
QUOTE = {"gpu": "b200", "count": 1, "gpu_price_usd": 30000}


def _env(directory: Path, **extra: str) -> dict[str, str]:
    return {
        "GPU_ADVISOR_DATA_DIR": str(directory),
        "GPU_ADVISOR_DATABASE_URL": "",
        "GPU_ADVISOR_BROKER_URL": "",
        "GPU_ADVISOR_LOAD_BUNDLED_DATA": "false",
        # The embedded default's scheduler: one process per data directory.
        "GPU_ADVISOR_INPROCESS_SCHEDULER": "true",
        "GPU_ADVISOR_REQUEST_HEADER_TIMEOUT_S": "1",
        "GPU_ADVISOR_REQUEST_BODY_TIMEOUT_S": "1",
        "GPU_ADVISOR_ANONYMOUS_QUOTE_RATE_PER_MINUTE": str(ANONYMOUS_LIMIT),
        **extra,
    }


def _start(name: str, command: str, env: dict[str, str], logs: Path, port: int) -> Service:
    service = Service(name, command, env, logs).start()
    try:
        wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/health", timeout=2), 120, name)
    except TimeoutError:
        service.stop()
        raise AssertionError(service.log_tail()) from None
    return service


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    directory = tmp_path_factory.mktemp("served")
    port = free_port()
    command = f"gpu-advisor serve --host 127.0.0.1 --port {port}"
    service = _start("serve", command, _env(directory), directory, port)
    yield f"http://127.0.0.1:{port}", port
    service.stop()


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (the socket timeout fails a server that
    never does)."""
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def test_a_request_head_that_never_completes_gets_408_and_is_closed(served):
    _, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        assert _read_until_closed(sock).startswith(b"HTTP/1.1 408")


def test_a_slow_trickle_of_header_lines_does_not_keep_the_connection(served):
    _, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        # One header line every 0.3 s: each arrives well inside any per-read timeout, but
        # the head as a whole has a deadline.
        closed = False
        for i in range(60):
            try:
                sock.sendall(f"X-Trickle-{i}: y\r\n".encode())
            except OSError:
                closed = True
                break
            time.sleep(0.3)
        assert closed or _read_until_closed(sock).startswith(b"HTTP/1.1 408")


def test_a_connection_that_sends_nothing_is_closed(served):
    _, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        assert _read_until_closed(sock).startswith(b"HTTP/1.1 408")


def test_a_stalled_body_closes_the_connection_and_stores_nothing(served):
    base, port = served
    before = httpx.get(f"{base}/quotes", timeout=10).json()["items"]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            b"POST /quotes/cluster HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
            b"content-length: 200\r\n\r\n" + b'{"gpu": "b200"'
        )
        answer = _read_until_closed(sock)
    assert b"201" not in answer.split(b"\r\n", 1)[0]
    assert httpx.get(f"{base}/quotes", timeout=10).json()["items"] == before


def test_keep_alive_requests_still_work(served):
    base, _ = served
    with httpx.Client(base_url=base, timeout=10) as client:
        for _ in range(3):
            assert client.get("/health").status_code == 200


def _forged_quotes(base: str, count: int) -> list[int]:
    return [
        httpx.post(
            f"{base}/quotes/cluster",
            json=QUOTE,
            headers={"X-Forwarded-For": f"203.0.113.{i}"},
            timeout=30,
        ).status_code
        for i in range(count)
    ]


def test_a_forged_forwarded_for_does_not_lift_the_anonymous_limit(served):
    base, _ = served
    codes = _forged_quotes(base, ANONYMOUS_LIMIT + 2)
    assert codes[:ANONYMOUS_LIMIT] == [201] * ANONYMOUS_LIMIT
    assert codes[ANONYMOUS_LIMIT:] == [429, 429]


def test_bare_uvicorn_trusting_the_header_still_counts_one_client(tmp_path: Path):
    port = free_port()
    # uvicorn's defaults: proxy headers on, trusted from 127.0.0.1.
    command = f"uvicorn --factory services.api.app:create_app --host 127.0.0.1 --port {port}"
    service = _start("uvicorn", command, _env(tmp_path), tmp_path, port)
    try:
        codes = _forged_quotes(f"http://127.0.0.1:{port}", ANONYMOUS_LIMIT + 1)
    finally:
        service.stop()
    assert codes == [201] * ANONYMOUS_LIMIT + [429]
    assert "X-Forwarded-For" in service.log_tail(200)


def test_two_uvicorn_workers_without_a_broker_are_refused(tmp_path: Path):
    port = free_port()
    command = (
        f"uvicorn --factory services.api.app:create_app --host 127.0.0.1 --port {port} --workers 2"
    )
    # The server stops by itself (run_once would time out on a serving one; uvicorn exits
    # 0 after a worker fails to start) and says why.
    result = run_once(command, _env(tmp_path), timeout=180)
    output = result.stderr + result.stdout
    assert "already serves" in output and "GPU_ADVISOR_BROKER_URL" in output
