"""Derive the bundled LocalScore per-GPU medians from the team's leaderboard scrape.

LocalScore's result data carries no licence, so the product ships derived figures (the
median prompt and generation rates per GPU and model, with the number of submissions and
their range) and not the scrape itself. This script is how the bundled CSV was made:

    .venv/bin/python -m bench.localscore_medians <localscore_results.tsv>

(the leaderboard export named in the bundled folder's PROVENANCE.md; not bundled).

It writes `shared/perfmodel/data/benchmarks/localscore-2025/localscore_prompt_medians.csv`.
"""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict
from pathlib import Path

OUT = (
    Path(__file__).resolve().parent.parent
    / "shared/perfmodel/data/benchmarks/localscore-2025/localscore_prompt_medians.csv"
)
# LocalScore's official 8B and 14B models; the 1B model is dominated by per-call overhead
# and the ~150 user-chosen models are not comparable across GPUs.
MODELS = ("Meta Llama 3.1 8B Instruct", "Qwen2.5 14B Instruct")
QUANT = "Q4_K - Medium"
GPU_GROUPS = ("NVIDIA GPU", "AMD GPU")
COLUMNS = (
    "model",
    "model_quant",
    "accel_name",
    "accel_group",
    "accel_ram_gb",
    "submissions",
    "prompt_tps_median",
    "prompt_tps_min",
    "prompt_tps_max",
    "gen_tps_median",
    "first_test_date",
    "last_test_date",
)


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):g}"


def derive(tsv: Path) -> list[dict[str, str]]:
    """One row per (model, GPU as written, memory size): medians over submissions."""
    groups: dict[tuple[str, str, str], list[dict[str, str]]] = defaultdict(list)
    with tsv.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["model_name"] not in MODELS or row["model_quant"] != QUANT:
                continue
            if row["accel_group"] not in GPU_GROUPS or row["accel_type"] != "GPU":
                continue
            # Names carry stray double spaces ("AMD  Radeon RX 7800 XT").
            name = " ".join(row["accel_name"].split())
            groups[(row["model_name"], name, row["accel_group"])].append(row)
    out = []
    for (model, name, group), rows in sorted(groups.items()):
        # The memory the driver reports (47 or 48 GB for one card); it tells apart the
        # variants sold under one name (RTX 3060 8/12 GB, RTX 3080 10/12 GB).
        ram = ";".join(sorted({r["accel_ram"] for r in rows}, key=float))
        prompt = [float(r["prompt_tps"]) for r in rows]
        dates = sorted(r["test_date"][:10].replace(".", "-") for r in rows)
        out.append(
            {
                "model": model,
                "model_quant": QUANT,
                "accel_name": name,
                "accel_group": group,
                "accel_ram_gb": ram,
                "submissions": str(len(rows)),
                "prompt_tps_median": _median(prompt),
                "prompt_tps_min": f"{min(prompt):g}",
                "prompt_tps_max": f"{max(prompt):g}",
                "gen_tps_median": _median([float(r["gen_tps"]) for r in rows]),
                "first_test_date": dates[0],
                "last_test_date": dates[-1],
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tsv", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = derive(args.tsv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} rows -> {args.out}")


if __name__ == "__main__":
    main()
