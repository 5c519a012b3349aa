"""The llm-training class's matrix-multiply share by model size and mode.

MLPerf's LLM training benchmarks (Llama 3.1 8B up to 405B, Llama 2 70B LoRA, GPT-3) fit
one share of the reference's time in large matrix multiplies: 0.99 (classes.md, round
six). Applied to every size it made small fine-tunes matrix-rate bound, which they are not
(GPU-Insights: H100 SXM / RTX 5090 training a 25 M-parameter model is 2.1x, not the 6.9x
the 0.99 share gives). The share here keeps MLPerf's value from its smallest LLM (8 B) up
and falls below it as a power of the size:

    share(P, mode) = ceiling x min(1, (P / 8 B) ** k) x (QLORA_MATRIX_FACTOR for qlora)

with k fitted on GPU-Insights and Answer.AI pairs (bench/llm_training_report.py, which
writes docs/model/llm_training.md with the held-out figures of each split). LoRA and
QLoRA freeze the base (no weight gradients), which changes every GPU's time alike, not
the ratios; QLoRA also dequantises its 4-bit weights on every pass, elementwise work that
is not matrix-rate bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.perfmodel.memory import FULL, FULL_FINETUNE, LORA, QLORA

# Accepted names (the memory model's "full-finetune" is the same mode).
MODE_ALIASES = {FULL_FINETUNE: FULL}
TRAINING_MODES = (FULL, FULL_FINETUNE, LORA, QLORA)
# The smallest MLPerf LLM training benchmark (Llama 3.1 8B), fitted with the shared share.
CEILING_FROM_B = 8.0
# Fitted on all GPU-Insights and Answer.AI pairs (in-sample; the held-out figures of each
# split are in docs/model/llm_training.md): bench/llm_training_report.py prints it. The
# loss is flat from k = 1 up (no 0.3-3 B rows), so what the data fix is ~0 below 0.1 B and
# MLPerf's share from 34 B; the argmin moved from the grid's edge (3) to 1.7 when the Ada
# workstation cards' catalog tensor rates were halved (calibrated-2026.12.10).
SIZE_EXPONENT = 1.7
# QLoRA's dequantisation of NF4 weights per pass (forward, recompute, backward): about
# 4.5 bytes moved per weight against 2 x tokens FLOPs per weight; at 2-8 k tokens per
# micro-batch on an A100 that is 5-20 % of the matrix time. Assumed, not fitted (the
# QLoRA rows cannot separate it from FSDP's transfers).
QLORA_MATRIX_FACTOR = 0.85


@dataclass(frozen=True, slots=True)
class LlmTraining:
    """The LLM a training request trains: its size (billions) and how (full, lora, qlora).

    `size_exponent` is the fitted k unless an evaluation fold sets its own."""

    params_b: float
    mode: str = LORA
    size_exponent: float | None = None


# What /recommend's precomputed llm-training ranking assumes: an 8 B LoRA fine-tune (the
# llm-inference default size), which sits at MLPerf's share, so the ranking is the one
# served before sizes were taken.
DEFAULT_TRAINING = LlmTraining(8.0, LORA)


def canonical_mode(mode: str) -> str:
    return MODE_ALIASES.get(mode, mode)


def size_factor(params_b: float, exponent: float) -> float:
    """min(1, (P / 8 B) ** k): the share's fraction of MLPerf's at this size."""
    return float(min(1.0, (params_b / CEILING_FROM_B) ** exponent))


def matrix_share(training: LlmTraining, ceiling: float) -> float:
    """The share of the reference's time in large matrix multiplies for this training."""
    exponent = SIZE_EXPONENT if training.size_exponent is None else training.size_exponent
    share = ceiling * size_factor(training.params_b, exponent)
    if canonical_mode(training.mode) == QLORA:
        share *= QLORA_MATRIX_FACTOR
    return share
