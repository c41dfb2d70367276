"""A practice spec and key points the graded-practice tests share."""

SPEC = {
    "target": {
        "calculator": "kv_cache",
        "output": "total_gb",
        "unit": "GB",
        "prompt": "How much KV cache does {model} need for {batch_size} sequences of "
        "{seq_len} tokens at {bytes_per_elem} bytes per element?",
    },
    "variables": {
        "model": ["llama-3.1-8b", "llama-3.1-70b"],
        "seq_len": [4096, 8192, 32768],
        "batch_size": {"min": 1, "max": 64},
    },
    "tolerance": 0.02,
    "mistakes": ["bits-for-bytes", "kv-counted-once", "missing-layers", "gb-vs-gib"],
    "follow_ups": [{"prompt": "Now at 128k context: how much?", "set": {"seq_len": 131072}}],
}
POINTS = [
    "K and V are both cached: two tensors per layer, per KV head.",
    "Bytes per token is 2 x layers x KV heads x head dim x bytes per element.",
    "Multiply by tokens per sequence and by the batch for the total.",
]
LOCKED_POINT = "A premium point that must never reach a reader without premium."
