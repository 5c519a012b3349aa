"""Real processes for end-to-end tests: a private Redis, service commands, waiting."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

import redis

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], T | None], timeout: float, what: str, interval: float = 0.2) -> T:
    """Poll `check` until it returns something truthy; fail with `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            result = check()
            if result:
                return result
        except Exception as exc:  # the thing may not be up yet
            last_error = exc
        time.sleep(interval)
    raise TimeoutError(f"timed out waiting for {what} (last error: {last_error!r})")


class RedisServer:
    """A Redis of the test's own, so it can be stopped and restarted safely."""

    def __init__(self, directory: Path, *, persistent: bool = False) -> None:
        self.port = free_port()
        self.directory = directory
        # Append-only persistence keeps queued tasks across a restart, as in production.
        self.persistent = persistent
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--save",
            "",
            "--appendonly",
            "yes" if self.persistent else "no",
            "--appendfsync",
            "always",
            "--dir",
            str(self.directory),
        ]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        client = redis.Redis(port=self.port, socket_timeout=0.5)
        wait_for(client.ping, 15, "redis to answer")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=15)
            self.process = None


class Service:
    """One long-running command with its environment; output goes to a log file."""

    def __init__(self, name: str, command: str, env: Mapping[str, str], logs: Path) -> None:
        self.name = name
        self.command = command
        self.env = dict(env)
        self.log_path = logs / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Service:
        env = {**os.environ, **self.env, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                shlex.split(self.command),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (celery and uvicorn fork children)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        try:
            self.kill(signal.SIGTERM)
        except subprocess.TimeoutExpired:
            self.kill(signal.SIGKILL)

    def log_tail(self, lines: int = 40) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def run_once(
    command: str, env: Mapping[str, str], timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **env, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        shlex.split(command),
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
