"""A real HTTP server on 127.0.0.1 serving sample pages and scripted failures.

Routes map a path (query ignored) to a behaviour: a function of the recorded
request and how many times the path was hit before, returning a `Reply`.
Every request is recorded (method, path, query, headers, monotonic time).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

SAMPLES_DIR = Path(__file__).parent / "samples"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".csv": "text/csv; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: bytes
    at: float

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    # Seconds to stall before answering: longer than the client timeout = a hung connection.
    delay_s: float = 0.0


Behaviour = Callable[[RecordedRequest, int], Reply]


def reply(status: int = 200, body: bytes | str = b"", **headers: str) -> Behaviour:
    data = body.encode() if isinstance(body, str) else body
    fixed = Reply(status, data, {k.replace("_", "-"): v for k, v in headers.items()})
    return lambda _request, _nth: fixed


def sample_file(site: str, name: str) -> Behaviour:
    path = SAMPLES_DIR / site / name
    content_type = CONTENT_TYPES[path.suffix]
    return reply(200, path.read_bytes(), Content_Type=content_type)


def sequence(*behaviours: Behaviour) -> Behaviour:
    """The nth request gets the nth behaviour; the last one repeats."""

    def run(request: RecordedRequest, nth: int) -> Reply:
        return behaviours[min(nth, len(behaviours) - 1)](request, nth)

    return run


def fail_first(count: int, status: int, then: Behaviour) -> Behaviour:
    return sequence(*[reply(status, f"error {status}")] * count, then)


def slow(seconds: float, body: bytes = b"slow") -> Behaviour:
    delayed = Reply(200, body, {"Content-Type": "text/plain"}, delay_s=seconds)
    return lambda _request, _nth: delayed


def hang(seconds: float) -> Behaviour:
    stalled = Reply(200, b"too late", {"Content-Type": "text/plain"}, delay_s=seconds)
    return lambda _request, _nth: stalled


def conditional(
    body: bytes | str, *, etag: str | None = None, last_modified: str | None = None
) -> Behaviour:
    """200 with validators; 304 when the request's If-None-Match / If-Modified-Since match."""
    data = body.encode() if isinstance(body, str) else body
    validators = {"ETag": etag, "Last-Modified": last_modified}
    headers = {k: v for k, v in validators.items() if v is not None}
    headers["Content-Type"] = "text/html; charset=utf-8"

    def run(request: RecordedRequest, _nth: int) -> Reply:
        etag_hit = etag is not None and request.header("If-None-Match") == etag
        date_hit = (
            last_modified is not None and request.header("If-Modified-Since") == last_modified
        )
        if etag_hit or date_hit:
            return Reply(304, b"", {k: v for k, v in headers.items() if k != "Content-Type"})
        return Reply(200, data, headers)

    return run


class FixtureServer:
    def __init__(self) -> None:
        self.routes: dict[str, Behaviour] = {}
        self.requests: list[RecordedRequest] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._hits: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown (one per test) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def route(self, path: str, behaviour: Behaviour) -> None:
        self.routes[path] = behaviour

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def start(self) -> None:
        self._thread.start()

    def __enter__(self) -> FixtureServer:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _answer(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            nth = self._hits[request.path]
            self._hits[request.path] += 1
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        behaviour = self.routes.get(request.path, reply(404, "not found"))
        answer = behaviour(request, nth)
        if answer.delay_s:
            self._stopping.wait(answer.delay_s)
        return answer

    def _done(self) -> None:
        with self._lock:
            self._in_flight -= 1


def _handler_for(server: FixtureServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output quiet

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            headers = {k.lower(): v for k, v in self.headers.items()}
            request = RecordedRequest(
                self.command, parts.path, parts.query, headers, body, time.monotonic()
            )
            # In flight while the answer is made (its delay), not while it is written: the
            # client may send its next request as soon as it has read this body, before
            # this thread returns from the write, and counting the write raced with that.
            try:
                answer = server._answer(request)
            finally:
                server._done()
            try:
                self._send(answer)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def _send(self, answer: Reply) -> None:
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            if answer.status != 304:
                self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            if answer.status != 304:
                self.wfile.write(answer.body)

    return Handler
