"""The calculator slugs the brief names (../shared/brief/calculators.md), in its order."""

BRIEF_SLUGS = (
    "roofline",
    "decode_bound",
    "mig",
    "fallback_latency",
    "weight_memory",
    "kv_cache",
    "response_time",
    "availability",
    "break_even",
    "attention_intensity",
    "sliding_window",
    "linear_params",
    "moe_active",
    "sparsity_2_4",
    "local_fit",
    "diffusion_passes",
    # second wave (calculators.md, "New calculators")
    "collective_time",
    "speculative_decoding",
    "queueing",
    "training_budget",
    "prefill",
    "serving_estimate",
    "paged_kv_capacity",
)
