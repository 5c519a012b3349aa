"""The served training prediction on the report's held-out protocol (docs/model/classes.md):
the product's cv/nlp classes use Lambda's mix without the MLPerf benchmarks' own
matrix-multiply shares, so their errors on the same refits are shown beside the fit's."""

from __future__ import annotations

from collections.abc import Sequence

from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.lab.classeval import Evaluation, quantile
from shared.perfmodel.lab.pair_scores import Scored, percent
from shared.perfmodel.lab.pairs import GPU_PAIR
from shared.perfmodel.workloads import MLPERF_LLM_TRAINING, TRAINING_LLM

_TRAINING = (bm.TRAINING_CV, bm.TRAINING_NLP)


def _cells(scored: Sequence[Scored], klass: str | None) -> list[str]:
    errors = [
        s.model_log_error
        for s in scored
        if s.pair.kind == GPU_PAIR and (s.pair.workload_class == klass or klass is None)
    ]
    if not errors:
        return ["-", "-", "-"]
    median, p90 = percent(quantile(errors, 0.5)), percent(quantile(errors, 0.9))
    return [str(len(errors)), f"{median:.1%}", f"{p90:.1%}"]


def served_lines(evaluation: Evaluation) -> list[str]:
    """Markdown: the fit's row predictor and the served prediction, per training class and
    protocol, on the same held-out refits."""
    lines = [
        "## The served training prediction on the same protocol",
        "",
        "The product's training classes (cv, nlp in /recommend and /model/predict) predict "
        "Lambda's mix: the calibrated base, the training architecture offset and the "
        "power-limited clock on the mix's matrix share, exactly as the fit's rows do; "
        "since `calibrated-2026.12.6` the nlp class also carries MLPerf BERT's fitted "
        "matrix-multiply share (as the fit predicts BERT rows), cv none (no CNN benchmark "
        "has one). Scored on the same refits (each held-out table or GPU, the row's "
        "precision; the served nlp prediction with BERT's share on every nlp pair), the "
        "served prediction gives:",
        "",
        "| protocol | class | pairs | fit's row predictor median | p90 | pairs "
        "| served median | p90 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    protocols = (
        ("leave one table out", evaluation.loto, evaluation.served_loto),
        ("leave one GPU out", evaluation.logo, evaluation.served_logo),
    )
    for protocol, fitted, served in protocols:
        rows: list[tuple[str, str | None]] = [(k, k) for k in _TRAINING]
        if protocol == "leave one GPU out":
            rows.append(("training (cv + nlp)", None))
        for label, klass in rows:
            training = [s for s in fitted if s.pair.workload_class in _TRAINING]
            cells = [protocol, label, *_cells(training, klass), *_cells(served, klass)]
            lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "The served nlp class is Lambda's transformer mix (BERT and Transformer-XL "
        "fine-tuning, GNMT), on which the training base is calibrated (report.md), plus "
        f"BERT's matrix share ({evaluation.full.gemm_share.get('bert', 0.0):.2f}): on "
        "BERT pairs it is the fit's row predictor. Most MLPerf transformer rows are LLM "
        "training (Llama 2 70B LoRA, Llama 3.1 8B and 405B, GPT-3), whose fitted matrix "
        f"share ({evaluation.full.llm_training_share():.2f}) the nlp class does not apply, "
        "so for a user training large language models the served nlp ranking is the "
        "less accurate one shown here (use task llm-training). The served cv class equals "
        "the row predictor: no CNN benchmark has a share.",
        "",
        *llm_training_lines(evaluation),
    ]
    return lines


def _llm(scored: Sequence[Scored]) -> list[Scored]:
    return [s for s in scored if s.pair.workload in MLPERF_LLM_TRAINING]


def llm_training_lines(evaluation: Evaluation) -> list[str]:
    """Markdown: the LLM training benchmarks' pairs by the fit's rows, the served nlp class
    and the served training-llm class, on the same refits."""
    share = evaluation.full.llm_training_share()
    lines = [
        "For them the product has the `llm-training` task (class training-llm): the nlp "
        "prediction plus the LLM benchmarks' fitted matrix share (one share since round "
        f"six, {share:.2f} in the full fit; each refit uses its own), at the precision "
        "asked for. On the pairs of those benchmarks (GPT-3, Llama 2 70B LoRA, Llama 3.1 "
        "8B and 405B), the same refits give:",
        "",
        "| protocol | pairs | fit's row predictor median | p90 | served nlp median | p90 "
        "| served training-llm median | p90 | 80 % interval holds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    protocols = (
        (
            "leave one table out",
            evaluation.loto,
            evaluation.served_loto,
            evaluation.served_llm_loto,
        ),
        ("leave one GPU out", evaluation.logo, evaluation.served_logo, evaluation.served_llm_logo),
    )
    coverage = evaluation.coverage.get(TRAINING_LLM)
    for protocol, fitted, nlp, llm in protocols:
        fit_cells, nlp_cells = _cells(_llm(fitted), None), _cells(_llm(nlp), None)
        held = f"{coverage:.0%}" if protocol == "leave one table out" and coverage else "-"
        cells = [protocol, *fit_cells, *nlp_cells[1:], *_cells(llm, None)[1:]]
        lines.append("| " + " | ".join([*cells, held]) + " |")
    lines += [
        "",
        "With one share for the LLM benchmarks the served training-llm class is the fit's "
        "row predictor on these pairs (if they had shares of their own, it would take their "
        "median: FittedParams.llm_training_share); its interval is the 80 % quantile of its "
        "own leave-one-table-out errors above, and its coverage is checked as for the "
        "other classes (each table against the other tables' errors).",
        "",
    ]
    return lines
