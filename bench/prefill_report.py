"""Fit the prefill model, evaluate it on its fixed splits and write what it found.

Writes `docs/model/prefill.md` (every figure with its split) and the shipped parameters
`shared/perfmodel/params/<PREFILL_VERSION>.json` (fit on all rows; interval half-widths
from held-out errors only). The prose is `shared/perfmodel/lab/report_text/prefill.md`;
this script computes the figures and tables that fill it.

Run: .venv/bin/python -m bench.prefill_report
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from statistics import median

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources.localscore import load_localscore_medians
from shared.perfmodel.lab import prefill_fit as pf
from shared.perfmodel.lab.prefill_data import PrefillRow, load_prefill_rows
from shared.perfmodel.lab.report_text import report_text
from shared.perfmodel.prefill import (
    PARAMS_PATH,
    PREFILL_VERSION,
    PrefillParams,
    chip_class,
    predict_relative,
    software_rate,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "model" / "prefill.md"
TARGET_MEDIAN = 0.15
TARGET_COVERAGE = 0.75
SAME_DIE = (("rtx-a6000", "rtx-3090"), ("rtx-6000-ada", "rtx-4090"))


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _p90(values: Sequence[float]) -> float | None:
    return pf.quantile(values, 0.9)


def _line(
    label: Sequence[str], errors: Sequence[pf.PairError], hits: dict[int, bool | None]
) -> str:
    covered = [hits[id(e)] for e in errors if hits.get(id(e)) is not None]
    cov = sum(1 for c in covered if c) / len(covered) if covered else None
    cells = [
        *label,
        str(len(errors)),
        _pct(median(e.error for e in errors) if errors else None),
        _pct(_p90([e.error for e in errors])),
        _pct(median(e.error_base for e in errors) if errors else None),
        _pct(cov),
    ]
    return "| " + " | ".join(cells) + " |"


@dataclass(frozen=True)
class _Spread:
    """How far LocalScore's submissions of one GPU and model disagree."""

    medians: int
    single: int
    multi: int
    spread_median: str
    spread_max: str
    widest: str


def _localscore_spread() -> _Spread:
    medians = load_localscore_medians(load_catalog())
    multi = [m for m in medians if m.submissions >= 2]
    spreads = sorted(m.spread for m in multi)
    widest = sorted(multi, key=lambda m: -m.spread)[:4]
    return _Spread(
        medians=len(medians),
        single=sum(1 for m in medians if m.submissions == 1),
        multi=len(multi),
        spread_median=f"{median(spreads):.2f}",
        spread_max=f"{spreads[-1]:.2f}",
        widest=", ".join(
            f"{m.accel_name} on {m.model.split(' Instruct')[0]}: {m.prompt_tps_min:g}-"
            f"{m.prompt_tps_max:g} over {m.submissions}"
            for m in widest
        ),
    )


def _agreement(rows: Sequence[PrefillRow]) -> tuple[int, str]:
    """LocalScore's GPUs in both its tables, and the median difference of a pair's ratio
    between its 8B and 14B tables."""
    eight = {r.gpu_id: r.value for r in rows if r.source == "localscore" and "8B" in r.group}
    fourteen = {r.gpu_id: r.value for r in rows if r.source == "localscore" and "14B" in r.group}
    common = sorted(set(eight) & set(fourteen))
    diffs = [
        abs(math.log(eight[a] / eight[b]) - math.log(fourteen[a] / fourteen[b]))
        for i, a in enumerate(common)
        for b in common[i + 1 :]
    ]
    return len(common), _pct(math.expm1(median(diffs)))


def _same_die(rows: Sequence[PrefillRow], all_shares: dict[str, float]) -> list[str]:
    cat = load_catalog()
    out = [
        "| pair | table | measured | naive (accumulate rule) | model in-sample | model, "
        "workstation card held out (LOGO) |",
        "|---|---|---|---|---|---|",
    ]
    for work, consumer in SAME_DIE:
        held = pf.fit([r for r in rows if r.gpu_id != work])
        groups: dict[str, dict[str, PrefillRow]] = defaultdict(dict)
        for r in rows:
            groups[r.group][r.gpu_id] = r
        for group, members in sorted(groups.items()):
            if work not in members or consumer not in members:
                continue
            a, b = members[work], members[consumer]
            ga, gb = cat.by_id[work], cat.by_id[consumer]
            naive = software_rate(ga, a.family, a.workload.weights) / software_rate(
                gb, b.family, b.workload.weights
            )

            def ratio(shares: dict[str, float], ra: PrefillRow = a, rb: PrefillRow = b) -> float:
                return math.exp(
                    pf._log_pred(ra, cat.by_id[ra.gpu_id], shares)
                    - pf._log_pred(rb, cat.by_id[rb.gpu_id], shares)
                )

            out.append(
                f"| {work} / {consumer} | {group.split(' | ')[0]} | {a.value / b.value:.2f} | "
                f"{naive:.2f} | {ratio(all_shares):.2f} | {ratio(held):.2f} |"
            )
    return out


def _product_examples(params: PrefillParams) -> list[str]:
    from shared.perfmodel.workloads import LlmWorkload

    cat = load_catalog()
    ref = cat.by_id["rtx-3090"]
    out = [
        "| GPU | stack | relative to RTX 3090 | 80 % interval | chip class "
        "| architecture measured |",
        "|---|---|---|---|---|---|",
    ]
    for gpu_id in ("rtx-4090", "rtx-a6000", "rtx-6000-ada", "h100-sxm5", "b200", "mi300x", "t4"):
        gpu = cat.by_id[gpu_id]
        for stack in ("llama.cpp", "vllm"):
            e = predict_relative(gpu, ref, LlmWorkload(8.0), stack, params=params)
            out.append(
                f"| {gpu_id} | {stack} | {e.relative:.2f} "
                f"| {e.interval[0]:.2f}-{e.interval[1]:.2f} "
                f"| {e.chip_class} | {'yes' if e.architecture_measured else 'no (widened)'} |"
            )
    return out


