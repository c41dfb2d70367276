"""Hypothesis properties of the kernels."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculators.kernels import availability, decode_bound, roofline
from tests.calculators.brief import BRIEF_SLUGS

pos = st.floats(min_value=1e-3, max_value=1e4, allow_nan=False, allow_infinity=False)
frac = st.floats(min_value=0.05, max_value=1.0)
batch = st.integers(min_value=1, max_value=4096)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(pos, pos, batch, pos, frac), min_size=1, max_size=20))
def test_decode_broadcast_equals_loop_of_scalar_calls(rows):
    params, bw, b, peak, eff = (np.array(c) for c in zip(*rows, strict=True))
    vec = decode_bound(
        params_b=params,
        bytes_per_param=2,
        bandwidth_tbs=bw,
        batch_size=b,
        peak_tflops=peak,
        bandwidth_efficiency=eff,
        kv_gb_per_seq=0.01,
    )
    for i, row in enumerate(rows):
        one = decode_bound(
            params_b=row[0],
            bytes_per_param=2,
            bandwidth_tbs=row[1],
            batch_size=row[2],
            peak_tflops=row[3],
            bandwidth_efficiency=row[4],
            kv_gb_per_seq=0.01,
        )
        for name, value in one.items():
            if np.asarray(value).dtype.kind in "fc":
                assert vec[name][i] == pytest.approx(value, rel=1e-12), name
            else:
                assert vec[name][i] == value, name


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(pos, pos, pos), min_size=1, max_size=20))
def test_roofline_broadcast_equals_loop_of_scalar_calls(rows):
    peak, bw, ai = (np.array(c) for c in zip(*rows, strict=True))
    vec = roofline(peak_tflops=peak, bandwidth_tbs=bw, intensity=ai)
    for i, (p, b, a) in enumerate(rows):
        one = roofline(peak_tflops=p, bandwidth_tbs=b, intensity=a)
        assert vec["attainable_tflops"][i] == pytest.approx(float(one["attainable_tflops"]))
        assert vec["bound"][i] == one["bound"]


@settings(max_examples=100, deadline=None)
@given(pos, pos, pos, pos, batch, st.floats(min_value=1.0, max_value=100.0))
def test_more_bandwidth_never_lowers_tokens_per_s(params, bw, peak, kv, b, factor):
    kwargs = dict(
        params_b=params, bytes_per_param=2, batch_size=b, kv_gb_per_seq=kv / 100, peak_tflops=peak
    )
    slow = decode_bound(bandwidth_tbs=bw, **kwargs)
    fast = decode_bound(bandwidth_tbs=bw * factor, **kwargs)
    assert fast["tokens_per_s_per_user"] >= slow["tokens_per_s_per_user"] * (1 - 1e-12)
    assert fast["tokens_per_s_total"] >= slow["tokens_per_s_total"] * (1 - 1e-12)


@settings(max_examples=100, deadline=None)
@given(pos, pos, st.floats(min_value=0, max_value=1e9))
def test_attainable_never_exceeds_peak(peak, bw, ai):
    out = roofline(peak_tflops=peak, bandwidth_tbs=bw, intensity=ai)
    assert out["attainable_tflops"] <= peak
    assert out["attainable_tflops"] <= ai * bw * (1 + 1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=6), st.floats(min_value=0.0, max_value=0.9))
def test_availability_downtime_falls_tenfold_per_nine(nines, extra):
    # availability with k nines (plus a fractional part) against k + 1 nines
    down = 10.0 ** -(nines + extra) * 100
    a = availability(availability_pct=100 - down)
    b = availability(availability_pct=100 - down / 10)
    assert a["downtime_min_per_year"] / b["downtime_min_per_year"] == pytest.approx(10, rel=1e-6)
    assert b["nines"] - a["nines"] == pytest.approx(1, abs=1e-6)


def _column_inputs(slug, factors):
    """The spec example with every float input turned into a column of scaled values,
    clipped into the input's range, so all kernels get a multi-point broadcast."""
    from calculators.specs import NUMBER, SPECS
    from calculators.validation import validate

    spec = SPECS[slug]
    example = {k: v[0] if isinstance(v, list) else v for k, v in spec.example.items()}
    clean = validate(slug, example)
    out = {}
    for name, value in clean.items():
        inp = spec.input(name)
        if inp.kind == NUMBER and not isinstance(value, list):
            col = []
            for f in factors:
                v = value * f
                if inp.max is not None:
                    v = min(v, inp.max)
                if inp.min is not None:
                    v = max(v, inp.min + (1e-9 if inp.min_exclusive else 0))
                col.append(v)
            out[name] = col
        else:
            out[name] = value
    return out


@pytest.mark.parametrize("slug", BRIEF_SLUGS)
@settings(max_examples=15, deadline=None)
@given(factors=st.lists(st.floats(min_value=0.25, max_value=1.0), min_size=2, max_size=5))
def test_every_kernel_broadcast_equals_loop_of_scalar_calls(slug, factors):
    from calculators.compute import _as_array
    from calculators.kernels import KERNELS
    from calculators.specs import SPECS

    spec, kernel = SPECS[slug], KERNELS[slug]
    inputs = spec.kernel_inputs(_column_inputs(slug, factors))
    n = len(factors)
    vec = kernel(**{k: _as_array(spec, k, v) for k, v in inputs.items()})
    for i in range(n):
        point = {
            k: (v[i] if isinstance(v, list) and len(v) == n else v[0] if isinstance(v, list) else v)
            for k, v in inputs.items()
        }
        one = kernel(**{k: _as_array(spec, k, v) for k, v in point.items()})
        for name, value in one.items():
            got = np.broadcast_to(vec[name], (n,))[i]
            if np.asarray(value).dtype.kind in "fc":
                assert got == pytest.approx(float(value), rel=1e-12, nan_ok=True), name
            else:
                assert got == value, name
