"""Hardware presets: GPUs, accelerators, TPUs and two local devices, kept as data.

Every figure carries the document it was taken from (``source``, a data-sheet URL).
Peaks are dense tensor throughput per precision in TFLOP/s (TOPS for int8): where a data
sheet prints the sparse figure as its headline (``sparse_headline``: NVIDIA marks those
with an asterisk), the dense figure entered here is half of it. A precision the sheet
gives no figure for is simply absent, so a calculator asks for ``peak_tflops`` rather than
guess. A field named in ``unconfirmed`` could not be checked against the vendor document
when it was entered; pages and texts say so. None means unknown.

Memory: ``memory_gb`` is the data sheet's capacity figure as printed. Most GPU sheets
print binary capacities as "GB" (an "80GB" H100 has 80 GiB of HBM); ``memory_gib`` is
the total as ``nvidia-smi`` reports it, where known, and ``capacity_gb`` turns that into
decimal GB (1e9 bytes) so a fit check compares GB with GB.

This module is pure data (no Django). Kernels must not import it (they receive numbers);
the MIG profiles live in the kernel package and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from calculators.kernels.mig_profiles import (
    COMPUTE_SLICES,
    GIB_IN_GB,
    MEMORY_SLICES,
    MIG_GUIDE,
    MIG_PROFILES,
    MigProfile,
    all_mig_profile_names,
    mig_profile,
    mig_profile_names,
)

# Precisions a preset may give a dense peak for; bf16 stands for BF16 and FP16 (equal on
# every part here), fp64 is the FP64 tensor/matrix figure where the part has one.
PRECISIONS = ("fp64", "tf32", "bf16", "fp8", "fp6", "fp4", "int8")
CONTEXT_GB = 1.0  # per-process CUDA context and library buffers (see usable_gb)
DEFAULT_PRECISION = "bf16"


@dataclass(frozen=True)
class GpuPreset:
    slug: str
    name: str
    peaks: Mapping[str, float]  # precision -> dense TFLOP/s (TOPS for int8)
    memory_gb: float  # capacity as the data sheet prints it
    bandwidth_tbs: float | None
    sms: int | None  # streaming multiprocessors (compute units on AMD, TensorCores on TPU)
    source: str
    sparse_headline: bool = False  # the sheet's headline tensor figure is with sparsity
    memory_gib: float | None = None  # total as nvidia-smi reports it, where known
    memory_source: str = ""
    sm_label: str = "SMs"
    mig: bool = False
    kind: str = "datacenter"  # datacenter | local | tpu
    unconfirmed: tuple[str, ...] = ()
    note: str = ""
    # Interconnect, per GPU: NVLink (or Infinity Fabric) GB/s in one direction, the GPUs
    # one NVLink domain joins, and the node's network (NICs and Gb/s per NIC) as the
    # reference system ships. None where the part has no such link or it is not known.
    nvlink_gbs: float | None = None
    nvl_domain: int | None = None
    nics_per_node: int | None = None
    nic_gbps: float | None = None
    nvls: bool | None = None  # NVLink SHARP in the NVSwitch (NCCL's NVLS algorithms)
    interconnect_source: str = ""

    def peak(self, precision: str) -> float | None:
        """Dense peak at ``precision`` in TFLOP/s, or None where the sheet gives none."""
        return self.peaks.get(precision)

    @property
    def bf16_tflops(self) -> float | None:
        return self.peak("bf16")

    @property
    def fp8_tflops(self) -> float | None:
        return self.peak("fp8")

    @property
    def usable_gb(self) -> float:
        """Device memory an engine can allocate, in GB: the capacity less the CUDA
        context, cuBLAS workspaces and NCCL buffers every process holds (CONTEXT_GB, an
        estimate: about 1 GB per GPU is what vLLM and TensorRT-LLM report as used before
        any weights load)."""
        return max(self.capacity_gb - CONTEXT_GB, 0.0)

    @property
    def capacity_gb(self) -> float:
        """Device memory in GB (1e9 bytes): the nvidia-smi total where known, else the
        data sheet's figure read as decimal GB (the conservative reading)."""
        return self.memory_gb if self.memory_gib is None else self.memory_gib * GIB_IN_GB

    def as_dict(self) -> dict[str, object]:
        return {
            "slug": self.slug,
            "name": self.name,
            "peaks_tflops": dict(self.peaks),
            "bf16_tflops": self.bf16_tflops,
            "fp8_tflops": self.fp8_tflops,
            "sparse_headline": self.sparse_headline,
            "memory_gb": self.memory_gb,
            "memory_gib": self.memory_gib,
            "capacity_gb": self.capacity_gb,
            "memory_source": self.memory_source,
            "bandwidth_tbs": self.bandwidth_tbs,
            "sms": self.sms,
            "sm_label": self.sm_label,
            "mig": self.mig,
            "kind": self.kind,
            "source": self.source,
            "unconfirmed": list(self.unconfirmed),
            "note": self.note,
            "usable_gb": self.usable_gb,
            "nvlink_gbs": self.nvlink_gbs,
            "nvl_domain": self.nvl_domain,
            "nics_per_node": self.nics_per_node,
            "nic_gbps": self.nic_gbps,
            "nvls": self.nvls,
            "interconnect_source": self.interconnect_source,
        }


