"""serving_estimate's MoE and MLA terms (issue 32): expert parallelism, attention data
parallelism, the all-to-all per MoE layer and MLA's absorbed attention FLOPs, each against
a figure worked out by hand, and the same inputs through the API, the page and
``manage.py calc``."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from calculators.kernels import serving_estimate
from tests.calculators.moe_model import MOE  # 100B total, 28B active, 10 experts, top-2
from tests.calculators.surfaces import api_cli_page

KV_READ_MS = 8 * 1050 * 40960 / 4e12 * 1e3  # 8 requests × context 1050 × 40,960 B / (4 TB/s)


def test_defaults_leave_the_estimate_unchanged() -> None:
    base = serving_estimate(**MOE)
    same = serving_estimate(**MOE, ep=1, dp_attention=False)
    for key in ("weights_gb_per_gpu", "memory_ms", "itl_ms", "tokens_per_s_total"):
        assert float(same[key]) == float(base[key])
    assert float(base["a2a_ms"]) == 0.0
    # tensor-parallel MoE: 200 GB over 4 GPUs
    assert float(base["weights_gb_per_gpu"]) == pytest.approx(50.0)


def test_attention_data_parallel_replicates_dense_weights_by_hand() -> None:
    # dense 20 GB on every GPU + experts 180 GB / ep 4 = 65 GB a GPU; the step reads 4 × 65
    # = 260 GB over 4 TB/s = 65 ms, plus the KV; pool (72 − 65) × 4 = 28 GB.
    # (overlap none: two-batch overlap reads the weights twice, tested in test_ep_overlap)
    out = serving_estimate(**MOE, ep=4, dp_attention=True, overlap="none")
    assert float(out["weights_gb_per_gpu"]) == pytest.approx(65.0)
    assert float(out["kv_pool_gb"]) == pytest.approx(28.0)
    assert float(out["memory_ms"]) == pytest.approx(260e9 / 4e12 * 1e3 + KV_READ_MS)
    # experts over ep 2 (each held by two of the four GPUs): 20 / 4 + 180 / 2 = 95 GB
    assert float(serving_estimate(**MOE, ep=2)["weights_gb_per_gpu"]) == pytest.approx(95.0)


def test_all_to_all_per_moe_layer_by_hand() -> None:
    # The NCCL bulk all-to-all, added in series (a2a_backend nccl, overlap none). Each GPU sends 8 / 4 = 2 tokens × top-2 × 4096 × 2 B = 32,768 B. collective_time's
    # all-to-all over 4 GPUs of a node: (4 − 1) / 4 of it over NVLink at 450 × 0.82 GB/s,
    # plus 3 steps × 5 µs; dispatch and combine in each of the 10 layers.
    one_s = 0.75 * 32768e-9 / (450 * 0.82) + 3 * 5e-6
    bulk = dict(a2a_backend="nccl", overlap="none")
    out = serving_estimate(**MOE, ep=4, **bulk)
    assert float(out["a2a_ms"]) == pytest.approx(2 * 10 * one_s * 1e3)
    plain = serving_estimate(**MOE)
    assert float(out["itl_ms"]) == pytest.approx(float(plain["itl_ms"]) + 2 * 10 * one_s * 1e3)
    # the link figure, when given, is the one the all-to-all runs over
    slow = serving_estimate(**MOE, ep=4, tp_link_gbs=100, **bulk)
    tp_ms = float(serving_estimate(**MOE, tp_link_gbs=100)["tp_comm_ms"])
    one_slow = 0.75 * 32768e-9 / (100 * 0.82) + 3 * 5e-6
    assert float(slow["a2a_ms"]) == pytest.approx(20 * one_slow * 1e3)
    assert float(slow["tp_comm_ms"]) == pytest.approx(tp_ms) and tp_ms > 0
    # attention data parallel: no attention all-reduces
    assert float(serving_estimate(**MOE, tp_link_gbs=100, dp_attention=True)["tp_comm_ms"]) == 0


def test_ep_without_the_moe_fields_is_refused() -> None:
    dense = {k: v for k, v in MOE.items() if k not in ("experts", "experts_per_token")}
    with pytest.raises(ValueError, match="experts"):
        serving_estimate(**dense, ep=4)


def test_mla_absorbed_attention_at_the_attention_precision_by_hand() -> None:
    # Per request: 2 × 28e9 linear FLOPs + layers 10 × context 1050 × 2 × heads 8 ×
    # (2 × 512 + 64) = 17,408 FLOPs, charged × 2 (BF16 attention on an FP8 peak): 34,816.
    kw = {**MOE, "weight_precision": "fp8", "kv_lora_rank": 512, "rope_head_dim": 64}
    out = serving_estimate(**kw)
    flops = 8 * (2 * 28e9 + 10 * 1050 * 34816)
    assert float(out["compute_ms"]) == pytest.approx(flops / (4 * 100e12 * 0.5) * 1e3)
    fp8 = serving_estimate(**kw, attention_precision="fp8")
    assert float(fp8["compute_ms"]) == pytest.approx(
        8 * (2 * 28e9 + 10 * 1050 * 17408) / (4 * 100e12 * 0.5) * 1e3
    )


INPUTS = {
    "model": "deepseek-v3",
    "weight_precision": "fp8",
    "tp": 8,
    "ep": 8,
    "dp_attention": True,
    "prompt_tokens": 1000,
    "output_tokens": 1000,
    "concurrency": 64,
}


@pytest.mark.django_db
def test_the_same_through_api_page_and_cli(client, published) -> None:
    api, cli, html = api_cli_page(client, INPUTS, "h200")
    for key in ("weights_gb_per_gpu", "a2a_ms", "itl_ms"):
        assert api[key] == pytest.approx(cli[key]) and cli[key] > 0
    assert "Expert-parallel all-to-alls per decode step" in html
    assert "EP all-to-alls" in html


@pytest.mark.django_db
def test_dense_and_moe_models_in_one_sweep(client) -> None:
    # A dense model beside an MoE one: one "expert" read by every token, so no expert
    # weights and no all-to-all for it; the MoE column keeps its own.
    query = (
        "model=llama-3.1-70b,qwen3-235b-a22b&weight_precision=fp8&kv_precision=fp8&tp=8"
        "&ep=8&prompt_tokens=2000&output_tokens=500&concurrency=64&preset=h200"
    )
    out = StringIO()
    args = [a for a in query.split("&") if not a.startswith("preset")]
    call_command("calc", "serving_estimate", *args, "--preset", "h200", "--json", stdout=out)
    data = json.loads(out.getvalue())
    dense_a2a, moe_a2a = data["a2a_ms"]
    assert dense_a2a == 0 and moe_a2a > 0
    # embedding and lm_head (128,256 × 8,192 each) stay BF16, as weight_memory counts them:
    # (70.6 − 2.1014) × 1 B + 2.1014 × 2 B = 72.70 GB over 8 GPUs
    table_b = 2 * 128_256 * 8_192 / 1e9
    assert data["weights_gb_per_gpu"][0] == pytest.approx((70.6 + table_b) / 8)
    assert data["embedding_gb"][0] == pytest.approx(2 * table_b)


@pytest.mark.django_db
def test_bad_ep_is_refused_naming_the_field(client) -> None:
    bad = {**INPUTS, "ep": 3}
    response = client.post(
        "/api/v1/calculators/serving_estimate/runs/",
        json.dumps({"inputs": bad, "preset": "h200"}),
        content_type="application/json",
    )
    assert response.status_code == 422 and response.json()["error"]["fields"]["ep"]
    dense = {**INPUTS, "model": "llama-3.1-70b"}
    response = client.post(
        "/api/v1/calculators/serving_estimate/runs/",
        json.dumps({"inputs": dense, "preset": "h200"}),
        content_type="application/json",
    )
    assert response.status_code == 422 and response.json()["error"]["fields"]["experts"]


@pytest.mark.django_db
def test_new_inputs_in_the_openapi_schema(client) -> None:
    text = json.dumps(client.get("/api/schema/", {"format": "json"}).json())
    for name in ("dp_attention", "experts_per_token", "attention_precision", "a2a_ms", "pool"):
        assert name in text, name
