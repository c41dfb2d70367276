"""A whole-deployment estimate: does the model fit, how many requests at once, and how
fast, for one replica of ``tp`` GPUs under continuous batching.

Units: params_b and active_params_b in billions of parameters; layers, heads, kv_heads,
head_dim, tp, tokens and concurrency counts; device_memory_gb in GB (1e9 bytes) per GPU;
bandwidth_tbs in TB/s and peak_tflops in TFLOP/s per GPU; efficiencies and
gpu_memory_utilization fractions; kv_bytes_per_token in bytes (the whole replica);
times in ms (request_s in s); throughputs in tokens/s; cost in USD per 10^6 output tokens.

The model, step by step (each line is one line of code below):
- Memory per GPU: weights params·bytes / tp; the engine may use memory × utilisation;
  what is left over, over all tp GPUs, is the KV pool. With vocab and hidden the
  embedding table and (unless tied) the lm_head, vocab·hidden each, stay BF16 (2 bytes)
  whatever the weight precision, as ``weight_memory`` counts them.
- KV bytes per token: 2·layers·kv_heads·head_dim·bytes (MHA/GQA), layers·(kv_lora_rank
  + rope_head_dim)·bytes (MLA), unless given.
- MLA under plain tensor parallelism: the latent is one vector per layer and token,
  shared by all heads, so it is not split over TP ranks: every rank of a stage holds the
  whole latent of every sequence (kv_copies = tp), the pool holds 1/tp as many tokens as
  its bytes suggest and each rank reads the whole latent every step. dp_attention is the
  remedy: each rank holds its own sequences' cache (kv_copies = 1).
- KV precision "auto" (the default): FP8 under FP8/FP6/FP4 weights, as NVIDIA's Model
  Optimizer FP8 and NVFP4 checkpoints ship it (kv_cache_quant_algo FP8, which TensorRT-LLM
  and vLLM's kv_cache_dtype="auto" then follow; an FP8 checkpoint without KV scales stays
  BF16 in vLLM: set kv_precision then); BF16 under weight-only INT8/INT4; the weights' own
  otherwise; MLA models the attention precision.
- max_concurrency: a paged KV cache (vLLM's PagedAttention, SOSP 2023) takes blocks as a
  sequence grows, so a request holds prompt + output/2 tokens over its life on average;
  the pool admits capacity / (prompt + output/2) requests. ``admission`` = ``reserved``
  models TensorRT-LLM's default capacity scheduler (GUARANTEED_NO_EVICT: a request is
  admitted only with its prompt + whole output set aside, so none is ever paused):
  capacity / (prompt + output).
- Decode step (ITL): every step reads all resident weights (at serving batch sizes an MoE
  step touches nearly every expert; at batch 1 this overstates MoE reads) and each
  request's KV at the mean decode context prompt + output/2, over tp GPUs' bandwidth;
  it computes 2·active params plus the attention 4·layers·context·heads·head_dim FLOPs
  per request. The two compose as measured kernels do, (memory^p + compute^p)^(1/p)
  with p = step_p (4, fitted on the calibration set: the slower of the two far from the
  crossover, 1.189 times either at it), plus the tensor-parallel all-reduces
  (two per layer, a latency each plus the activations over the link) when a link figure
  is given.
- Prefill (TTFT without queueing): 2·active·N + causal attention 2·layers·N²·heads·
  head_dim FLOPs for one prompt, composed with its one weight read the same way.
- pp: a replica is tp × pp GPUs; weights and the KV pool spread over all of them; the
  concurrency runs as pp micro-batches, so a step re-reads each GPU's weights once per
  micro-batch but its KV once per round (KV term / pp), and compute spreads over tp·pp.
- cache_hit_rate h: prefill computes the linear layers for (1 − h)·N new tokens and the
  causal attention of those tokens over the whole prefix, 2·layers·N²(1 − h²)·heads·hd.
- Under load: itl_loaded_ms = request time / output tokens (the prefills that share the
  steps included); ttft_loaded_ms = prefill × (1 + ρ / (2(1 − ρ))), an M/D/1 queue of
  prefill work with ρ = concurrency × prefill / request time. Per pool (disaggregated):
  prompt tokens/s of a prefill GPU, output tokens/s of a decode GPU, and pd_ratio, the
  prefill GPUs one decode GPU needs at this prompt:output mix. pool = prefill | decode
  makes the main outputs one pool's: a prefill replica's prompt tokens/s and TTFT (one
  prefill), a decode replica's output tokens/s and ITL (the bare step).
- ep and dp_attention (MoE): the experts' weights, (total − active)·E / (E − k), shard
  over ep GPUs (over tp at ep = 1); dense and attention weights over tp, or replicated on
  each GPU with dp_attention (which also drops the attention all-reduces). Each decode
  step with ep > 1 adds two all-to-alls per layer (dispatch and combine of each token's
  hidden state to its k experts). a2a_backend = deepep (default; decode on DeepEP's
  low-latency kernels: one latency plus the GPU's tokens·k·hidden bytes, FP8 out under
  FP8/FP4 weights and BF16 back, the off-node share (ep − g)/ep over the GPU's NIC and the
  rest over NVLink in parallel; prefill on its normal kernels, one network copy per
  remote node a token's experts sit on) or nccl (``collective_time``'s bulk all-to-all, ep − 1
  latency steps). overlap = two_batch (DeepSeek's dual micro-batch overlap, SGLang's
  two-batch overlap): the step is max(composed step, all-to-all), with the weights read
  once per micro-batch; none (default, as SGLang and vLLM ship it) adds them.
- dp_attention: each rank prefills its own prompts, so one prompt's FLOPs run on one GPU
  and the replica prefills tp prompts at once (the round's prefill work / tp).
- MLA (kv_lora_rank given): decode attention in the absorbed form, 2·heads·(2·kv_lora_rank
  + rope_head_dim) FLOPs per position of context and layer, at attention_precision's peak.
- Compute efficiency: one given figure serves both phases; left out, prefill and decode
  take the defaults fitted per weight precision on the calibration set
  (``efficiency.py``: prefill 0.65 at BF16, 0.45 at FP8; decode 0.5).
- Throughput: in steady state each request lives through its output_tokens decode steps
  and the prefills of the concurrency requests batched beside it (its own included), so
  request_s = (concurrency·prefill + output·ITL), and by Little's law the replica emits
  concurrency·output / request_s tokens per second.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import f64, labels_where, safe_div, shaped
from .collective_time import collective_time
from .efficiency import (
    DECODE_COMPUTE,
    PREFILL_COMPUTE,
    PROTOCOL_EFFICIENCY,
    STEP_P,
    by_precision,
    compose_step,
)

PRECISION_BYTES = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "fp6": 0.75,
    "fp4": 0.5,
    "int4": 0.5,
}
PRECISIONS = tuple(PRECISION_BYTES)
# kv_precision "auto": the KV cache follows the checkpoint's precision down to FP8, as
# NVIDIA's FP8 and NVFP4 checkpoints (TensorRT Model Optimizer) ship it: they quantise the
# KV cache to FP8 (kv_cache_quant_algo FP8), which vLLM's kv_cache_dtype="auto" reads from
# a ModelOpt config (otherwise vLLM's auto is the model's dtype: an FP8 checkpoint without
# KV scales keeps a BF16 cache); no mainstream engine stores an FP4/FP6 KV cache by
# default. Weight-only integer quantisation (INT8/INT4, AWQ/GPTQ) keeps the activations'
# BF16 cache; BF16/FP16/FP32 checkpoints keep their own. MLA models (DeepSeek) follow the
# attention precision instead: their FP8 checkpoints carry no KV quantisation and FlashMLA
# keeps a BF16 latent cache.
KV_AUTO = {
    "fp32": "fp32",
    "bf16": "bf16",
    "fp16": "fp16",
    "fp8": "fp8",
    "int8": "bf16",
    "fp6": "fp8",
    "fp4": "fp8",
    "int4": "bf16",
}
KV_PRECISIONS = ("auto", *PRECISIONS)
OVERLAPS = ("none", "two_batch")
# How the KV pool admits requests. paged: vLLM and SGLang admit on the tokens a request
# holds and preempt when the pool runs out, so over its life a request takes its prompt
# plus half its output on average. reserved: TensorRT-LLM's default capacity scheduler
# (GUARANTEED_NO_EVICT) admits a request only when its prompt plus its whole output fits,
# so that no started request is ever paused.
ADMISSIONS = ("paged", "reserved")
A2A_BACKENDS = ("deepep", "nccl")
# DeepEP's low-latency dispatch sends FP8 activations with one FP32 scale per 128
# channels (1 + 4/128 bytes per element); combine returns BF16 (2 bytes).
DISPATCH_FP8_BYTES = 1.0 + 4.0 / 128.0
FIT_NOTES = ("fits", "KV cache too small for this concurrency", "weights do not fit")


def kv_bytes_of(
    *,
    layers: ArrayLike,
    bytes_per_elem: ArrayLike,
    kv_heads: ArrayLike | None = None,
    head_dim: ArrayLike | None = None,
    kv_lora_rank: ArrayLike | None = None,
    rope_head_dim: ArrayLike | None = None,
) -> np.ndarray:
    """KV bytes per token: MLA caches layers·(kv_lora_rank + rope_head_dim) elements (one
    latent and one RoPE key per layer, shared by all heads); MHA/GQA caches a key and a
    value per KV head, 2·layers·kv_heads·head_dim."""
    if kv_lora_rank is not None and rope_head_dim is not None:
        return f64(layers) * (f64(kv_lora_rank) + f64(rope_head_dim)) * f64(bytes_per_elem)
    if kv_heads is None or head_dim is None:
        raise ValueError("kv_heads and head_dim, or kv_lora_rank and rope_head_dim, are needed")
    return 2.0 * f64(layers) * f64(kv_heads) * f64(head_dim) * f64(bytes_per_elem)


def _plus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b, written into a when a is a fresh array that already has the result's shape
    (it saves allocating and faulting in one grid-sized array)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim and a.flags.writeable and a.shape == np.broadcast_shapes(a.shape, b.shape):
        a += b
        return a
    return a + b


def _times(a: np.ndarray, k: float) -> np.ndarray:
    """a × k, in place when a is a writable array of its own."""
    a = np.asarray(a)
    if a.ndim and a.flags.writeable:
        a *= k
        return a
    return a * k


def precision_bytes(names: ArrayLike) -> np.ndarray:
    """Bytes per element for a precision name or an array of them (nan for an unknown
    name)."""
    if isinstance(names, str):  # the usual case: one precision for the whole run
        return np.asarray(PRECISION_BYTES.get(names, np.nan))
    names = np.asarray(names, dtype=str)
    out = np.full(names.shape, np.nan)
    for name, size in PRECISION_BYTES.items():
        out[names == name] = size
    return out


def kv_precision_of(kv_precision: ArrayLike, weight_precision: ArrayLike) -> ArrayLike:
    """The KV cache precision a run uses: the given one, or for "auto" the weight
    precision's entry in KV_AUTO."""
    if isinstance(kv_precision, str) and isinstance(weight_precision, str):
        return KV_AUTO.get(weight_precision, "bf16") if kv_precision == "auto" else kv_precision
    kv = np.asarray(kv_precision, dtype=object)
    wp = np.broadcast_to(
        np.asarray(weight_precision, dtype=object),
        np.broadcast_shapes(kv.shape, np.shape(weight_precision)),
    )
    auto = np.vectorize(lambda w: KV_AUTO.get(str(w), "bf16"), otypes=[object])(wp)
    return np.where(kv == "auto", auto, kv).astype(str)


