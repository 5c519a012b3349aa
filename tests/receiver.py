"""A real webhook receiver on 127.0.0.1 whose answers tests script."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: str
    at: float


@dataclass
class Script:
    """Responses to give, in order; the last one repeats."""

    responses: list[tuple[int, dict[str, str]]] = field(default_factory=lambda: [(200, {})])
    delay_s: float = 0.0


class Receiver:
    def __init__(self, port: int = 0) -> None:
        self.received: list[Received] = []
        self.script = Script()
        self._lock = threading.Lock()
        # Open unless a test holds the answers (`hold`): receivers that never answer
        # until released.
        self._gate = threading.Event()
        self._gate.set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length).decode()
                status, headers = receiver._next(self.path, dict(self.headers.items()), body)
                time.sleep(receiver.script.delay_s)
                receiver._gate.wait(timeout=120)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", "14")
                self.end_headers()
                self.wfile.write(b"secret-content")

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = int(self.server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}/hook"
        # A short poll interval keeps shutdown (once per test) quick.
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def _next(self, path: str, headers: dict[str, str], body: str) -> tuple[int, dict[str, str]]:
        with self._lock:
            self.received.append(
                Received(path, {k.lower(): v for k, v in headers.items()}, body, time.time())
            )
            responses = self.script.responses
            return responses.pop(0) if len(responses) > 1 else responses[0]

    def respond(self, *responses: tuple[int, dict[str, str]], delay_s: float = 0.0) -> None:
        with self._lock:
            self.script = Script(list(responses), delay_s)

    def hold(self) -> None:
        """Keep every answer until `release`."""
        self._gate.clear()

    def release(self) -> None:
        self._gate.set()

    def start(self) -> Receiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def running_receiver() -> Iterator[Receiver]:
    receiver = Receiver().start()
    try:
        yield receiver
    finally:
        receiver.stop()