def _peaks(**figures: float) -> Mapping[str, float]:
    unknown = set(figures) - set(PRECISIONS)
    if unknown:
        raise ValueError(f"unknown precision(s) {sorted(unknown)}")
    return MappingProxyType(dict(figures))


# Data sheets (URLs as published by the vendors).
A100_SHEET = (
    "NVIDIA A100 Tensor Core GPU datasheet, "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
)
H100_SHEET = (
    "NVIDIA H100 Tensor Core GPU datasheet (SXM, PCIe and NVL columns), "
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
)
H200_SHEET = "NVIDIA H200 Tensor Core GPU, https://www.nvidia.com/en-us/data-center/h200/"
GH200_SHEET = (
    "NVIDIA GH200 Grace Hopper Superchip, "
    "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/"
)
HGX_SHEET = "NVIDIA HGX platform specifications (per GPU = 8-GPU figure / 8), https://www.nvidia.com/en-us/data-center/hgx/"
GB200_SHEET = "NVIDIA GB200 NVL72 (per GPU = rack figure / 72), https://www.nvidia.com/en-us/data-center/gb200-nvl72/"
GB300_SHEET = "NVIDIA GB300 NVL72 (per GPU = rack figure / 72), https://www.nvidia.com/en-us/data-center/gb300-nvl72/"
ADA_WHITEPAPER = (
    "NVIDIA Ada Lovelace GPU architecture whitepaper, GeForce RTX 4090 table (tensor "
    "figures with FP32 accumulate), https://images.nvidia.com/aem-dam/Solutions/geforce/"
    "ada/nvidia-ada-gpu-architecture.pdf"
)
NVSMI = "total memory as printed by nvidia-smi"


_GH200 = GpuPreset(
    "gh200",
    "NVIDIA GH200 (Hopper GPU, 96 GB HBM3)",
    _peaks(fp64=67, tf32=494.5, bf16=989, fp8=1979, int8=1979),
    96,
    4.0,
    132,
    GH200_SHEET,
    sparse_headline=True,
    mig=True,
    note="The 144 GB HBM3e version (gh200-144gb) has 4.9 TB/s; the Grace CPU's "
    "LPDDR5X is not counted here.",
)


