"""Same-software anchors: an architecture whose only training evidence is a head-to-head
against a card the model knows well.

AMD's consumer RDNA 3 has no CNN or transformer training row in any bundled table except
tinycorp's MLPerf Training BERT submissions, where the same software (tinygrad) ran six
RX 7900 XTX (tinybox red) and six RTX 4090 (tinybox green) in the same rounds. The fitted
architecture offset moves that one workload's evidence onto every class (it put the
7900 XTX at 1.13x an RTX 4090 in CNN training); the anchor instead prices the card as its
partner times the measured ratios, with an interval spanning them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Anchor:
    """`gpu_id` measured against `partner` on the same software, per table."""

    gpu_id: str
    partner: str
    ratios: tuple[tuple[str, float], ...]
    source: str
    # The software both sides ran, and what else buyers run, named in the answer's caveat.
    software: str
    other_software: str
    # The workload class the ratios were measured in; other classes borrow them.
    measured_class: str

    @property
    def central(self) -> float:
        """Geometric mean of the measured ratios."""
        return math.exp(sum(math.log(r) for _, r in self.ratios) / len(self.ratios))

    @property
    def spread(self) -> tuple[float, float]:
        values = [r for _, r in self.ratios]
        return min(values), max(values)


# Per-accelerator throughput ratios, 7900 XTX / 4090, from the bundled MLPerf Training
# rows (tests recompute them): v4.1 1,234 vs 1,377, v5.0 1,684 vs 2,396 epochs/min.
ANCHORS: dict[str, Anchor] = {
    "RDNA 3": Anchor(
        gpu_id="rx-7900-xtx",
        partner="rtx-4090",
        ratios=(
            ("mlperf-training v4.1 closed bert (tinygrad)", 0.8967),
            ("mlperf-training v5.0 closed bert (tinygrad)", 0.7030),
        ),
        source="MLPerf Training v4.1 and v5.0, tinycorp tinybox red vs green, BERT, tinygrad",
        software="tinygrad",
        other_software="PyTorch on ROCm",
        measured_class="training-nlp",
    )
}
