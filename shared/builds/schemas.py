"""The choices a request that prices or times a build accepts, one Literal each.

The API's schemas and the domains' request schemas use these, so a choice is spelled once;
tests/shared/builds/test_schemas.py keeps them in step with the catalog and constants.
"""

from __future__ import annotations

from typing import Literal

MAX_GPUS = 512  # the largest build any request prices
Task = Literal[
    "cv",
    "nlp",
    "llm-inference",
    "llm-training",
    "image-generation",
    "video",
    "rl",
    "kaggle",
    "prototyping",
]
Precision = Literal["fp16", "bf16", "tf32", "fp32", "fp8", "int8"]
# "auto": modules in servers, GeForce cards in workstations of up to 4, other cards in a
# workstation up to 4 and in 8-GPU servers beyond (the layout's `reason` says which).
Deployment = Literal["auto", "workstation", "datacenter"]
Network = Literal["infiniband", "ethernet"]
Pricing = Literal["on-demand", "spot"]
# What a throughput in the buyer's units assumes (shared/perfmodel/units.py: SOFTWARE).
Software = Literal["vllm", "sglang", "trt-llm", "llama.cpp", "pytorch"]
# What a bought GPU is priced at; /recommend and compare candidates also take "cloud".
MarketCondition = Literal["new", "used", "any"]
Condition = Literal["new", "used", "any", "cloud"]

# The `as_of` field of /recommend, /gpus/{id}, /tco and /prices/check (and their CLI
# options): text, checked where it is answered against the stored prices
# (shared/scoring/as_of.py), so a malformed date's 422 names the valid range too.
AS_OF_DESCRIPTION = (
    "YYYY-MM-DD: answer with only the prices observed by the end of that day (UTC), aged "
    "as of it, from the first stored price to today; the performance model is today's"
)