def _table(header: Sequence[str], rows: Sequence[str]) -> str:
    """A Markdown table: its header cells, the rule under them and its rows."""
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *rows])


ERROR_COLUMNS = ("pairs", "median", "p90", "baseline median", "80 % coverage")


def build() -> tuple[str, PrefillParams]:
    cat = load_catalog()
    rows = load_prefill_rows(cat)
    errors = pf.evaluate(rows, cat)
    params = pf.fit_product(rows)
    params = PrefillParams(
        log_share=params.log_share,
        half_width=params.half_width,
        half_width_new_arch=params.half_width_new_arch,
        measured_architectures=params.measured_architectures,
        measured_gpus=params.measured_gpus,
        evaluation=pf.summary(errors),
    )
    checked = pf.coverage(errors)
    hits = {id(e): c for e, c in checked}
    insample = pf.in_sample(rows, params.log_share, cat)
    in_hits = {id(e): pf.covered(e, params.half_width) for e in insample}
    summary = pf.summary(errors)

    by_source: dict[str, int] = defaultdict(int)
    for r in rows:
        by_source[r.source] += 1
    targets = []
    for split in (pf.LOTO, pf.LOGO):
        s = summary[split]
        med = s["median"]
        cov = s["coverage"]
        targets.append(
            f"| prefill median <= 15 % | {split} | {_pct(med)} (baseline "
            f"{_pct(s['baseline_median'])}, {s['pairs']} pairs) | "
            f"{'yes' if med is not None and med <= TARGET_MEDIAN else 'no'} |"
        )
        targets.append(
            f"| 80 % interval coverage >= 75 % | {split} | {_pct(cov)} | "
            f"{'yes' if cov is not None and cov >= TARGET_COVERAGE else 'no'} |"
        )
    by_split = []
    for split in pf.SPLITS:
        members = [e for e in errors if e.split == split]
        for source in sorted({e.source for e in members}):
            by_split.append(
                _line([split, source], [e for e in members if e.source == source], hits)
            )
        by_split.append(_line([split, "all"], members, hits))

    def folds(split: str) -> list[str]:
        return [
            _line([fold], [e for e in errors if e.split == split and e.fold == fold], hits)
            for fold in sorted({e.fold for e in errors if e.split == split})
        ]

    logo = [e for e in errors if e.split == pf.LOGO]
    by_class = []
    for klass in sorted({chip_class(cat.by_id[e.fold]) for e in logo}):
        members = [e for e in logo if chip_class(cat.by_id[e.fold]) == klass]
        by_class.append(_line([klass], members, hits))
    worst = sorted(
        {e.fold for e in logo},
        key=lambda g: -median(e.error for e in logo if e.fold == g),
    )[:10]
    in_sample = [
        _line([source], [e for e in insample if e.source == source], in_hits)
        for source in sorted({e.source for e in insample})
    ]
    in_sample.append(_line(["all"], insample, in_hits))
    spread = _localscore_spread()
    common, ratio_difference = _agreement(rows)
    text = report_text(
        "prefill",
        today=date.today().isoformat(),
        version=PREFILL_VERSION,
        rows=len(rows),
        rows_by_source=", ".join(f"{k} {v}" for k, v in sorted(by_source.items())),
        groups=len({r.group for r in rows}),
        gpus=len({r.gpu_id for r in rows}),
        medians=spread.medians,
        single=spread.single,
        multi=spread.multi,
        spread_median=spread.spread_median,
        spread_max=spread.spread_max,
        widest=spread.widest,
        common=common,
        ratio_difference=ratio_difference,
        min_group=pf.MIN_GROUP,
        targets_table=_table(("target", "split", "measured", "met"), targets),
        by_split_table=_table(("split", "source", *ERROR_COLUMNS), by_split),
        loto_folds_table=_table(("fold (held out)", *ERROR_COLUMNS), folds(pf.LOTO)),
        loao_folds_table=_table(("architecture held out", *ERROR_COLUMNS), folds(pf.LOAO)),
        logo_classes_table=_table(("chip class", *ERROR_COLUMNS), by_class),
        worst_gpus="; ".join(
            f"{g} {_pct(median(e.error for e in logo if e.fold == g))} "
            f"({sum(1 for e in logo if e.fold == g)} pairs)"
            for g in worst
        ),
        in_sample_table=_table(
            (
                "source",
                "pairs",
                "median",
                "p90",
                "baseline median",
                "in 80 % interval (served widths)",
            ),
            in_sample,
        ),
        same_die_table="\n".join(_same_die(rows, params.log_share)),
        log_share=", ".join(f"{k} {v:+.2f}" for k, v in sorted(params.log_share.items())),
        half_width=", ".join(f"{k} {v:.2f}" for k, v in sorted(params.half_width.items())),
        half_width_new_arch=", ".join(
            f"{k} {v:.2f}" for k, v in sorted(params.half_width_new_arch.items())
        ),
        product_examples_table="\n".join(_product_examples(params)),
    )
    return text + "\n", params


def main() -> None:
    text, params = build()
    DOC.write_text(text)
    PARAMS_PATH.write_text(json.dumps(params.to_json(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {DOC} and {PARAMS_PATH}")


if __name__ == "__main__":
    main()
