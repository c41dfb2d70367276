"""What every kernel owes the layers above it, checked on every calculator.

- It returns only outputs its spec declares, each of the declared kind: counts as
  integers, yes/no as booleans, labels as text, percentages as floats. (``compute`` keeps
  only declared names, so a misspelt output would silently vanish from the page.)
- Leaving out an input the kernel defaults gives what the form's default gives: one
  default, not two that can drift apart.
- It answers the edges it documents (0/0, an overloaded queue, every draft accepted)
  with inf, nan or a limit, without a NumPy RuntimeWarning in the worker's log.

No database.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

from calculators.compute import _as_array
from calculators.kernels import KERNELS
from calculators.kernels._common import f64, i64, labels_where, safe_div
from calculators.specs import SPECS
from calculators.validation import validate
from tests.calculators.sweep_cases import CASES


def kernel_arrays(slug: str, raw: dict) -> dict[str, np.ndarray]:
    spec = SPECS[slug]
    clean = spec.kernel_inputs(validate(slug, raw))
    return {name: _as_array(spec, name, value) for name, value in clean.items()}


def same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(np.asarray(a[name]), np.asarray(b[name]), err_msg=name)


KIND_CHECKS = {
    "integer": lambda v: np.issubdtype(v.dtype, np.integer),
    "boolean": lambda v: v.dtype == bool,
    "text": lambda v: all(isinstance(x, str) for x in v.ravel().tolist()),
    # A count may be declared a plain number (formatted the same); never a string.
    "number": lambda v: np.issubdtype(v.dtype, np.number),
    "pct": lambda v: np.issubdtype(v.dtype, np.floating),
}


@pytest.mark.parametrize("slug", list(SPECS))
def test_a_kernel_returns_only_declared_outputs_of_their_declared_kind(slug):
    spec = SPECS[slug]
    declared = {o.name: o.kind for o in spec.outputs}
    raws = [raw for s, _, preset, raw in CASES if s == slug and preset is None]
    seen: set[str] = set()
    for raw in [spec.example, *raws]:
        out = KERNELS[slug](**kernel_arrays(slug, raw))
        assert set(out) <= set(declared), set(out) - set(declared)
        for name, value in out.items():
            value = np.asarray(value)
            assert KIND_CHECKS[declared[name]](value), (name, declared[name], value.dtype)
        seen |= set(out)
    assert seen == set(declared), set(declared) - seen


def defaulted_inputs():
    for slug, spec in SPECS.items():
        params = inspect.signature(KERNELS[slug]).parameters
        for inp in spec.inputs:
            param = params.get(inp.name)
            if param is None or param.default in (inspect.Parameter.empty, None):
                continue
            if inp.default is not None:
                yield slug, inp.name, inp.default


@pytest.mark.parametrize(("slug", "name", "default"), list(defaulted_inputs()))
def test_leaving_out_an_input_is_giving_the_forms_default(slug, name, default):
    spec = SPECS[slug]
    raws = [spec.example] + [raw for s, _, p, raw in CASES if s == slug and p is None]
    for raw in raws[:8]:
        arrays = kernel_arrays(slug, raw)
        arrays.pop(name, None)
        left_out = KERNELS[slug](**arrays)
        given = KERNELS[slug](**arrays, **{name: _as_array(spec, name, default)})
        same(left_out, given)


# ------------------------------------------------------------------- edges, no warnings

EDGES = [
    # ρ = 1 exactly: the backlog never drains (c/s − λ = 0), waits are infinite.
    ("queueing", {"arrival_rate": [4.0, 8.0], "service_s": 0.25, "servers": [1, 2]}),
    # No arrivals: nobody waits.
    ("queueing", {"arrival_rate": 0.0, "service_s": 0.5, "servers": 3}),
    # Every draft accepted: (1 − α^(γ+1)) / (1 − α) is 0/0, the limit is γ + 1.
    ("speculative_decoding", {"acceptance_rate": 1.0, "draft_tokens": 4, "draft_cost_ratio": 0.1}),
    # One GPU: no ring, no time, no bandwidth.
    ("collective_time", {"op": "all_reduce", "message_mb": 100, "gpus": 1, "latency_us": 0}),
    ("collective_time", {"op": "all_to_all", "message_mb": 0, "gpus": 16, "latency_us": 0}),
    # Perfect availability: zero downtime is infinitely many nines.
    ("availability", {"availability_pct": 100.0}),
]


@pytest.mark.parametrize(("slug", "kwargs"), EDGES, ids=[e[0] for e in EDGES])
def test_kernels_answer_their_edges_without_numpy_warnings(slug, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KERNELS[slug](**kwargs)


def test_the_edges_have_the_documented_answers():
    q = KERNELS["queueing"](arrival_rate=[4.0, 8.0], service_s=0.25, servers=[1, 2])
    assert q["utilization"].tolist() == [1.0, 1.0]
    assert np.isinf(q["mean_wait_s"]).all() and np.isinf(q["p99_wait_s"]).all()
    assert q["wait_probability"].tolist() == [1.0, 1.0]
    idle = KERNELS["queueing"](arrival_rate=0.0, service_s=0.5, servers=3)
    assert idle["wait_probability"] == 0 and idle["mean_wait_s"] == 0
    assert idle["p99_wait_s"] == 0 and idle["mean_response_s"] == 0.5
    spec = KERNELS["speculative_decoding"](
        acceptance_rate=1.0, draft_tokens=4, draft_cost_ratio=0.1
    )
    assert spec["expected_tokens_per_step"] == 5.0


def test_safe_div_gives_inf_and_nan_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = safe_div([1.0, 0.0, 6.0], [0.0, 0.0, 3.0])
    assert np.isinf(out[0]) and np.isnan(out[1]) and out[2] == 2.0


def test_the_array_helpers_fix_their_dtypes():
    assert f64([1, 2]).dtype == np.float64 and f64(True).dtype == np.float64
    assert i64([2.0, 3.0]).dtype == np.int64 and i64(True).dtype == np.int64
    labels = labels_where([1, 0, 2], "yes", "no")
    assert labels.dtype == object and labels.tolist() == ["yes", "no", "yes"]
    long = labels_where([True], "compute-bound at every batch size", "m")
    assert long.tolist() == ["compute-bound at every batch size"]


SWEEPS = [(slug, name, raw) for slug, name, preset, raw in CASES if preset is None]


@pytest.mark.parametrize(("slug", "name", "raw"), SWEEPS, ids=[f"{s}-{n}" for s, n, _ in SWEEPS])
def test_every_output_of_a_kernel_has_the_shape_of_its_one_swept_input(slug, name, raw):
    """Called directly (not through compute, which broadcasts again), a kernel gives every
    output the broadcast shape of its inputs, whichever one input is swept."""
    arrays = kernel_arrays(slug, raw)
    assert arrays[name].shape == (100,)
    for output, value in KERNELS[slug](**arrays).items():
        assert np.shape(value) == (100,), (output, np.shape(value))
