"""Model architectures as data (``model=<slug>``), and reading a pasted Hugging Face
``config.json`` into the same fields.

Pure data and arithmetic, no Django. ``calculators.validation`` fills a calculator's
architecture inputs from here; other floors call the two public functions:

    model_fill(model: str, input_names: Iterable[str],
               renames: Mapping[str, str] | None = None) -> dict[str, Any]
    config_fill(config: Mapping | str, input_names: Iterable[str],
                renames: Mapping[str, str] | None = None) -> dict[str, Any]

Both return {input name: value} for the inputs in ``input_names`` that the model
defines, where an input is filled from the catalogue field of the same name unless
``renames`` maps it to another (decode_bound's ``params_b`` is the model's
``active_params_b``). Fields a model does not have (``kv_lora_rank`` on a GQA model) are
left out, so explicit inputs and defaults still apply. ``config_fill`` raises
``ConfigError`` naming every field of the config it cannot read.

Parameter counts are the model cards' totals. For mixture-of-experts models
``expert_params_b`` is one expert's parameters summed over the MoE layers (3 ·
hidden · moe_intermediate per layer, gated MLP), and ``shared_params_b`` is
``active_params_b − experts_per_token · expert_params_b``: everything every token reads
(attention, dense layers, shared experts, embeddings), so ``shared + k · expert`` is
the card's active count and ``shared + E · expert`` comes back to about the total.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

HF = "https://huggingface.co/{}/blob/main/config.json"


@dataclass(frozen=True)
class ModelPreset:
    slug: str
    name: str
    params_b: float  # total parameters, billions
    active_params_b: float  # parameters each token passes through, billions
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    attention: str  # mha | gqa | mla
    vocab: int
    max_context: int
    source: str
    tied_embeddings: bool = False
    kv_lora_rank: int | None = None  # MLA: the cached latent's width
    rope_head_dim: int | None = None  # MLA: the decoupled RoPE key cached beside it
    experts: int | None = None
    experts_per_token: int | None = None
    shared_experts: int | None = None
    expert_params_b: float | None = None
    shared_params_b: float | None = None
    local_layers: int | None = None  # layers that attend within local_window only
    local_window: int | None = None
    note: str = ""

    @property
    def global_layers(self) -> int:
        return self.layers - (self.local_layers or 0)

    def kv_bytes_per_token(self, bytes_per_elem: float = 2.0) -> float:
        """KV bytes per token over all layers (every layer caching the token): MHA/GQA
        2·layers·kv_heads·head_dim·b; MLA layers·(kv_lora_rank + rope_head_dim)·b."""
        if self.kv_lora_rank is not None:
            return self.layers * (self.kv_lora_rank + (self.rope_head_dim or 0)) * bytes_per_elem
        return 2.0 * self.layers * self.kv_heads * self.head_dim * bytes_per_elem

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "global_layers": self.global_layers}


def _moe(active_b: float, k: int, moe_layers: int, hidden: int, moe_inter: int) -> dict:
    expert = moe_layers * 3 * hidden * moe_inter / 1e9
    return {"expert_params_b": round(expert, 6), "shared_params_b": round(active_b - k * expert, 6)}


MODELS: dict[str, ModelPreset] = {
    m.slug: m
    for m in [
        # Llama 2 (July 2023): the models MLPerf Inference and TensorRT-LLM's published
        # tables use, kept for the calibration set (calculators/calibration/).
        ModelPreset(
            "llama-2-7b",
            "Llama 2 7B",
            6.74,
            6.74,
            32,
            4096,
            32,
            32,
            128,
            "mha",
            32000,
            4096,
            HF.format("meta-llama/Llama-2-7b-hf"),
        ),
        ModelPreset(
            "llama-2-70b",
            "Llama 2 70B",
            68.98,
            68.98,
            80,
            8192,
            64,
            8,
            128,
            "gqa",
            32000,
            4096,
            HF.format("meta-llama/Llama-2-70b-hf"),
        ),
        ModelPreset(
            "llama-3.1-8b",
            "Llama 3.1 8B",
            8.03,
            8.03,
            32,
            4096,
            32,
            8,
            128,
            "gqa",
            128256,
            131072,
            HF.format("meta-llama/Llama-3.1-8B"),
        ),
        ModelPreset(
            "llama-3.1-70b",
            "Llama 3.1 70B",
            70.6,
            70.6,
            80,
            8192,
            64,
            8,
            128,
            "gqa",
            128256,
            131072,
            HF.format("meta-llama/Llama-3.1-70B"),
        ),
        ModelPreset(
            "llama-3.1-405b",
            "Llama 3.1 405B",
            405.9,
            405.9,
            126,
            16384,
            128,
            8,
            128,
            "gqa",
            128256,
            131072,
            HF.format("meta-llama/Llama-3.1-405B"),
        ),
        ModelPreset(
            "llama-4-scout",
            "Llama 4 Scout 17B-16E",
            109,
            17,
            48,
            5120,
            40,
            8,
            128,
            "gqa",
            202048,
            10485760,
            HF.format("meta-llama/Llama-4-Scout-17B-16E"),
            experts=16,
            experts_per_token=1,
            shared_experts=1,
            local_layers=36,
            local_window=8192,
            note="Three of every four layers use chunked attention (8,192-token chunks, "
            "counted here as a local window); every layer is MoE with one shared expert.",
            **_moe(17, 1, 48, 5120, 8192),
        ),
        ModelPreset(
            "llama-4-maverick",
            "Llama 4 Maverick 17B-128E",
            400,
            17,
            48,
            5120,
            40,
            8,
            128,
            "gqa",
            202048,
            1048576,
            HF.format("meta-llama/Llama-4-Maverick-17B-128E"),
            experts=128,
            experts_per_token=1,
            shared_experts=1,
            local_layers=36,
            local_window=8192,
            note="MoE on every other layer (24 of 48) with one shared expert; chunked "
            "attention on three of every four layers.",
            **_moe(17, 1, 24, 5120, 8192),
        ),
        ModelPreset(
            "qwen3-8b",
            "Qwen3 8B",
            8.2,
            8.2,
            36,
            4096,
            32,
            8,
            128,
            "gqa",
            151936,
            40960,
            HF.format("Qwen/Qwen3-8B"),
            note="40,960 tokens native; 131,072 with YaRN scaling.",
        ),
        ModelPreset(
            "qwen3-32b",
            "Qwen3 32B",
            32.8,
            32.8,
            64,
            5120,
            64,
            8,
            128,
            "gqa",
            151936,
            40960,
            HF.format("Qwen/Qwen3-32B"),
            note="40,960 tokens native; 131,072 with YaRN scaling.",
        ),
        ModelPreset(
            "qwen3-30b-a3b",
            "Qwen3 30B-A3B",
            30.5,
            3.3,
            48,
            2048,
            32,
            4,
            128,
            "gqa",
            151936,
            40960,
            HF.format("Qwen/Qwen3-30B-A3B"),
            experts=128,
            experts_per_token=8,
            shared_experts=0,
            **_moe(3.3, 8, 48, 2048, 768),
        ),
        ModelPreset(
            "qwen3-235b-a22b",
            "Qwen3 235B-A22B",
            235,
            22,
            94,
            4096,
            64,
            4,
            128,
            "gqa",
            151936,
            40960,
            HF.format("Qwen/Qwen3-235B-A22B"),
            experts=128,
            experts_per_token=8,
            shared_experts=0,
            **_moe(22, 8, 94, 4096, 1536),
        ),
        ModelPreset(
            "deepseek-v3",
            "DeepSeek-V3",
            671,
            37,
            61,
            7168,
            128,
            128,
            128,
            "mla",
            129280,
            163840,
            HF.format("deepseek-ai/DeepSeek-V3"),
            kv_lora_rank=512,
            rope_head_dim=64,
            experts=256,
            experts_per_token=8,
            shared_experts=1,
            note="Multi-head latent attention caches a 512-wide latent plus a 64-wide RoPE "
            "key per layer; head_dim is the value head (queries and keys are 192 wide). "
            "The first 3 layers are dense, 58 are MoE. 671B excludes the 14B "
            "multi-token-prediction module.",
            **_moe(37, 8, 58, 7168, 2048),
        ),
        ModelPreset(
            "gpt-oss-20b",
            "gpt-oss-20b",
            20.91,
            3.61,
            24,
            2880,
            64,
            8,
            64,
            "gqa",
            201088,
            131072,
            HF.format("openai/gpt-oss-20b"),
            experts=32,
            experts_per_token=4,
            shared_experts=0,
            local_layers=12,
            local_window=128,
            expert_params_b=round(19.12 / 32, 6),
            shared_params_b=round(3.61 - 4 * 19.12 / 32, 6),
            note="Layers alternate banded (128-token window) and full attention. Expert "
            "sizes from the model card's MLP total (19.12B over 32 experts).",
        ),
        ModelPreset(
            "gpt-oss-120b",
            "gpt-oss-120b",
            116.83,
            5.13,
            36,
            2880,
            64,
            8,
            64,
            "gqa",
            201088,
            131072,
            HF.format("openai/gpt-oss-120b"),
            experts=128,
            experts_per_token=4,
            shared_experts=0,
            local_layers=18,
            local_window=128,
            expert_params_b=round(114.71 / 128, 6),
            shared_params_b=round(5.13 - 4 * 114.71 / 128, 6),
            note="Layers alternate banded (128-token window) and full attention. Expert "
            "sizes from the model card's MLP total (114.71B over 128 experts).",
        ),
        ModelPreset(
            "mixtral-8x7b",
            "Mixtral 8x7B",
            46.7,
            12.9,
            32,
            4096,
            32,
            8,
            128,
            "gqa",
            32000,
            32768,
            HF.format("mistralai/Mixtral-8x7B-v0.1"),
            experts=8,
            experts_per_token=2,
            shared_experts=0,
            **_moe(12.9, 2, 32, 4096, 14336),
        ),
        ModelPreset(
            "gemma-3-27b",
            "Gemma 3 27B",
            27.0,
            27.0,
            62,
            5376,
            32,
            16,
            128,
            "gqa",
            262208,
            131072,
            HF.format("google/gemma-3-27b-it"),
            tied_embeddings=True,
            local_layers=52,
            local_window=1024,
            note="Five local (1,024-token sliding window) layers to each global layer.",
        ),
        ModelPreset(
            "mistral-small-3.1-24b",
            "Mistral Small 3.1 24B",
            24.0,
            24.0,
            40,
            5120,
            32,
            8,
            128,
            "gqa",
            131072,
            131072,
            HF.format("mistralai/Mistral-Small-3.1-24B-Base-2503"),
        ),
    ]
}

# Catalogue fields a calculator input may be filled from.
FILLABLE = (
    "params_b",
    "active_params_b",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab",
    "max_context",
    "tied_embeddings",
    "kv_lora_rank",
    "rope_head_dim",
    "experts",
    "experts_per_token",
    "shared_experts",
    "expert_params_b",
    "shared_params_b",
    "local_layers",
    "local_window",
)


def _fill(
    fields: Mapping[str, Any], input_names: Iterable[str], renames: Mapping[str, str] | None
) -> dict[str, Any]:
    renames = renames or {}
    out: dict[str, Any] = {}
    for name in input_names:
        source = renames.get(name, name)
        if source in FILLABLE and fields.get(source) is not None:
            out[name] = fields[source]
    return out


def model_fill(
    model: str, input_names: Iterable[str], renames: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The inputs among ``input_names`` that catalogue model ``model`` fills (KeyError
    for an unknown slug)."""
    return _fill(MODELS[model].as_dict(), input_names, renames)


