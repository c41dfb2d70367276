"""The calibration set: published measurements, and how close the calculators come.

``measurements.json`` holds each row as data: the calculator, the inputs a user would
give (a GPU preset, a model from the catalogue, the precision), the output compared,
the measured value, its source, URL and date, and the band the estimate must stay in
(0.8-1.25x unless the row says why it misses). ``evaluate`` runs every row through
``compute.run_inline``, the path the page, the API and ``manage.py calc`` share, so the
ratios are what a user sees. The default efficiencies (``kernels/efficiency.py``) were
fitted on these rows only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from statistics import median
from typing import Any

MEASUREMENTS = Path(__file__).with_name("measurements.json")
TARGET_BAND = (0.8, 1.25)


@dataclass(frozen=True, eq=False)  # hashed by identity: each row is one fixed record
class Row:
    id: str
    calculator: str
    preset: str | None
    inputs: dict[str, Any]
    output: str
    measured: float
    unit: str
    configuration: str
    source: str
    url: str
    date: str
    band: tuple[float, float]
    explained: str = ""


@dataclass(frozen=True)
class Result:
    row: Row
    estimate: float

    @property
    def ratio(self) -> float:
        return self.estimate / self.row.measured

    @property
    def log_miss(self) -> float:
        return abs(math.log(self.ratio))

    @property
    def in_band(self) -> bool:
        low, high = self.row.band
        return low <= self.ratio <= high

    @property
    def in_target(self) -> bool:
        return TARGET_BAND[0] <= self.ratio <= TARGET_BAND[1]


@cache
def rows() -> tuple[Row, ...]:
    data = json.loads(MEASUREMENTS.read_text(encoding="utf-8"))
    return tuple(
        Row(**{**r, "band": tuple(r["band"]), "explained": r.get("explained", "")})
        for r in data["rows"]
    )


def evaluate(selected: tuple[Row, ...] | None = None) -> list[Result]:
    """Every row's estimate, computed as a user would get it."""
    return [_result(row) for row in (rows() if selected is None else selected)]


@cache
def _result(row: Row) -> Result:
    # Rows are fixed data, so one process computes each estimate once (pages reuse it).
    from calculators.compute import run_inline

    result = run_inline(row.calculator, dict(row.inputs), preset=row.preset)
    return Result(row, float(result["outputs"][row.output]))


def median_log_miss(results: list[Result]) -> float:
    """The median |ln(estimate / measured)| (0.22 is a factor of 1.25)."""
    return median(r.log_miss for r in results)


def nearest(calculator: str, inputs: dict[str, Any], limit: int = 3) -> list[Result]:
    """The published rows for ``calculator`` nearest a page's inputs: same GPU preset and
    model first, then same precision, then the rest, with their estimates."""

    def score(row: Row) -> tuple[int, str]:
        same = sum(
            1
            for key in ("model", "weight_precision", "op", "precision", "tp")
            if key in row.inputs and row.inputs.get(key) == inputs.get(key)
        )
        return (-(same + 2 * (row.preset == inputs.get("preset"))), row.id)

    candidates = sorted((r for r in rows() if r.calculator == calculator), key=score)
    return evaluate(tuple(candidates[:limit]))


# What each performance calculator leaves out, shown under its published rows.
LEAVES_OUT = {
    "serving_estimate": (
        "Kernel quality of a given engine version (one row misses by 2.2x for it), "
        "speculative decoding, CUDA graphs and sampling, and variable request lengths. "
        "Mixtral 8x7B (experts sharded by tensor parallelism) checks the MoE weight reads; "
        "SGLang's DeepSeek-V3 deployment on 96 H100s checks expert parallelism with DeepEP's "
        "all-to-alls (decode within band without two-batch overlap). Two-batch overlap is "
        "modelled as published, max(compute, all-to-all), which overstates its measured "
        "gain (those rows 1.55-1.67x): SMs held by communication kernels and expert load "
        "imbalance are not inputs, and every layer is counted as an MoE layer. Published "
        "results outside this table depend on the engine: TensorRT-LLM 1.0's (2025) dense "
        "FP8 rows on one or two H100s or one H200 come out at 0.80-1.00x (rows of an "
        "earlier check, whose misses shaped today's defaults), while 2023 releases "
        "(TensorRT-LLM 0.5-0.7: Llama 2 70B at 2,048-4,096 output tokens) and runs with "
        "thousands of sequences in flight (DeepSeek-R1 with expert parallelism, Mixtral at "
        "FP4) measured 1.76-3.4x below it: for an older engine or such a run, read its "
        "throughput as an upper bound. Separately, TensorRT-LLM admits a request only "
        "with its whole sequence set aside: admission = reserved gives its max_concurrency "
        "(the speed of a step is the same either way)."
    ),
    "training_budget": (
        "Failures and restarts, long-context and annealing stages, recomputation, and "
        "how MFU falls for small models on large clusters (the Llama 3.1 8B and 70B rows; "
        "SmolLM3 3B on 384 GPUs came out 0.64x), and MoE training, whose all-to-alls and "
        "small expert GEMMs the default MFU does not see (DeepSeek-V2 came out 0.51x)."
    ),
    "collective_time": (
        "Message sizes too small to reach the protocol's bandwidth (NCCL's LL and LL128 "
        "protocols and its per-size tree corrections), the two-node tree and NVLS-tree "
        "shortcuts that put busbw above the network's rate, SHARP in the switches, and "
        "contention with other traffic. The algorithm is chosen as NCCL's tuner does, from "
        "this model's own times. No published all-to-all row is in the set yet. Four "
        "nodes of H100 over RoCE measured half the bus bandwidth this gives (NCCL issue "
        "1031), which the model, whose ring bandwidth does not fall with node count, "
        "cannot show."
    ),
    "prefill": (
        "No published row in the set yet: serving_estimate's prefill_ms rows (TTFT at "
        "batch 1) are its nearest check."
    ),
    "decode_bound": (
        "No published row in the set yet: serving_estimate's throughput rows exercise the "
        "same weight-and-KV read."
    ),
    "roofline": "No published row in the set yet.",
    "local_fit": "No published row in the set yet.",
}


def page_section(slug: str, inputs: dict[str, Any], preset: str = "") -> dict[str, Any] | None:
    """The "How close is this to reality?" section for a calculator page: the published
    rows nearest the inputs with their estimates, and what the estimate leaves out. None
    for calculators that predict no measured performance."""
    if slug not in LEAVES_OUT:
        return None
    chosen = dict(inputs)
    if preset:
        chosen["preset"] = preset.split(",")[0]
    near = nearest(slug, chosen) if any(r.calculator == slug for r in rows()) else []
    return {
        "rows": [
            {
                "source": r.row.source,
                "url": r.row.url,
                "date": r.row.date,
                "configuration": r.row.configuration,
                "output": r.row.output,
                "unit": r.row.unit,
                "measured": r.row.measured,
                "estimate": r.estimate,
                "ratio": r.ratio,
                "explained": r.row.explained,
            }
            for r in near
        ],
        "leaves_out": LEAVES_OUT[slug],
    }
