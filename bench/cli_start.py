"""Start time of the `gpu-advisor` command: help, parse-page's help and a real parse-page
run (with --every-help, every subcommand's help too), each in a fresh process, against a
`python -c pass` baseline.

Runs are interleaved (one of each command per round) so that a noisy shared machine
slows them alike; prints each command's median and fastest wall time, its median CPU
time (user + system: less moved by other load than the wall time) and its ratio to the
baseline's median, all measured in the same run. Nothing is asserted about time.

    .venv/bin/python -m bench.cli_start            # 7 rounds
    .venv/bin/python -m bench.cli_start --runs 15
    .venv/bin/python -m bench.cli_start --every-help
    .venv/bin/python -m bench.cli_start --database  # + recommend on a seeded database

With --database, `recommend` runs on a database seeded once beforehand, as each command
opens it (checking that schema, bundled data and scores are current) and with that check
off (GPU_ADVISOR_PREPARE_ON_START=false): the ratio of the two is what the check costs.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# A bundled sold search page (60 kB): the real run parses and matches its listings.
PAGE = ROOT / "tests/services/scraper/samples/ebay/real_us_sold.html"


def cli() -> list[str]:
    """The installed console script, as users run it; the module when it is not installed."""
    script = Path(sys.executable).with_name("gpu-advisor")
    if script.exists():
        return [str(script)]
    found = shutil.which("gpu-advisor")
    return [found] if found else [sys.executable, "-m", "services.cli.main"]


def subcommands() -> list[list[str]]:
    """Every command path below `gpu-advisor`, groups before their commands, as listed."""
    import typer

    from services.cli.main import app

    def below(command: Any, path: list[str]) -> list[list[str]]:
        found = []
        for name, child in command.commands.items():
            loaded = getattr(child, "loaded", child)  # a lazy command loads to list its own
            found.append([*path, name])
            if hasattr(loaded, "commands"):
                found += below(loaded, [*path, name])
        return found

    return below(typer.main.get_command(app), [])


RECOMMEND = ["recommend", "--task", "cv", "--memory-gb", "24", "--limit", "3"]
PREPARED, UNCHECKED = (
    "gpu-advisor recommend (checks its database)",
    "gpu-advisor recommend (no check)",
)


def commands(every_help: bool = False, database: bool = False) -> dict[str, list[str]]:
    """Label -> argv; the baseline first."""
    gpu_advisor = cli()
    on_database = {
        PREPARED: [*gpu_advisor, *RECOMMEND],
        UNCHECKED: ["env", "GPU_ADVISOR_PREPARE_ON_START=false", *gpu_advisor, *RECOMMEND],
    }
    helps = {
        f"gpu-advisor {' '.join(path)} --help": [*gpu_advisor, *path, "--help"]
        for path in (subcommands() if every_help else [])
        if path != ["parse-page"]
    }
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "gpu-advisor --help": [*gpu_advisor, "--help"],
        "gpu-advisor parse-page --help": [*gpu_advisor, "parse-page", "--help"],
        "gpu-advisor parse-page (sold page)": [
            *gpu_advisor,
            "parse-page",
            "--source",
            "ebay",
            str(PAGE),
        ],
        **helps,
        **(on_database if database else {}),
    }


@dataclass
class Samples:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str], env: dict[str, str], into: Samples) -> None:
    """One run's wall and CPU seconds, spawn to exit; a failing command stops the bench."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, check=False)
    into.wall.append(time.perf_counter() - start)
    into.cpu.append(_children_cpu() - cpu)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()}")


def measure(argvs: dict[str, list[str]], runs: int, env: dict[str, str]) -> dict[str, Samples]:
    samples = {label: Samples() for label in argvs}
    for _ in range(runs):
        for label, argv in argvs.items():
            run_once(argv, env, samples[label])
    return samples


def report(samples: dict[str, Samples]) -> None:
    """One line per command; the first is the baseline the ratios divide by."""
    baseline = statistics.median(next(iter(samples.values())).wall)
    runs = len(next(iter(samples.values())).wall)
    print(f"{runs} runs each; wall median, fastest, CPU median, wall median / python's")
    width = max(36, *(len(label) for label in samples))
    for label, taken in samples.items():
        median = statistics.median(taken.wall)
        print(
            f"{label:{width}} {median * 1000:6.0f} ms {min(taken.wall) * 1000:6.0f} ms"
            f" {statistics.median(taken.cpu) * 1000:6.0f} ms cpu {median / baseline:6.1f}x"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds of every command")
    parser.add_argument("--every-help", action="store_true", help="also every subcommand's --help")
    parser.add_argument(
        "--database", action="store_true", help="also recommend on a seeded database"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as data_dir:
        # The help and parse-page commands need no database; an empty data directory
        # proves it. --database seeds one there first (not timed).
        env = {**os.environ, "GPU_ADVISOR_DATA_DIR": data_dir, "COLUMNS": "100"}
        env.pop("GPU_ADVISOR_DATABASE_URL", None)
        if args.database:
            run_once([*cli(), "db", "seed"], env, Samples())
        report(measure(commands(args.every_help, args.database), args.runs, env))


if __name__ == "__main__":
    main()