# ---------------------------------------------------------------- Hugging Face config.json


class ConfigError(ValueError):
    """A config.json that cannot be read; ``problems`` names each field and why."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _first(cfg: Mapping[str, Any], *keys: str) -> Any:
    for k in keys:
        if cfg.get(k) is not None:
            return cfg[k]
    return None


def _int(cfg: Mapping[str, Any], problems: list[str], label: str, *keys: str) -> int | None:
    value = _first(cfg, *keys)
    if value is None:
        problems.append(f"cannot read {label}: none of {', '.join(keys)} is in the config")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        problems.append(f"{keys[0]} must be a positive whole number, not {value!r}")
        return None
    return value


def _optional_int(cfg: Mapping[str, Any], problems: list[str], *keys: str) -> int | None:
    value = _first(cfg, *keys)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(f"{keys[0]} must be a whole number ≥ 0, not {value!r}")
        return None
    return value


def read_hf_config(config: Mapping[str, Any] | str) -> dict[str, Any]:
    """Architecture fields (the catalogue's names) from a Hugging Face ``config.json``.

    Reads the usual transformers keys (Llama, Qwen, Mistral, Mixtral, Gemma 3, Llama 4,
    DeepSeek-V3, gpt-oss); multimodal configs are read from their ``text_config``.
    Parameter counts are estimated from the shapes (gated MLPs, biases and norms left
    out), so expect them within a few per cent of the model card.
    """
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError as exc:
            raise ConfigError([f"is not valid JSON ({exc.msg} at line {exc.lineno})"]) from None
    if not isinstance(config, Mapping):
        raise ConfigError(["must be a JSON object (the contents of config.json)"])
    cfg: Mapping[str, Any] = config.get("text_config") or config
    if not isinstance(cfg, Mapping):
        raise ConfigError(["text_config must be an object"])
    problems: list[str] = []
    layers = _int(cfg, problems, "the number of layers", "num_hidden_layers", "n_layer", "n_layers")
    hidden = _int(cfg, problems, "the hidden size", "hidden_size", "n_embd", "d_model")
    heads = _int(cfg, problems, "the attention heads", "num_attention_heads", "n_head")
    vocab = _int(cfg, problems, "the vocabulary size", "vocab_size")
    kv_heads_given = _optional_int(cfg, problems, "num_key_value_heads", "n_kv_heads")
    head_dim = _optional_int(cfg, problems, "head_dim")
    kv_lora = _optional_int(cfg, problems, "kv_lora_rank")
    rope_dim = _optional_int(cfg, problems, "qk_rope_head_dim")
    inter = _optional_int(cfg, problems, "intermediate_size", "ffn_dim", "n_inner")
    moe_inter = _optional_int(cfg, problems, "moe_intermediate_size")
    experts = _optional_int(cfg, problems, "num_local_experts", "n_routed_experts", "num_experts")
    k = _optional_int(cfg, problems, "num_experts_per_tok", "experts_per_token", "top_k")
    shared = _optional_int(cfg, problems, "n_shared_experts", "num_shared_experts")
    max_ctx = _optional_int(cfg, problems, "max_position_embeddings", "n_positions")
    window = _optional_int(cfg, problems, "sliding_window", "attention_chunk_size")
    if problems or None in (layers, hidden, heads, vocab):
        raise ConfigError(problems)
    assert layers and hidden and heads and vocab  # narrowed above, for mypy
    kv_heads = kv_heads_given or heads  # no KV-head count: multi-head attention
    if head_dim is None:
        if kv_lora is not None:
            head_dim = _optional_int(cfg, problems, "v_head_dim")
        head_dim = head_dim or hidden // heads
    if experts and not k:
        raise ConfigError([f"has {experts} experts but no num_experts_per_tok"])
    if experts and not (moe_inter or inter):
        raise ConfigError(["has experts but no moe_intermediate_size or intermediate_size"])

    # Which layers are local (sliding window / chunked) and which are MoE.
    local = _local_layers(cfg, layers, window)
    moe_layers = _moe_layers(cfg, layers) if experts else 0

    # Parameters from the shapes.
    if kv_lora is not None:
        nope = _first(cfg, "qk_nope_head_dim") or head_dim
        q_rank = _first(cfg, "q_lora_rank")
        qk = nope + (rope_dim or 0)
        q = hidden * q_rank + q_rank * heads * qk if q_rank else hidden * heads * qk
        kv = hidden * (kv_lora + (rope_dim or 0)) + kv_lora * heads * (nope + head_dim)
        attn = q + kv + heads * head_dim * hidden
    else:
        attn = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim
    dense_mlp = 3 * hidden * (inter or 4 * hidden)
    tied = bool(_first(cfg, "tie_word_embeddings") or config.get("tie_word_embeddings"))
    embed = vocab * hidden * (1 if tied else 2)
    if experts:
        e_inter = moe_inter or inter or 0
        expert_b = moe_layers * 3 * hidden * e_inter / 1e9
        shared_mlp = (shared or 0) * 3 * hidden * e_inter
        if "intermediate_size_mlp" in cfg:  # Llama 4: the shared expert has its own size
            shared_mlp = (shared or 1) * 3 * hidden * e_inter
        dense_layers = layers - moe_layers
        shared_b = (
            layers * attn + dense_layers * dense_mlp + moe_layers * (shared_mlp + hidden * experts)
        ) / 1e9 + embed / 1e9
        total_b = shared_b + experts * expert_b
        active_b = shared_b + k * expert_b if k else total_b
    else:
        expert_b = shared_b = None  # type: ignore[assignment]
        total_b = active_b = (layers * (attn + dense_mlp) + embed) / 1e9
    return {
        "params_b": round(total_b, 3),
        "active_params_b": round(active_b, 3),
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "attention": "mla" if kv_lora is not None else ("gqa" if kv_heads < heads else "mha"),
        "vocab": vocab,
        "max_context": max_ctx,
        "tied_embeddings": tied,
        "kv_lora_rank": kv_lora,
        "rope_head_dim": rope_dim if kv_lora is not None else None,
        "experts": experts,
        "experts_per_token": k if experts else None,
        "shared_experts": shared if experts else None,
        "expert_params_b": None if expert_b is None else round(expert_b, 6),
        "shared_params_b": None if shared_b is None else round(shared_b, 6),
        "local_layers": local or None,
        "local_window": window if local else None,
    }


def _local_layers(cfg: Mapping[str, Any], layers: int, window: int | None) -> int:
    if not window:
        return 0
    types = cfg.get("layer_types")
    if isinstance(types, list) and len(types) == layers:
        return sum(1 for t in types if t in ("sliding_attention", "chunked_attention"))
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, int) and pattern > 0:  # Gemma: every pattern-th layer is global
        return layers - layers // pattern
    no_rope = cfg.get("no_rope_layers")
    if isinstance(no_rope, list) and len(no_rope) == layers:  # Llama 4: 0 marks a global layer
        return sum(1 for v in no_rope if v)
    if cfg.get("use_sliding_window") is False:
        return 0
    return layers  # a window and no pattern: every layer is windowed (Mistral 7B)


def _moe_layers(cfg: Mapping[str, Any], layers: int) -> int:
    first_dense = _first(cfg, "first_k_dense_replace") or 0
    step = _first(cfg, "interleave_moe_layer_step", "decoder_sparse_step", "moe_layer_freq") or 1
    mlp_only = cfg.get("mlp_only_layers") or []
    count = sum(1 for i in range(first_dense, layers) if (i + 1) % step == 0 and i not in mlp_only)
    return count


def config_fill(
    config: Mapping[str, Any] | str,
    input_names: Iterable[str],
    renames: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The inputs among ``input_names`` that a pasted config.json fills."""
    return _fill(read_hf_config(config), input_names, renames)
