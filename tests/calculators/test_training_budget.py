"""training_budget's default MFU (issue 32): fitted on whole runs' GPU-hours, it is an MFU
over the run with those runs' pipeline bubbles inside it, so a stated pp does not charge
the bubble again; a given mfu is the rate while computing, with the bubble on top."""

import pytest

from calculators.kernels import training_budget


def test_the_default_mfu_is_over_the_run_so_its_bubble_is_not_charged_twice() -> None:
    # The default BF16 0.40 was fitted on whole runs' GPU-hours (Llama 3.1 405B among
    # them, trained with 16 pipeline stages): the bubble is inside it. 405.9B params,
    # 15.6T tokens: 6·N·D = 3.79966e25 FLOP over 16,384 × 989e12 × 0.40 = 5.8622 s·1e6
    # = 67.85 days, the same with or without pp = 16.
    base = dict(params_b=405.9, tokens_b=15600, gpus=16384, peak_tflops=989, tp=8)
    flat = training_budget(**base)
    piped = training_budget(**base, pp=16, microbatches=64, virtual_stages=2)
    days = 6 * 405.9e9 * 15600e9 / (16384 * 989e12 * 0.40) / 86400
    assert float(flat["days"]) == pytest.approx(days)
    assert float(piped["days"]) == pytest.approx(days)
    assert float(piped["mfu_run"]) == pytest.approx(0.40)
    # overhead (16 − 1)/(2 · 64) = 15/128; while computing 0.40 × (1 + 15/128) = 0.446875
    assert float(piped["mfu_used"]) == pytest.approx(0.446875)
    assert bool(piped["default_mfu_feasible"])
    # 8 micro-batches, plain 1F1B: overhead 15/8, 0.40 × 23/8 = 1.15 while computing is
    # impossible, and the output says so.
    bubbly = training_budget(**base, pp=16)
    assert float(bubbly["mfu_used"]) == pytest.approx(1.15)
    assert not bool(bubbly["default_mfu_feasible"])
    given = training_budget(**base, pp=16, mfu=0.40)
    assert "default_mfu_feasible" not in given  # no default in use
    # A given mfu is "while computing": the bubble lengthens the run by 23/8.
    assert float(given["days"]) == pytest.approx(days * 23 / 8)


def test_the_page_explains_a_default_mfu_a_schedule_cannot_reach() -> None:
    from calculators.compute import run_inline

    inputs = {"params_b": 405.9, "tokens_b": 15600, "gpus": 16384, "peak_tflops": 989, "pp": 16}
    ok = run_inline("training_budget", {**inputs, "microbatches": 64})
    bad = run_inline("training_budget", inputs)
    assert not any("above 100%" in t for t in ok["establishes"])
    assert any("above 100%" in t for t in bad["establishes"])
    lines = bad["steps"][0]["lines"]
    assert any(line.startswith("MFU over the run = the default for BF16") for line in lines)
    assert bad["outputs"]["default_mfu_feasible"] is False
