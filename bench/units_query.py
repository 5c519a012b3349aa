"""One query's answer in the buyer's units beside every bundled measurement of the same card,
model size and software.

    .venv/bin/python -m bench.units_query --gpu rtx-4090 --params-b 8 [--batch 1]
        [--software llama.cpp] [--task llm-inference] [--weights fp16]

Prints our throughput (and, where the bundled data price the card, dollars per 1M tokens),
then each measured row of the same GPU and software whose model is within 1.5x of the
size: what it measured, what the served model predicts for that row's own setting (its
batch, prompt, quantisation), and the ratio. The measured rows are the level's own data
(docs/model/units.md says which are held out), so this shows agreement, not a held-out
score.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from shared.builds.predict import predict_full
from shared.perfmodel import units as u
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.lab import units_fit as uf
from shared.perfmodel.workloads import LLM_DECODE, LLM_SERVING, TRAINING_LLM

SIZE_BAND = 1.5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", default="rtx-4090")
    parser.add_argument(
        "--task", default="llm-inference", choices=["llm-inference", "llm-training"]
    )
    parser.add_argument("--params-b", type=float, default=8.0)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--weights", default=None)
    parser.add_argument("--software", default=None, choices=u.SOFTWARE)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    model = ClassModel()
    llm_args = (
        {"batch": args.batch, "weights": args.weights} if args.task == "llm-inference" else {}
    )
    answer = predict_full(
        model,
        args.gpu,
        args.task,
        "fp16",
        params_b=args.params_b,
        software=args.software,
        **llm_args,
    )
    throughput = answer["throughput"]
    if throughput is None:
        print(f"{args.gpu} cannot hold this: {answer['fit']}")
        return 1
    print(
        f"query: {args.gpu}, {args.task}, {args.params_b:g}B, batch {args.batch}: "
        f"{throughput['value']:,.4g} {throughput['unit']} "
        f"(80 % {throughput['interval'][0]:,.4g}-{throughput['interval'][1]:,.4g}), "
        f"software {throughput['software']}"
    )
    if throughput.get("ttft_ms") is not None:
        print(
            f"  per user {throughput['per_user']:,.4g} tokens/s, "
            f"TTFT {throughput['ttft_ms']:.0f} ms"
        )
    print("reading the bundled measurements ...", file=sys.stderr)
    rows = uf.all_rows(model)
    levels = uf.fitted_levels(rows)
    kind = "decode" if args.task == "llm-inference" else TRAINING_LLM
    key = u.level_key(kind, throughput["software"])
    key = (
        key
        if key in levels
        else u.level_key(kind, u.BORROWED_LEVEL.get(throughput["software"], u.LLAMA_CPP))
    )
    classes = (LLM_DECODE, LLM_SERVING) if args.task == "llm-inference" else (TRAINING_LLM,)
    same = [
        r
        for r in rows
        if r.gpu_id == args.gpu
        and r.key == key
        and r.product_class in classes
        and r.params_b is not None
        and abs(math.log(r.params_b / args.params_b)) <= math.log(SIZE_BAND)
    ]
    scale = levels[key].scale
    print(f"\n{len(same)} measured rows of {args.gpu} on {key} within {SIZE_BAND}x of the size:")
    print(f"{'table':58s} {'size':>6s} {'measured':>10s} {'ours':>10s} {'ours/meas':>9s}")
    ratios = []
    for r in sorted(same, key=lambda r: r.table):
        ours = r.model * scale
        ratios.append(ours / r.measured)
        held = " (held out)" if r.held_out else ""
        print(
            f"{(r.table + held)[:58]:58s} {r.params_b:6.3g} {r.measured:10.4g} {ours:10.4g} "
            f"{ours / r.measured:9.2f}"
        )
    if ratios:
        median = sorted(ratios)[len(ratios) // 2]
        print(f"median ours / measured: {median:.2f} over {len(ratios)} rows")
    print(f"({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