GPUS: dict[str, GpuPreset] = {
    g.slug: g
    for g in [
        GpuPreset(
            "h100-sxm",
            "NVIDIA H100 SXM",
            _peaks(fp64=67, tf32=494.5, bf16=989, fp8=1979, int8=1979),
            80,
            3.35,
            132,
            H100_SHEET,
            sparse_headline=True,
            memory_gib=81559 / 1024,
            memory_source=NVSMI + " (81,559 MiB)",
            mig=True,
        ),
        GpuPreset(
            "h100-pcie",
            "NVIDIA H100 PCIe",
            _peaks(fp64=51, tf32=378, bf16=756, fp8=1513, int8=1513),
            80,
            2.0,
            114,
            H100_SHEET,
            sparse_headline=True,
            memory_gib=81559 / 1024,
            memory_source=NVSMI + " (81,559 MiB)",
            mig=True,
            note="Has MIG; its per-profile SM counts are not in this table.",
        ),
        GpuPreset(
            "h100-nvl",
            "NVIDIA H100 NVL",
            _peaks(fp64=60, tf32=417.5, bf16=835.5, fp8=1670.5, int8=1670.5),
            94,
            3.9,
            132,
            H100_SHEET,
            sparse_headline=True,
            mig=True,
            unconfirmed=("sms",),
            note="Per GPU of the NVL pair.",
        ),
        GpuPreset(
            "h200",
            "NVIDIA H200 SXM",
            _peaks(fp64=67, tf32=494.5, bf16=989, fp8=1979, int8=1979),
            141,
            4.8,
            132,
            H200_SHEET,
            sparse_headline=True,
            mig=True,
        ),
        GpuPreset(
            "h800",
            "NVIDIA H800 SXM",
            _peaks(tf32=494.5, bf16=989, fp8=1979, int8=1979),
            80,
            3.35,
            132,
            "NVIDIA H800 Tensor Core GPU product brief (the H100 SXM's compute and memory, "
            "NVLink cut to 400 GB/s and FP64 to 1 TFLOP/s), as the DeepSeek-V3 technical "
            "report describes its cluster, https://arxiv.org/abs/2412.19437",
            sparse_headline=True,
            memory_gib=81559 / 1024,
            memory_source=NVSMI + " (81,559 MiB, as on H100 SXM)",
            unconfirmed=("peaks", "memory_gib"),
            note="Export variant of the H100 SXM; NVIDIA's H800 brief is not public on its "
            "site, so the figures are the H100 SXM's as the DeepSeek-V3 report states.",
        ),
        GpuPreset(
            "h20",
            "NVIDIA H20",
            _peaks(tf32=74, bf16=148, fp8=296, int8=296),
            96,
            4.0,
            78,
            "NVIDIA publishes no public H20 data sheet; dense figures as published at "
            "https://willitrunai.com/gpus/h20-96gb (a secondary source)",
            mig=True,
            unconfirmed=("peaks", "sms"),
            note="Export-market Hopper part: full HBM bandwidth, about 15% of H100's compute.",
        ),
        _GH200,
        replace(
            _GH200,
            slug="gh200-144gb",
            name="NVIDIA GH200 (Hopper GPU, 144 GB HBM3e)",
            memory_gb=144,
            bandwidth_tbs=4.9,
            mig=False,
            memory_source="NVIDIA's MLPerf Inference v4.1 system description "
            "(accelerator_memory_capacity 144 GB, HBM3e), https://github.com/mlcommons/"
            "inference_results_v4.1/blob/a2f5d66d17e8f75c02fd74dfe810ecca6a046696/closed/"
            "NVIDIA/systems/GH200-GraceHopper-Superchip_GH200-144GB_aarch64x1_TRT.json",
            note="The HBM3e GH200 MLPerf and most clouds list; announced in 2023 as 141 GB at "
            "5 TB/s, shipped as 144 GB at 4.9 TB/s. MIG profiles for this part are not "
            "listed here. The Grace CPU's LPDDR5X is not counted.",
        ),
        GpuPreset(
            "a100-40gb",
            "NVIDIA A100 40GB SXM",
            _peaks(fp64=19.5, tf32=156, bf16=312, int8=624),
            40,
            1.555,
            108,
            A100_SHEET,
            sparse_headline=True,
            memory_gib=40.0,
            memory_source=NVSMI + " (40,960 MiB)",
            mig=True,
        ),
        GpuPreset(
            "a100-80gb",
            "NVIDIA A100 80GB SXM",
            _peaks(fp64=19.5, tf32=156, bf16=312, int8=624),
            80,
            2.039,
            108,
            A100_SHEET,
            sparse_headline=True,
            memory_gib=80.0,
            memory_source=NVSMI + " (81,920 MiB)",
            mig=True,
        ),
        GpuPreset(
            "a100-pcie-40gb",
            "NVIDIA A100 40GB PCIe",
            _peaks(fp64=19.5, tf32=156, bf16=312, int8=624),
            40,
            1.555,
            108,
            A100_SHEET,
            sparse_headline=True,
            memory_gib=40.0,
            memory_source=NVSMI + " (40,960 MiB)",
            mig=True,
            note="MIG profiles as the A100 40GB SXM; this table lists them on the SXM preset.",
        ),
        GpuPreset(
            "a100-pcie-80gb",
            "NVIDIA A100 80GB PCIe",
            _peaks(fp64=19.5, tf32=156, bf16=312, int8=624),
            80,
            1.935,
            108,
            A100_SHEET,
            sparse_headline=True,
            memory_gib=80.0,
            memory_source=NVSMI + " (81,920 MiB)",
            mig=True,
            note="MIG profiles as the A100 80GB SXM; this table lists them on the SXM preset.",
        ),
        GpuPreset(
            "l4",
            "NVIDIA L4",
            _peaks(tf32=60, bf16=121, fp8=242.5, int8=242.5),
            24,
            0.30,
            58,
            "NVIDIA L4 Tensor Core GPU, https://www.nvidia.com/en-us/data-center/l4/",
            sparse_headline=True,
            unconfirmed=("bandwidth_tbs", "sms"),
        ),
        GpuPreset(
            "l40s",
            "NVIDIA L40S",
            _peaks(tf32=183, bf16=362, fp8=733, int8=733),
            48,
            0.864,
            142,
            "NVIDIA L40S GPU, https://www.nvidia.com/en-us/data-center/l40s/",
            sparse_headline=True,
        ),
        GpuPreset(
            "b200",
            "NVIDIA B200",
            _peaks(fp64=37, tf32=1125, bf16=2250, fp8=4500, fp6=4500, fp4=9000, int8=4500),
            180,
            8.0,
            148,
            HGX_SHEET + " (HGX B200 column)",
            sparse_headline=True,
            mig=True,
            unconfirmed=("sms",),
        ),
        GpuPreset(
            "b300",
            "NVIDIA B300 (Blackwell Ultra, HGX)",
            # FP4: the HGX B300 sheet prints 144 PFLOPS sparse | 105 PFLOPS dense for 8 GPUs
            # (Blackwell Ultra's dense FP4 is not half its sparse figure): 105 / 8 = 13.125.
            _peaks(tf32=1125, bf16=2250, fp8=4500, fp6=4500, fp4=13125),
            288,
            8.0,
            None,
            HGX_SHEET + " (HGX B300 column)",
            sparse_headline=True,
            unconfirmed=("peaks",),
            note="FP4 dense is the sheet's 105 PFLOPS per 8-GPU board (13.1 PFLOP/s a GPU, "
            "1,100 W), not half the 144 PFLOPS sparse headline; the figures were read from "
            "copies of the sheet, not NVIDIA's page itself.",
        ),
        GpuPreset(
            "gb200",
            "NVIDIA GB200 (per Blackwell GPU)",
            _peaks(fp64=45, tf32=1250, bf16=2500, fp8=5000, fp6=5000, fp4=10000, int8=5000),
            186,
            8.0,
            None,
            GB200_SHEET,
            sparse_headline=True,
            note="Per GPU of the NVL72 rack (72 GPUs, 13.4 TB HBM3e, 576 TB/s).",
        ),
        GpuPreset(
            "gb300",
            "NVIDIA GB300 (per Blackwell Ultra GPU)",
            # FP4: the GB300 NVL72 sheet prints 1,440 PFLOPS sparse | 1,080 PFLOPS dense for
            # 72 GPUs: 1,080 / 72 = 15,000 TFLOP/s dense a GPU (1,400 W).
            _peaks(tf32=1250, bf16=2500, fp8=5000, fp6=5000, fp4=15000),
            288,
            8.0,
            None,
            GB300_SHEET,
            sparse_headline=True,
            unconfirmed=("peaks",),
            note="Per GPU of the NVL72 rack (72 GPUs in one NVLink domain, a ConnectX-8 "
            "800 Gb/s NIC each). FP4 dense is the sheet's 1,080 PFLOPS / 72, not half the "
            "1,440 sparse; read from copies of the sheet, not NVIDIA's page itself.",
        ),
        GpuPreset(
            "mi300x",
            "AMD Instinct MI300X",
            _peaks(fp64=163.4, tf32=653.7, bf16=1307.4, fp8=2614.9, int8=2614.9),
            192,
            5.3,
            304,
            "AMD Instinct MI300X, https://www.amd.com/en/products/accelerators/instinct/"
            "mi300/mi300x.html",
            sm_label="CUs",
            note="AMD prints dense figures (sparse beside them). No MIG; AMD offers compute "
            "and memory partition modes instead.",
        ),
        GpuPreset(
            "mi325x",
            "AMD Instinct MI325X",
            _peaks(fp64=163.4, tf32=653.7, bf16=1307.4, fp8=2614.9, int8=2614.9),
            256,
            6.0,
            304,
            "AMD Instinct MI325X, https://www.amd.com/en/products/accelerators/instinct/"
            "mi300/mi325x.html",
            sm_label="CUs",
            note="Same CDNA 3 compute as MI300X with 256 GB HBM3E.",
        ),
        GpuPreset(
            "mi355x",
            "AMD Instinct MI355X",
            _peaks(fp64=78.6, bf16=2516.6, fp8=5033.2, fp6=10066.3, fp4=10066.3, int8=5033.2),
            288,
            8.0,
            256,
            "AMD Instinct MI355X, https://www.amd.com/en/products/accelerators/instinct/"
            "mi350/mi355x.html",
            sm_label="CUs",
            unconfirmed=("fp64",),
            note="AMD prints dense figures (sparse beside them): FP8 = 256 CUs × 8,192 "
            "FLOP/clock × 2.4 GHz.",
        ),
        GpuPreset(
            "tpu-v5e",
            "Google TPU v5e (per chip)",
            _peaks(bf16=197, int8=394),
            16,
            0.819,
            1,
            "Google Cloud TPU v5e, https://cloud.google.com/tpu/docs/v5e",
            sm_label="TensorCores",
            kind="tpu",
        ),
        GpuPreset(
            "tpu-v5p",
            "Google TPU v5p (per chip)",
            _peaks(bf16=459, int8=918),
            95,
            2.765,
            2,
            "Google Cloud TPU v5p, https://cloud.google.com/tpu/docs/v5p",
            sm_label="TensorCores",
            kind="tpu",
        ),
        GpuPreset(
            "tpu-v6e",
            "Google TPU v6e Trillium (per chip)",
            _peaks(bf16=918, int8=1836),
            32,
            1.64,
            1,
            "Google Cloud TPU v6e, https://cloud.google.com/tpu/docs/v6e",
            sm_label="TensorCores",
            kind="tpu",
        ),
        GpuPreset(
            "tpu-v7",
            "Google TPU v7 Ironwood (per chip)",
            _peaks(fp8=4614),
            192,
            7.37,
            2,
            "Google Cloud TPU7x (Ironwood), https://cloud.google.com/tpu/docs/tpu7x",
            sm_label="TensorCores",
            kind="tpu",
            note="Google announced the FP8 peak; BF16 is left out until checked.",
        ),
        GpuPreset(
            "rtx-4090",
            "NVIDIA GeForce RTX 4090",
            _peaks(tf32=82.6, bf16=165.2, fp8=330.3, int8=660.6),
            24,
            1.008,
            128,
            ADA_WHITEPAPER,
            sparse_headline=False,
            memory_gib=24564 / 1024,
            memory_source=NVSMI + " (24,564 MiB)",
            kind="local",
            note="FP16 and FP8 with FP16 accumulate run at twice these rates.",
        ),
        GpuPreset(
            "rtx-5090",
            "NVIDIA GeForce RTX 5090",
            _peaks(bf16=209.5, fp8=419),
            32,
            1.792,
            170,
            "NVIDIA GeForce RTX 5090 specifications and Blackwell RTX architecture "
            "whitepaper, https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/",
            kind="local",
            unconfirmed=("peaks",),
        ),
        GpuPreset(
            "m3-ultra",
            "Apple M3 Ultra (512 GB)",
            _peaks(),
            512,
            0.819,
            80,
            "Apple Mac Studio (2025) technical specifications, "
            "https://www.apple.com/mac-studio/specs/",
            sm_label="GPU cores",
            kind="local",
            note="Unified memory shared with the CPU; Apple publishes no tensor "
            "TFLOP/s figure, so presets do not fill peak_tflops.",
        ),
    ]
}


