"""How `gpu-advisor serve` runs uvicorn: stalled clients are closed, proxy headers are the
app's business (services/api/forwarded.py), and one embedded API process per data
directory (process_lock.py).

uvicorn closes an idle keep-alive connection after 5 s but sets no deadline for a request
head or body: a client that connects and sends nothing, or one header line every few
seconds (slowloris), or half a body, holds its connection and task for ever. `StallGuard`
is uvicorn's httptools protocol with two deadlines from the settings: the whole request
head within `request_header_timeout_s` of the connection opening (or of the previous
response), and no pause in the body longer than `request_body_timeout_s` (a pause while
the app itself is not reading does not count). A head that misses its deadline gets a
408 and the connection closes; a stalled body closes the connection, which the app sees as
the client disconnecting.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from shared.kit.settings import get_settings

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class StallGuard(HttpToolsProtocol):
    """uvicorn's httptools protocol with request head and body deadlines."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Read here, not passed in: uvicorn pickles the protocol class to its workers.
        settings = get_settings()
        self.header_timeout_s = settings.request_header_timeout_s
        self.body_timeout_s = settings.request_body_timeout_s
        self._deadline: asyncio.TimerHandle | None = None
        self._in_body = False

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._stalled)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout_s)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._in_body = True
        self._arm(self.body_timeout_s)

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        if self._in_body:
            self._arm(self.body_timeout_s)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_body = False
        self._disarm()

    def on_response_complete(self) -> None:
        # A pipelined request already received starts now; it needs no new deadline.
        pipelined = bool(self.pipeline)
        super().on_response_complete()
        if not pipelined and not self.transport.is_closing():
            self._arm(self.header_timeout_s)

    def _stalled(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._in_body:
            if self.flow.read_paused:
                # The app has not read what arrived: the client is not the one waiting.
                self._arm(self.body_timeout_s)
                return
            log.info("closing a connection whose request body stalled: %s", self.client)
        else:
            log.info("closing a connection without a whole request head: %s", self.client)
            self.transport.write(REQUEST_TIMEOUT)
        self.transport.close()