def serving_estimate(
    *,
    params_b: ArrayLike,
    layers: ArrayLike,
    heads: ArrayLike,
    kv_heads: ArrayLike,
    head_dim: ArrayLike,
    device_memory_gb: ArrayLike,
    bandwidth_tbs: ArrayLike,
    peak_tflops: ArrayLike,
    prompt_tokens: ArrayLike,
    output_tokens: ArrayLike,
    concurrency: ArrayLike,
    active_params_b: ArrayLike | None = None,
    weight_precision: ArrayLike = "bf16",
    kv_precision: ArrayLike = "auto",
    tp: ArrayLike = 1,
    pp: ArrayLike = 1,
    cache_hit_rate: ArrayLike = 0.0,
    bandwidth_efficiency: ArrayLike = 0.8,
    compute_efficiency: ArrayLike | None = None,
    prefill_efficiency: ArrayLike | None = None,
    gpu_memory_utilization: ArrayLike = 0.9,
    kv_bytes_per_token: ArrayLike | None = None,
    kv_lora_rank: ArrayLike | None = None,
    rope_head_dim: ArrayLike | None = None,
    gpu_cost_per_hour: ArrayLike | None = None,
    tp_link_gbs: ArrayLike | None = None,
    allreduce_latency_us: ArrayLike = 8.0,
    ep: ArrayLike = 1,
    dp_attention: ArrayLike = False,
    experts: ArrayLike | None = None,
    experts_per_token: ArrayLike | None = None,
    hidden: ArrayLike | None = None,
    attention_precision: ArrayLike = "bf16",
    pool: ArrayLike = "both",
    step_p: ArrayLike = STEP_P,
    vocab: ArrayLike | None = None,
    tied_embeddings: ArrayLike = False,
    overlap: ArrayLike = "none",
    a2a_backend: ArrayLike = "deepep",
    gpus_per_node: ArrayLike = 8,
    nic_gbps: ArrayLike = 400.0,
    a2a_latency_us: ArrayLike = 5.0,
    admission: ArrayLike = "paged",
) -> dict[str, np.ndarray]:
    """Return the memory plan (weights_gb_per_gpu, kv_bytes_per_token, kv_pool_gb,
    kv_capacity_tokens, max_concurrency, fits, fit_note), the latencies (prefill_ms,
    itl_ms, decode_bound, request_s), the throughputs (tokens_per_s_per_user,
    tokens_per_s_total) and, with gpu_cost_per_hour, cost_per_m_output_tokens.

    ep > 1 or dp_attention need experts and experts_per_token (and ep > 1 hidden): the
    expert and dense weights are told apart from params_b and active_params_b."""
    # Not broadcast up front: inputs keep their own shapes, so in a grid over concurrency
    # and prompt length the per-model arithmetic (weights, KV size, pool) stays scalar
    # and only what depends on the swept inputs is computed per cell. That buys about 2x:
    # the 100 x 100 grid of `benchmarks/calculators.py --grid` takes 0.4-0.6 ms a call,
    # against 0.95 ms with every input broadcast to the grid's shape first.
    p, layers_, nh, nkv, hd = map(f64, (params_b, layers, heads, kv_heads, head_dim))
    mem, bw, peak, tp_ = map(f64, (device_memory_gb, bandwidth_tbs, peak_tflops, tp))
    pp_, hit = f64(pp), f64(cache_hit_rate)
    gpus = tp_ * pp_  # GPUs per replica
    n_in, n_out, conc = map(f64, (prompt_tokens, output_tokens, concurrency))
    be, util = map(f64, (bandwidth_efficiency, gpu_memory_utilization))
    # Compute efficiency by phase: a given compute_efficiency serves both phases (as it
    # always has); left out, each phase takes the fitted default for the weight precision
    # (calculators.kernels.efficiency); prefill_efficiency overrides the prefill one.
    if compute_efficiency is None:
        ce = by_precision(DECODE_COMPUTE, weight_precision)
        ce_prefill = by_precision(PREFILL_COMPUTE, weight_precision)
    else:
        ce = ce_prefill = f64(compute_efficiency)
    if prefill_efficiency is not None:
        ce_prefill = f64(prefill_efficiency)
    active = p if active_params_b is None else f64(active_params_b)
    wb = precision_bytes(weight_precision)
    # MLA models cache the latent at the attention precision (FlashMLA's BF16 cache):
    # DeepSeek's FP8 checkpoints carry no KV quantisation, so "auto" follows that instead.
    kv_used = kv_precision_of(
        kv_precision, weight_precision if kv_lora_rank is None else attention_precision
    )
    kb = precision_bytes(kv_used)

    # Memory: weights sharded over tp GPUs, the rest of the usable memory holds KV. The
    # embedding and lm_head (vocab × hidden each, one when tied) stay BF16 as quantisers
    # leave them, the rule weight_memory applies: (params − table)·bytes + table·2.
    if vocab is None or hidden is None:
        embedding_gb = np.asarray(0.0)
        weights_gb = p * wb
    else:
        copies = np.where(np.asarray(tied_embeddings, dtype=bool), 1.0, 2.0)
        table_b = f64(vocab) * f64(hidden) / 1e9 * copies
        embedding_gb = table_b * 2.0
        weights_gb = (p - table_b) * wb + embedding_gb
    ep_, dp_attn = f64(ep), np.asarray(dp_attention, dtype=bool)
    moe_layout = bool(np.any(ep_ > 1) or np.any(dp_attn))
    if moe_layout:
        # Expert parallelism and attention data parallelism: the E experts' weights are
        # (total − active)·E / (E − k) (each token reads k of the E experts, all else is
        # dense), sharded over ep GPUs (over tp at ep = 1, as tensor-parallel MoE does);
        # dense and attention weights sharded over tp, or replicated on every GPU of the
        # stage with dp_attention. A step reads each GPU's own weights, so the replica
        # reads weights_read_gb = per-GPU weights × GPUs (replicas counted).
        if experts is None or experts_per_token is None:
            raise ValueError("ep > 1 or dp_attention needs experts and experts_per_token")
        n_exp, top_k = f64(experts), f64(experts_per_token)
        # E ≤ k (a dense model, E = k = 1, swept beside an MoE one): no expert weights.
        expert_gb = np.where(n_exp > top_k, safe_div((p - active) * n_exp, n_exp - top_k), 0.0) * wb
        dense_gb = weights_gb - expert_gb
        weights_gb_per_gpu = (
            dense_gb / np.where(dp_attn, 1.0, tp_) + expert_gb / np.where(ep_ > 1, ep_, tp_)
        ) / pp_
        weights_read_gb = weights_gb_per_gpu * gpus
    else:
        weights_gb_per_gpu = weights_gb / gpus
        weights_read_gb = weights_gb
    usable_gb_per_gpu = mem * util
    kv_pool_gb = np.maximum(usable_gb_per_gpu - weights_gb_per_gpu, 0.0) * gpus
    kv_bpt = (
        kv_bytes_of(
            layers=layers_,
            kv_heads=nkv,
            head_dim=hd,
            kv_lora_rank=kv_lora_rank,
            rope_head_dim=rope_head_dim,
            bytes_per_elem=kb,
        )
        if kv_bytes_per_token is None
        else f64(kv_bytes_per_token)
    )
    # MLA's latent is not sharded by heads: under plain TP each rank keeps a whole copy.
    if kv_lora_rank is None:
        kv_copies = np.asarray(1.0)
    else:
        kv_copies = np.where(dp_attn, 1.0, tp_) if moe_layout else tp_
    kv_capacity_tokens = np.floor(safe_div(kv_pool_gb * 1e9, kv_bpt * kv_copies))
    # Paged KV (vLLM's PagedAttention, SOSP 2023): blocks are taken as a sequence grows,
    # so over its life a request holds prompt + output/2 tokens on average, not its whole
    # prompt + output reserved up front; the pool admits capacity / that many requests.
    # Under reserved admission (TensorRT-LLM's GUARANTEED_NO_EVICT) each request is admitted
    # with its prompt + whole output set aside; the KV a step reads is still what the
    # requests hold.
    resident_tokens = n_in + n_out / 2.0
    # Like the other choice inputs (pool, overlap, a2a_backend) the spec checks the value.
    reserved = np.asarray(admission, dtype=str) == "reserved"
    admitted_tokens = np.where(reserved, n_in + n_out, resident_tokens)
    max_concurrency = np.floor(kv_capacity_tokens / admitted_tokens)
    weights_fit = weights_gb_per_gpu <= usable_gb_per_gpu
    kv_fits = conc <= max_concurrency  # one comparison serves fits and the note
    all_weights_fit = bool(np.all(weights_fit))
    fits = kv_fits if all_weights_fit else weights_fit & kv_fits

    # Decode: one step reads the weights and every request's KV, and computes per request.
    context = resident_tokens
    # With pp stages the concurrency runs as pp micro-batches: a token waits a round of pp
    # slots, each GPU re-reads its weights once a slot but its KV once a round.
    # Scalars are folded into the per-prompt vectors before the one outer product, and
    # grid-sized temporaries are updated in place: each fresh grid array costs more (page
    # faults) than the arithmetic on it, so this keeps the grid benchmark at its old speed.
    to_ms_mem = 1e3 / (tp_ * bw * 1e12 * be)
    memory_ms = conc * (context * (kv_bpt * kv_copies / pp_ * to_ms_mem))
    memory_ms = _plus(memory_ms, weights_read_gb * 1e9 * to_ms_mem)
    to_ms_flop = 1e3 / (gpus * peak * 1e12 * ce)
    # Attention FLOPs per token, layer and position of context: MHA/GQA 4·heads·head_dim
    # (scores and values); MLA decodes in the absorbed form, scores over the latent and
    # RoPE key and values over the latent, 2·heads·(2·kv_lora_rank + rope_head_dim), run
    # at the attention precision (FlashMLA: BF16) whose peak is peak × weight bytes /
    # attention bytes, so it is charged × attention bytes / weight bytes.
    if kv_lora_rank is None:
        attn_flops = 4.0 * nh * hd
    else:
        rope = 0.0 if rope_head_dim is None else f64(rope_head_dim)
        charge = precision_bytes(attention_precision) / wb
        attn_flops = 2.0 * nh * (2.0 * f64(kv_lora_rank) + rope) * charge
    compute_ms = conc * ((2.0 * active * 1e9 + layers_ * context * attn_flops) * to_ms_flop)
    # Tensor parallelism: two all-reduces per layer of the step's activations (tokens ×
    # heads·head_dim, BF16), each a fixed latency plus 2(tp-1)/tp of the message over the
    # link at the ring protocol's efficiency. Left out without a link figure (tp_link_gbs,
    # which a GPU preset fills from its NVLink figure) and at tp = 1.
    if tp_link_gbs is None:  # zero, in the shape of a swept latency (which then has no use)
        decode_comm_ms = prefill_comm_ms = None
    else:
        link = f64(tp_link_gbs) * 1e9 * PROTOCOL_EFFICIENCY["ring"]
        per_token_s = 2.0 * (tp_ - 1.0) / tp_ * nh * hd * 2.0 / link
        lat_s = f64(allreduce_latency_us) / 1e6
        on = tp_ > 1

        def tp_comm_ms(tokens: np.ndarray) -> np.ndarray:
            return np.where(on, 2.0 * layers_ * (lat_s + tokens * per_token_s) * 1e3, 0.0)

        decode_comm_ms, prefill_comm_ms = tp_comm_ms(conc / pp_), tp_comm_ms(n_in * (1 - hit))
        if np.any(dp_attn):  # attention data parallel: no attention all-reduces
            decode_comm_ms = np.where(dp_attn, 0.0, decode_comm_ms)
            prefill_comm_ms = np.where(dp_attn, 0.0, prefill_comm_ms)
    # Expert parallelism: each MoE layer dispatches every token's hidden state to its k
    # experts and combines the results back (every layer counted as MoE), each GPU sending
    # the tokens of its 1/tp share of the micro-batch. a2a_backend:
    # - deepep (DeepEP, as DeepSeek's and SGLang's EP deployments run it). Decode uses the
    #   low-latency kernels: per-token RDMA writes straight to each expert's GPU, so the
    #   time is one latency plus the GPU's own bytes, tokens × k × hidden × (FP8 with
    #   scales at dispatch under FP8/FP4 weights, else BF16; BF16 at combine), the share
    #   bound off the node ((ep − g)/ep) over its NIC and the rest over NVLink, in
    #   parallel; not a bulk all-to-all's ep − 1 ring steps. Prefill uses the normal
    #   kernels, which forward over NVLink inside the destination node: a token crosses
    #   the network once per remote node its k experts sit on, not once per expert; with
    #   experts spread evenly over N = ep/g nodes that is (N − 1)(1 − (1 − 1/N)^k) nodes
    #   on average (2.70 for k = 8 over 4 nodes, against 8 × 3/4 = 6 expert copies).
    # - nccl: collective_time's bulk all-to-all (ep − 1 latency steps), BF16 both ways.
    ep_on = ep_ > 1
    any_ep = moe_layout and bool(np.any(ep_on))  # moe_layout: ep > 1 somewhere, or dp_attention
    if any_ep:
        if hidden is None or experts_per_token is None:
            raise ValueError("ep > 1 needs hidden and experts_per_token")
        hid, top_k_ = f64(hidden), f64(experts_per_token)
        g_node = np.minimum(f64(gpus_per_node), ep_)
        off_node = (ep_ - g_node) / ep_
        on_node = (g_node - 1.0) / ep_
        nic_s_per_b = 1.0 / (f64(nic_gbps) / 8.0 * 1e9 * PROTOCOL_EFFICIENCY["ring"])
        nvl = 450.0 if tp_link_gbs is None else f64(tp_link_gbs)
        nvl_s_per_b = 1.0 / (nvl * 1e9 * PROTOCOL_EFFICIENCY["ring"])
        # Seconds per byte a GPU sends: the off-node and on-node parts run in parallel.
        s_per_b = np.maximum(off_node * nic_s_per_b, on_node * nvl_s_per_b)
        nodes = ep_ / g_node
        remote_nodes = (nodes - 1.0) * (1.0 - (1.0 - 1.0 / nodes) ** top_k_)
        s_per_b_normal = np.maximum(remote_nodes / top_k_ * nic_s_per_b, on_node * nvl_s_per_b)
        narrow = precision_bytes(weight_precision) <= 1.0
        dispatch_b = np.where(narrow, DISPATCH_FP8_BYTES, 2.0) + 2.0  # dispatch + combine
        lat_s = f64(a2a_latency_us) / 1e6
        a2a_link: dict[str, ArrayLike] = {} if tp_link_gbs is None else {"intra_gbs": tp_link_gbs}
        is_nccl = np.asarray(a2a_backend, dtype=str) == "nccl"
        moe_on = ep_on if experts is None else ep_on & (f64(experts) > top_k_)

        def a2a_of(tokens: np.ndarray, normal: bool = False) -> np.ndarray:
            """Dispatch plus combine over every layer for `tokens` per GPU, in ms; normal:
            DeepEP's prefill kernels (one network copy per remote node)."""
            per_b = s_per_b_normal if normal else s_per_b
            ll_ms = layers_ * (2.0 * lat_s + tokens * top_k_ * hid * dispatch_b * per_b) * 1e3
            if np.any(is_nccl):
                mb = tokens * top_k_ * hid * 2.0 / 1e6
                bulk = collective_time(op="all_to_all", message_mb=mb, gpus=ep_, **a2a_link)
                ll_ms = np.where(is_nccl, 2.0 * layers_ * bulk["time_ms"], ll_ms)
            return np.where(moe_on, ll_ms, 0.0)

        a2a_ms = a2a_of(conc / (pp_ * tp_))
    else:  # zero, in the shapes of the inputs that then have no use (a sweep keeps them)
        moot = (
            allreduce_latency_us,
            ep,
            experts,
            experts_per_token,
            hidden,
            gpus_per_node,
            nic_gbps,
            a2a_latency_us,
            overlap,
            a2a_backend,
        )
        shapes = (
            np.shape(x) for x in moot if x is not None and not isinstance(x, str | int | float)
        )
        a2a_ms = np.zeros(np.broadcast_shapes(*shapes))
    # overlap = two_batch (DeepSeek's dual micro-batch overlap; SGLang's two-batch overlap,
    # vLLM's dual-batch overlap): the batch runs as two micro-batches, one computing while
    # the other's dispatch/combine is in flight, so a step takes max(compute, all-to-all)
    # rather than their sum, as DeepSeek publishes it; each micro-batch's GEMMs stream the
    # weights, so the weight read counts twice. Only with ep > 1 (nothing to hide
    # otherwise). The default is none, as the engines ship it (SGLang's
    # enable_two_batch_overlap and vLLM's enable_dbo are both off unless asked for), and
    # the max is an upper bound on the gain: SGLang measured +25.5% in decode (256 tokens
    # a GPU) and +27-35% in prefill where this rule gives up to 2x, because DeepEP's
    # kernels hold SMs while sending and receiving (the calibration rows say so).
    tbo = (np.asarray(overlap, dtype=str) == "two_batch") & ep_on if any_ep else False
    if np.any(tbo):
        memory_ms = _plus(memory_ms, np.where(tbo, weights_read_gb * 1e9 * to_ms_mem, 0.0))
    itl_ms = compose_step(memory_ms, compute_ms, step_p)
    if any_ep:
        itl_ms = np.where(tbo, np.maximum(itl_ms, a2a_ms), itl_ms + a2a_ms)
    if decode_comm_ms is not None:  # no full-grid add when there is nothing to add
        itl_ms = _plus(itl_ms, decode_comm_ms)  # in place: the composition's array is fresh

    # Prefill of one prompt (causal attention), composed with its one weight read.
    # Cached prompt tokens (cache_hit_rate h) skip the linear layers; the new (1-h)·N
    # tokens still attend to the whole prefix: causal pairs N²/2 − (hN)²/2.
    new_tokens = n_in * (1.0 - hit)
    prefill_flops = (
        2.0 * active * 1e9 * new_tokens + 2.0 * layers_ * n_in**2 * (1.0 - hit**2) * nh * hd
    )
    # With dp_attention each rank prefills its own prompts (tp of them at once): a prompt's
    # FLOPs run on one GPU (its experts' share of the other ranks' tokens balances what it
    # sends out) and the replica prefills tp prompts in parallel; without it the tp GPUs
    # split one prompt.
    ranks = np.where(dp_attn, tp_, 1.0) if moe_layout else 1.0
    prefill_ms = compose_step(
        prefill_flops / (tp_ / ranks * peak * 1e12 * ce_prefill) * 1e3,
        weights_read_gb * 1e9 / (tp_ * bw * 1e12 * be) * 1e3,
        step_p,
    )
    if any_ep:  # the prompt's own all-to-alls, hidden under two-batch overlap
        prefill_a2a = a2a_of(new_tokens / (tp_ / ranks), normal=True)
        prefill_ms = np.where(tbo, np.maximum(prefill_ms, prefill_a2a), prefill_ms + prefill_a2a)
    if prefill_comm_ms is not None:
        prefill_ms = prefill_ms + prefill_comm_ms

    # Steady state: a request lives through its decode and the batch's prefills.
    prefills_ms = conc / ranks * prefill_ms  # one round's prefill work, ranks in parallel
    request_ms = _plus(n_out * itl_ms, prefills_ms)
    tokens_per_s_total = (conc * n_out * 1e3) / request_ms
    # Under load: the mean gap between a user's tokens counts the other requests' prefills
    # sharing the steps (chunked prefill); a new prompt queues behind the prefill work in
    # flight, an M/D/1 queue with utilisation rho = conc·prefill / request time, so
    # TTFT = prefill × (1 + rho / (2(1 − rho))) = prefill + 0.5·A·prefill / (request − A)
    # with A = conc·prefill.
    itl_loaded_ms = request_ms / n_out
    # request - prefills has the shape of both; prefill_ms's shape is within prefills'.
    ttft_loaded_ms = np.asarray(request_ms - prefills_ms)
    np.divide(prefills_ms, ttft_loaded_ms, out=ttft_loaded_ms)
    np.multiply(ttft_loaded_ms, 0.5 * prefill_ms, out=ttft_loaded_ms)
    np.add(ttft_loaded_ms, prefill_ms, out=ttft_loaded_ms)
    # Per pool (disaggregated serving): a prefill GPU's prompt tokens/s (one prompt at a
    # time, compute-bound) and a decode GPU's output tokens/s without prefills in its
    # steps; pd_ratio = prefill GPUs per decode GPU for this prompt:output mix.
    prefill_tps_gpu = new_tokens * ranks / prefill_ms * (1e3 / gpus)
    decode_tps_gpu = (conc * (1e3 / gpus)) / itl_ms
    out = {
        "weights_gb_per_gpu": weights_gb_per_gpu,
        "embedding_gb": embedding_gb,
        "kv_bytes_per_token": kv_bpt,
        "kv_precision_used": np.asarray(kv_used, dtype=object),
        "kv_pool_gb": kv_pool_gb,
        "kv_copies": kv_copies,
        "kv_capacity_tokens": kv_capacity_tokens.astype(np.int64),
        "max_concurrency": max_concurrency.astype(np.int64),
        "fits": fits,
        "fit_note": labels_where(kv_fits, FIT_NOTES[0], FIT_NOTES[1])
        if all_weights_fit
        # index 0 fits, 1 KV too small, 2 weights do not fit
        else np.take(np.array(FIT_NOTES, dtype=object), np.where(weights_fit, ~kv_fits, 2)),
        "prefill_ms": prefill_ms,
        "memory_ms": memory_ms,
        "compute_ms": compute_ms,
        "itl_ms": itl_ms,
        "decode_bound": labels_where(compute_ms > memory_ms, "compute", "memory"),
        "tokens_per_s_per_user": 1e3 / itl_ms,
        "tokens_per_s_total": tokens_per_s_total,
        "request_s": request_ms,  # scaled to seconds in place below, once nothing reads it
        "decode_compute_efficiency": ce,
        "prefill_compute_efficiency": ce_prefill,
        "tp_comm_ms": f64(allreduce_latency_us) * 0.0 if decode_comm_ms is None else decode_comm_ms,
        "a2a_ms": a2a_ms,
        "itl_loaded_ms": itl_loaded_ms,
        "ttft_loaded_ms": ttft_loaded_ms,
        "prefill_tokens_per_s_per_gpu": prefill_tps_gpu,
        "decode_tokens_per_s_per_gpu": decode_tps_gpu,
        "pd_ratio": decode_tps_gpu * (new_tokens / n_out / prefill_tps_gpu),
    }
    if not (isinstance(pool, str) and pool == "both"):
        # One pool of a disaggregated deployment: a prefill replica runs prompts back to
        # back (its throughput is new prompt tokens/s, its request time and TTFT one
        # prefill, with no queue modelled); a decode replica runs only decode steps (its
        # throughput concurrency / ITL, its loaded ITL the bare step, and TTFT the prefill
        # done in the other pool). The pools' outputs above stay as they are.
        kind = np.asarray(pool, dtype=str)
        is_p, is_d = kind == "prefill", kind == "decode"
        prefill_rate = new_tokens * ranks * 1e3 / prefill_ms
        tokens_per_s_total = np.where(
            is_p, prefill_rate, np.where(is_d, conc * 1e3 / itl_ms, tokens_per_s_total)
        )
        request_ms = np.where(is_p, prefill_ms, np.where(is_d, n_out * itl_ms, request_ms))
        out["tokens_per_s_total"] = tokens_per_s_total
        out["request_s"] = request_ms
        out["itl_loaded_ms"] = np.where(is_d, itl_ms, itl_loaded_ms)
        out["ttft_loaded_ms"] = np.where(is_p | is_d, prefill_ms, ttft_loaded_ms)
    if gpu_cost_per_hour is not None:
        usd_per_s = f64(gpu_cost_per_hour) * gpus / 3600.0
        out["cost_per_m_output_tokens"] = (usd_per_s * 1e6) / tokens_per_s_total
    out["request_s"] = _times(request_ms, 1e-3)
    return shaped(np.broadcast_shapes(*(np.shape(v) for v in out.values())), **out)