NVLINK4 = "NVIDIA NVLink and NVSwitch, https://www.nvidia.com/en-us/data-center/nvlink/"
DGX_H100 = "NVIDIA DGX H100 user guide (8 ConnectX-7 400 Gb/s compute NICs), https://docs.nvidia.com/dgx/dgxh100-user-guide/"
# slug: (NVLink GB/s per GPU one direction, NVLink domain, NICs per node, Gb/s per NIC, source)
INTERCONNECT: dict[str, tuple[float | None, int | None, int | None, float | None, str]] = {
    "h100-sxm": (450, 8, 8, 400, f"{NVLINK4} (900 GB/s both ways); {DGX_H100}"),
    "h200": (450, 8, 8, 400, f"{H200_SHEET} (NVLink 900 GB/s both ways); {DGX_H100}"),
    "h800": (
        200,
        8,
        8,
        400,
        "DeepSeek-V3 technical report, section 3.1 (NVLink 400 GB/s "
        "both ways, 8 × 400 Gb/s InfiniBand per node), https://arxiv.org/abs/2412.19437",
    ),
    "h20": (450, 8, 8, 400, "secondary source as for its peaks"),
    "h100-pcie": (300, 2, None, None, f"{H100_SHEET} (NVLink bridge 600 GB/s both ways)"),
    "h100-nvl": (300, 2, None, None, f"{H100_SHEET} (NVLink bridge 600 GB/s both ways)"),
    "a100-40gb": (
        300,
        8,
        8,
        200,
        f"{A100_SHEET} (NVLink 600 GB/s both ways; DGX A100 8 × 200 Gb/s)",
    ),
    "a100-80gb": (
        300,
        8,
        8,
        200,
        f"{A100_SHEET} (NVLink 600 GB/s both ways; DGX A100 8 × 200 Gb/s)",
    ),
    "a100-pcie-40gb": (300, 2, None, None, f"{A100_SHEET} (NVLink bridge 600 GB/s both ways)"),
    "a100-pcie-80gb": (300, 2, None, None, f"{A100_SHEET} (NVLink bridge 600 GB/s both ways)"),
    "gh200": (450, 1, 1, 400, f"{GH200_SHEET} (NVLink 900 GB/s both ways)"),
    "b200": (900, 8, 8, 400, f"{HGX_SHEET} (NVLink 5, 1.8 TB/s both ways)"),
    "b300": (900, 8, 8, 800, f"{HGX_SHEET} (NVLink 5; ConnectX-8 800 Gb/s)"),
    "gb200": (900, 72, 4, 400, f"{GB200_SHEET} (NVLink 5 across the rack)"),
    "gb300": (900, 72, 4, 800, f"{GB300_SHEET} (NVLink 5; ConnectX-8 800 Gb/s)"),
    "mi300x": (
        448,
        8,
        8,
        400,
        "AMD Instinct MI300X data sheet (7 Infinity Fabric links, "
        "896 GB/s peer-to-peer both ways), https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html",
    ),
}
INTERCONNECT["gh200-144gb"] = INTERCONNECT["gh200"]  # the same superchip, more HBM
#: Systems whose NVSwitch does NVLink SHARP (third-generation NVSwitch and later: HGX/DGX
#: H100-class boards and Blackwell NVLink domains), so NCCL may run NVLS and NVLS-tree.
#: A100's second-generation NVSwitch, NVLink bridges (PCIe, NVL cards), a lone GH200 and
#: AMD's Infinity Fabric do not. Source: NVIDIA NVLink and NVSwitch page (SHARP in the
#: third-generation NVSwitch); NCCL's NVLS needs NVSwitch systems (NCCL_NVLS_ENABLE).
NVLS_SYSTEMS = frozenset({"h100-sxm", "h200", "h800", "h20", "b200", "b300", "gb200", "gb300"})
GPUS = {
    slug: replace(
        gpu,
        nvls=slug in NVLS_SYSTEMS,
        nvlink_gbs=INTERCONNECT[slug][0],
        nvl_domain=INTERCONNECT[slug][1],
        nics_per_node=INTERCONNECT[slug][2],
        nic_gbps=INTERCONNECT[slug][3],
        interconnect_source=INTERCONNECT[slug][4],
    )
    if slug in INTERCONNECT
    else gpu
    for slug, gpu in GPUS.items()
}


def precision_problem(gpu: GpuPreset, precision: str) -> str | None:
    """Why ``gpu`` cannot fill a peak at ``precision`` (None when it can)."""
    if gpu.peak(precision) is not None:
        return None
    have = ", ".join(p for p in PRECISIONS if p in gpu.peaks) or "none"
    return (
        f"{gpu.slug} has no dense {precision} figure in its data sheet (it has: {have}); "
        "choose another precision or give peak_tflops"
    )


__all__ = [
    "COMPUTE_SLICES",
    "DEFAULT_PRECISION",
    "GIB_IN_GB",
    "GPUS",
    "MEMORY_SLICES",
    "MIG_GUIDE",
    "MIG_PROFILES",
    "PRECISIONS",
    "GpuPreset",
    "MigProfile",
    "all_mig_profile_names",
    "mig_profile",
    "mig_profile_names",
    "precision_problem",
]
