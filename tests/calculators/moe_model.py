"""A small MoE deployment whose figures are easy to work out by hand, shared by the
serving_estimate tests that check MoE terms against hand-derived values."""

# 100B total, 28B active, 10 experts, top-2: one expert (100 − 28) / (10 − 2) = 9B, all
# ten 90B (180 GB at BF16), dense 10B (20 GB).
MOE = dict(
    params_b=100, active_params_b=28, experts=10, experts_per_token=2, hidden=4096,
    layers=10, heads=8, kv_heads=8, head_dim=128, device_memory_gb=80, bandwidth_tbs=1.0,
    peak_tflops=100, compute_efficiency=0.5, bandwidth_efficiency=1.0,
    weight_precision="bf16", kv_precision="bf16", tp=4, prompt_tokens=1000,
    output_tokens=100, concurrency=8,
)  # fmt: skip
