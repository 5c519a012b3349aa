"""Every HTTP and CLI example in README.md, run as written against a freshly started
server on the embedded default (SQLite in a new data directory, bundled data, in-process
work, no Redis or PostgreSQL).

Only what the README cannot know is substituted: the server's address for
http://127.0.0.1:8000, the key printed by the README's own `api-keys create` for
`gpa_...`, a webhook receiver on 127.0.0.1 for the example's receiver host (so no DNS
lookup leaves the machine), `{id}` for the id of a quote (of a decision on /decisions
paths) made by the run, and the scraper's base URLs (settings, not the commands) for a
local server of real captured pages. `make run` and `make test` themselves are what CI
runs. A benchmark the README gives runs in its quick mode (QUICK_BENCH_ARGS): that it
runs and what it prints, never its timings.

Some outputs are checked too: the sample page of `parse-page` matches a GPU, the TCO
commands print the figures of Dettmers' example the README quotes, and the parse-speed
bench reports each adapter it compares.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.processes import BIN, ROOT, Service, free_port, wait_for
from tests.receiver import Receiver, running_receiver
from tests.services.scraper.fixture_server import FixtureServer
from tests.services.scraper.scrape_env import route_all

pytestmark = pytest.mark.slow

README = ROOT / "README.md"
README_BASE = "http://127.0.0.1:8000"
README_RECEIVER = "https://tools.example.com"
STARTUP_S = 300
# Each benchmark the README gives, and the arguments that make it quick (one parse per
# page and adapter): a new bench command in the README needs its entry here.
QUICK_BENCH_ARGS = {"bench/parse_speed.py": ["--runs", "1"]}


@dataclass
class Example:
    kind: str  # "cli", "curl", "get", "post"
    text: str
    path: str = ""


@dataclass
class Stack:
    base: str
    env: dict[str, str]
    receiver: Receiver
    outputs: dict[str, str] = field(default_factory=dict)


def _sh_commands() -> list[str]:
    """Commands of the ```sh blocks: backslash continuations joined, and a line break
    inside quotes kept within its command (as a shell reads it)."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(), flags=re.S):
        pending = ""
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            if not pending and (not line.strip() or line.strip().startswith("#")):
                continue
            pending = f"{pending}\n{line}" if pending else line.strip()
            try:
                shlex.split(pending, comments=True)
            except ValueError:
                continue  # an open quote: the command goes on
            commands.append(pending)
            pending = ""
    return commands


def _table_examples() -> list[Example]:
    out = []
    row = re.compile(r"^\| `(GET|POST) (/[^`]*)` \| (.*) \|$")
    for line in README.read_text().splitlines():
        found = row.match(line)
        if not found:
            continue
        method, path, cell = found.groups()
        for code in re.findall(r"`([^`]+)`", cell):
            if method == "GET" and code.startswith("/"):
                out.append(Example("get", code, path))
            elif method == "POST" and code.startswith("{"):
                out.append(Example("post", code, path))
    return out


def readme_examples() -> list[Example]:
    examples = []
    for command in _sh_commands():
        if command.startswith("make "):
            continue
        kind = "curl" if command.startswith("curl ") else "cli"
        examples.append(Example(kind, command))
    return examples + _table_examples()


def test_the_readme_has_the_examples_this_test_runs() -> None:
    """The parser finds what the README shows (so a reworded README cannot skip them)."""
    examples = readme_examples()
    kinds = {e.kind for e in examples}
    assert kinds == {"cli", "curl", "get", "post"}
    assert sum(e.kind == "get" for e in examples) >= 12
    assert any("api-keys create" in e.text for e in examples)
    assert any(e.path == "/quotes/compare" for e in examples)
    assert any("gpu-advisor parse-page" in e.text for e in examples)
    prices = {_option(e.text, "--cloud-usd-per-hour") for e in examples if _dettmers(e.text)}
    assert prices == set(_dettmers_claims()), "a TCO command per break-even the README quotes"
    benches = [_bench_script(e.text) for e in examples if _bench_script(e.text)]
    assert benches, "the README gives the parse-speed bench's command"
    assert set(benches) <= set(QUICK_BENCH_ARGS), "a bench command without a quick mode"


def test_the_readme_starts_with_make_run_and_make_test() -> None:
    """The quick start's two commands come first, and the README points nowhere outside
    the repository (the team's shared folder is not part of it)."""
    text = README.read_text()
    first = re.search(r"```sh\n(.*?)```", text, flags=re.S)
    assert first is not None
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert commands == ["make run", "make test"]
    assert "../shared" not in text


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data = tmp_path_factory.mktemp("readme-var")
    logs = tmp_path_factory.mktemp("readme-logs")
    port = free_port()
    with FixtureServer() as pages, running_receiver() as receiver:
        route_all(pages)
        env = {
            "GPU_ADVISOR_DATA_DIR": str(data),
            "GPU_ADVISOR_DATABASE_URL": "",
            "GPU_ADVISOR_BROKER_URL": "",
            "GPU_ADVISOR_WEBHOOK_ALLOWLIST": "127.0.0.1",
            **_scraper_env(pages.base_url),
        }
        server = Service("api", f"gpu-advisor serve --port {port}", env, logs).start()
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(lambda: _up(base), STARTUP_S, f"the server ({server.log_tail()})", 0.5)
            yield Stack(base, env, receiver)
        finally:
            server.stop()


def _scraper_env(base: str) -> dict[str, str]:
    names = [
        "EBAY_BASE_URL", "EBAY_API_BASE_URL", "NEWEGG_BASE_URL", "BHPHOTO_BASE_URL",
        "AZURE_PRICES_BASE_URL", "AWS_PRICING_BASE_URL", "VAST_BASE_URL", "LAMBDA_BASE_URL",
    ]  # fmt: skip
    env = {f"GPU_ADVISOR_SCRAPER_{name}": base for name in names}
    env.update(
        {
            "GPU_ADVISOR_SCRAPER_EBAY_CLIENT_ID": "client",
            "GPU_ADVISOR_SCRAPER_EBAY_CLIENT_SECRET": "secret",
            "GPU_ADVISOR_SCRAPER_LAMBDA_API_KEY": "lambda-key",
            "GPU_ADVISOR_SCRAPER_SEARCH_TERMS": '["rtx 4090"]',
            "GPU_ADVISOR_SCRAPER_MAX_PAGES": "1",
            "GPU_ADVISOR_SCRAPER_AWS_REGIONS": '["us-east-1"]',
        }
    )
    return env


def _up(base: str) -> bool | None:
    try:
        return httpx.get(f"{base}/health", timeout=2).status_code == 200 or None
    except httpx.HTTPError:
        return None


# `python3 -m venv DIR` makes DIR/bin/python and DIR/bin/gpu-advisor, stand-ins that
# answer every call (pip, compileall, serve) at once.
FAKE_PYTHON3 = """#!/bin/sh
mkdir -p "$3/bin"
printf '#!/bin/sh\\n' > "$3/bin/python"
cp "$3/bin/python" "$3/bin/gpu-advisor"
chmod +x "$3/bin/python" "$3/bin/gpu-advisor"
"""


def test_make_run_says_each_step_as_the_readme_shows(tmp_path: Path) -> None:
    """`make run` on a fresh clone prints one line per step before it starts (creating the
    venv, installing, migrating and loading, serving), the lines the README shows. The
    steps are stand-ins here (a fake python3, pip and server); CI's `make test` runs the
    real install."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3").write_text(FAKE_PYTHON3)
    (fake / "python3").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PORT", "MAKEFLAGS")}
    env["PATH"] = f"{fake}{os.pathsep}{env['PATH']}"
    venv = tmp_path / "venv"
    command = ["make", "-s", "-C", str(ROOT), "run", f"VENV={venv}"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    said = [line.replace(str(venv), ".venv") for line in done.stdout.splitlines()]
    shown = re.search(r"```text\n(==> .*?)```", README.read_text(), flags=re.S)
    assert shown is not None
    assert said == shown.group(1).splitlines()
    assert len(said) == 4 and (venv / ".run-installed-stamp").exists()
    # A second `make run` installs nothing: it only starts the server.
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert again.stdout.splitlines() == said[2:]


def _bench_script(command: str) -> str | None:
    found = re.match(r"\.venv/bin/python (bench/\S+\.py)", command)
    return found.group(1) if found else None


def _quick(command: str) -> str:
    """A bench command in its quick mode (the README's comment dropped); others as given."""
    script = _bench_script(command)
    if script is None:
        return command
    return shlex.join([*shlex.split(command, comments=True), *QUICK_BENCH_ARGS[script]])


def _option(command: str, name: str) -> str | None:
    words = shlex.split(command, comments=True)
    return words[words.index(name) + 1] if name in words else None


def _dettmers(command: str) -> bool:
    return "gpu-advisor tco" in command and _option(command, "--purchase-usd") == "2200"


def _dettmers_claims() -> dict[str, int]:
    """The README's break-even days of Dettmers' example, by cloud $/h as the commands
    write it ("2.14": 293, "0.90": 722)."""
    text = " ".join(README.read_text().split())
    found = re.search(
        r"break-even (\d+) days on demand \(\$([\d.]+)/h\) and (\d+) days at \$([\d.]+)/h", text
    )
    assert found, "the README quotes Dettmers' break-even days"
    days_a, price_a, days_b, price_b = found.groups()
    return {price_a: int(days_a), price_b: int(days_b)}


def _check_output(command: str, output: str) -> None:
    """What the README says these commands show, they show."""
    if "gpu-advisor parse-page" in command:
        rows = [json.loads(line) for line in output.splitlines()]
        matched = [row for row in rows if row["gpu_id"] and row["reason"] is None]
        assert matched, f"{command}: the sample page matched no GPU"
    elif _dettmers(command):
        report = json.loads(output)
        text = " ".join(README.read_text().split())
        found = re.search(r"reproduces: ([\d,]+) kWh/year, \$(\d+)/year", text)
        assert found, "the README quotes Dettmers' energy figures"
        assert round(report["own_kwh_per_year"]) == int(found.group(1).replace(",", ""))
        assert round(Decimal(report["own_energy_usd_per_year"])) == int(found.group(2))
        price = _option(command, "--cloud-usd-per-hour")
        assert price is not None
        assert round(report["break_even_days"]) == _dettmers_claims()[price], command
    elif _bench_script(command) == "bench/parse_speed.py":
        assert re.search(r"^all pages: \d+ listings$", output, flags=re.M), output
        for variant in ("666d627", "58cd930", "shipped"):
            assert re.search(rf"^  {variant} +\d+ listings/s", output, flags=re.M), output


def _run_cli(stack: Stack, command: str) -> str:
    command = _quick(command)
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env={**os.environ, **stack.env, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def _key(stack: Stack) -> str:
    created = json.loads(stack.outputs["api-keys create"])
    key: str = created["key"]
    return key


def _curl(stack: Stack, command: str) -> httpx.Response:
    args = shlex.split(command)[1:]
    method, headers, data, url = "GET", {}, None, ""
    while args:
        arg = args.pop(0)
        if arg == "-X":
            method = args.pop(0)
        elif arg == "-H":
            name, _, value = args.pop(0).partition(":")
            headers[name.strip()] = value.strip().replace("gpa_...", _key(stack))
        elif arg in ("-d", "--data"):
            data = args.pop(0).replace(README_RECEIVER, f"http://127.0.0.1:{stack.receiver.port}")
        elif arg.startswith("http"):
            url = arg.replace(README_BASE, stack.base)
    if data is not None and method == "GET":
        method = "POST"  # what curl does with -d
    return httpx.request(method, url, headers=headers, content=data, timeout=60)


def _quote_id(stack: Stack, headers: dict[str, str]) -> str:
    made = httpx.post(
        f"{stack.base}/quotes/cluster", json={"gpu": "rtx-3090", "count": 2}, headers=headers
    )
    assert made.status_code == 201, made.text
    quote_id: str = made.json()["id"]
    return quote_id


def _decision_id(stack: Stack, headers: dict[str, str]) -> str:
    query = {"task": "cv", "memory_gb": 24}
    made = httpx.post(f"{stack.base}/decisions", json={"query": query}, headers=headers)
    assert made.status_code == 201, made.text
    decision_id: str = made.json()["id"]
    return decision_id


def _http(stack: Stack, example: Example) -> httpx.Response:
    headers = {"Authorization": f"Bearer {_key(stack)}"}
    if example.kind == "curl":
        return _curl(stack, example.text)
    if example.kind == "get":
        path = example.text
        if "{id}" in path:
            made = _decision_id if path.startswith("/decisions/") else _quote_id
            path = path.replace("{id}", made(stack, headers))
        return httpx.get(f"{stack.base}{path}", headers=headers, timeout=60)
    body: Any = json.loads(example.text)
    return httpx.post(f"{stack.base}{example.path}", json=body, headers=headers, timeout=60)


def test_every_readme_example_works_as_written(stack: Stack) -> None:
    examples = readme_examples()
    # The CLI first, in README order: `api-keys create` prints the key the HTTP ones use.
    for example in (e for e in examples if e.kind == "cli"):
        output = _run_cli(stack, example.text)
        if "api-keys create" in example.text:
            stack.outputs["api-keys create"] = output
        _check_output(example.text, output)
    failures = []
    for example in (e for e in examples if e.kind != "cli"):
        response = _http(stack, example)
        if response.status_code >= 400:
            failures.append(f"{example.text}: {response.status_code} {response.text[:300]}")
    assert failures == []


def test_a_price_added_by_the_cli_reaches_the_running_server_and_its_alerts(
    stack: Stack,
) -> None:
    """`gpu-advisor prices add` while the server runs on the same data directory: the
    quote (an operator quote) shows on the server to a key that sees every quote and
    fires its matching alert within seconds."""
    command = "gpu-advisor api-keys create --name cli-test --all-quotes --json"
    key = json.loads(_run_cli(stack, command))
    headers = {"Authorization": f"Bearer {key['key']}"}
    alert = httpx.post(
        f"{stack.base}/alerts",
        headers=headers,
        json={
            "url": stack.receiver.url,
            "trigger": {
                "type": "price_below",
                "gpu_id": "rtx-a6000",
                "condition": "new",
                "max_price_usd": 4500,
            },
        },
        timeout=30,
    )
    assert alert.status_code == 201, alert.text
    _run_cli(
        stack,
        "gpu-advisor prices add --gpu rtx-a6000 --usd 4399 --condition new --source 'Acme quote 7'",
    )
    shown = httpx.get(f"{stack.base}/gpus/rtx-a6000", headers=headers, timeout=30).json()
    assert shown["best_quote"]["new"]["usd"] == "4399.00"
    anonymous = httpx.get(f"{stack.base}/gpus/rtx-a6000", timeout=30).json()
    assert anonymous["best_quote"]["new"] is None

    def fired() -> bool | None:
        bodies = [json.loads(r.body) for r in stack.receiver.received]
        prices = [b["data"].get("observation", {}).get("price_usd") for b in bodies]
        return "4399.00" in prices or None

    wait_for(fired, 60, "the price_below webhook")
