"""Names that date a page: products and versions whose facts change from year to year.

A page that names one of these makes claims (a peak, a memory size, a default, a flag, a
price, "the latest") that were true as of some month, so ``check_content`` asks it to
say which month with ``checked: YYYY-MM`` (content/README.md). Keep the list short and
current: a family name covers its members ("H100" covers "H100 SXM" and "H100s"), and a
name is matched as a whole word, case-sensitively, so "Triton" the compiler is found and
"cuda" in a file path or "ray" in prose is not. Add a name when a new generation, engine or tool enters the
content; never remove one that pages still name.
"""

from __future__ import annotations

import re

# GPU and accelerator generations, and the systems built from them.
ACCELERATORS = (
    "A100", "A10G", "L4", "L40S", "H100", "H200", "H800", "H20", "GH200", "Hopper",
    "B100", "B200", "B300", "GB200", "GB300", "Blackwell", "Rubin", "NVL72", "NVL144",
    "DGX", "HGX", "RTX 4090", "RTX 5090", "RTX PRO 6000",
    "MI250", "MI300", "MI300X", "MI325X", "MI350", "MI355X", "MI400", "MI450", "Instinct",
    "TPU", "Trillium", "Ironwood", "TPU7x", "Trainium", "Trainium2", "Trainium3",
    "Inferentia", "Gaudi", "Cerebras", "Groq", "Apple M3", "Apple M4", "M3 Ultra", "M4 Max",
    "NVLink", "NVSwitch", "InfiniBand", "Spectrum-X", "ConnectX",
)  # fmt: skip
# Inference engines and serving frameworks.
ENGINES = (
    "vLLM", "SGLang", "TensorRT-LLM", "TensorRT", "Triton Inference Server", "TGI",
    "text-generation-inference", "llama.cpp", "Ollama", "LMDeploy", "MLC LLM", "ExLlamaV2",
    "Dynamo", "llm-d", "NIM", "DeepSpeed", "Megatron", "FSDP", "NCCL", "FlashAttention",
    "FlashInfer", "cuDNN", "cuBLAS", "CUTLASS",
)  # fmt: skip
# Compilers, languages and toolchains.
COMPILERS = (
    "torch.compile", "TorchInductor", "Triton", "XLA", "OpenXLA", "TVM", "MLIR", "CUDA",
    "ROCm", "HIP", "PTX", "nvcc", "Nsight", "PyTorch", "JAX",
)  # fmt: skip
# Orchestrators and cluster software.
ORCHESTRATORS = (
    "Kubernetes", "KServe", "Ray Serve", "Slurm", "Karpenter", "Knative", "Gateway API",
)  # fmt: skip

DATED_NAMES: tuple[str, ...] = ACCELERATORS + ENGINES + COMPILERS + ORCHESTRATORS

# Longest first, so "TensorRT-LLM" is reported rather than "TensorRT" inside it.
_PATTERN = re.compile(
    r"(?<![\w.-])("
    + "|".join(re.escape(n) for n in sorted(DATED_NAMES, key=len, reverse=True))
    + r")s?(?!\w)"
)


def dated_names_in(text: str) -> list[str]:
    """The listed names ``text`` mentions, each once, in order of first mention."""
    return list(dict.fromkeys(m.group(1) for m in _PATTERN.finditer(text)))
