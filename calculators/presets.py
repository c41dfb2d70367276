"""Hardware presets: GPUs, two local devices and their MIG profiles, kept as data.

Each figure carries the source it was taken from. Figures are dense tensor throughput
(sparse is twice). A field named in ``unconfirmed`` could not be checked against the
vendor document when it was entered; pages and texts say so rather than present it as
fact. None means unknown: a preset never fills an input with an unknown figure.

This module is pure data (no Django) so that kernels may import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class GpuPreset:
    slug: str
    name: str
    bf16_tflops: float | None  # dense BF16/FP16 tensor TFLOP/s
    fp8_tflops: float | None  # dense FP8 tensor TFLOP/s, None where the part has none
    memory_gb: float
    bandwidth_tbs: float
    sms: int | None  # streaming multiprocessors (compute units on AMD)
    sm_label: str = "SMs"
    mig: bool = False
    kind: str = "datacenter"  # datacenter | local
    source: str = ""
    unconfirmed: tuple[str, ...] = ()
    note: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "slug": self.slug,
            "name": self.name,
            "bf16_tflops": self.bf16_tflops,
            "fp8_tflops": self.fp8_tflops,
            "memory_gb": self.memory_gb,
            "bandwidth_tbs": self.bandwidth_tbs,
            "sms": self.sms,
            "sm_label": self.sm_label,
            "mig": self.mig,
            "kind": self.kind,
            "source": self.source,
            "unconfirmed": list(self.unconfirmed),
            "note": self.note,
        }


MIG_GUIDE = (
    "NVIDIA Multi-Instance GPU User Guide, 'Supported MIG Profiles' and its "
    "nvidia-smi mig -lgip listings"
)


@dataclass(frozen=True)
class MigProfile:
    name: str  # as nvidia-smi names it, e.g. "3g.40gb"
    compute_slices: int  # of 7
    memory_slices: int  # of 8
    nominal_gb: float  # the size in the profile's name
    usable_gib: float | None  # "Memory GiB" column of nvidia-smi mig -lgip, where known
    sms: int | None
    max_instances: int
    unconfirmed: tuple[str, ...] = field(default=())
    source: str = MIG_GUIDE

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "compute_slices": self.compute_slices,
            "memory_slices": self.memory_slices,
            "nominal_gb": self.nominal_gb,
            "usable_gib": self.usable_gib,
            "sms": self.sms,
            "max_instances": self.max_instances,
            "unconfirmed": list(self.unconfirmed),
            "source": self.source,
        }


H100_SOURCE = "NVIDIA H100 Tensor Core GPU datasheet (SXM5 and PCIe columns)"
A100_SOURCE = "NVIDIA A100 Tensor Core GPU datasheet (SXM4 column)"

GPUS: dict[str, GpuPreset] = {
    g.slug: g
    for g in [
        GpuPreset(
            "h100-sxm",
            "NVIDIA H100 SXM",
            989.0,
            1979.0,
            80,
            3.35,
            132,
            mig=True,
            source=H100_SOURCE,
        ),
        GpuPreset(
            "h100-pcie",
            "NVIDIA H100 PCIe",
            756.0,
            1513.0,
            80,
            2.0,
            114,
            mig=True,
            source=H100_SOURCE,
            note="Has MIG; its per-profile SM counts are not in this table.",
        ),
        GpuPreset(
            "h200",
            "NVIDIA H200 SXM",
            989.0,
            1979.0,
            141,
            4.8,
            132,
            mig=True,
            source="NVIDIA H200 Tensor Core GPU datasheet (SXM column)",
        ),
        GpuPreset(
            "a100-40gb",
            "NVIDIA A100 40GB SXM",
            312.0,
            None,
            40,
            1.555,
            108,
            mig=True,
            source=A100_SOURCE,
        ),
        GpuPreset(
            "a100-80gb",
            "NVIDIA A100 80GB SXM",
            312.0,
            None,
            80,
            2.039,
            108,
            mig=True,
            source=A100_SOURCE,
        ),
        GpuPreset(
            "l4",
            "NVIDIA L4",
            121.0,
            242.0,
            24,
            0.30,
            58,
            source="NVIDIA L4 Tensor Core GPU datasheet",
            unconfirmed=("bandwidth_tbs", "sms"),
        ),
        GpuPreset(
            "l40s", "NVIDIA L40S", 362.0, 733.0, 48, 0.864, 142, source="NVIDIA L40S GPU datasheet"
        ),
        GpuPreset(
            "b200",
            "NVIDIA B200",
            2250.0,
            4500.0,
            180,
            8.0,
            148,
            mig=True,
            source="NVIDIA HGX B200 / DGX B200 datasheet (per GPU)",
            unconfirmed=("sms",),
        ),
        GpuPreset(
            "mi300x",
            "AMD Instinct MI300X",
            1307.0,
            2615.0,
            192,
            5.3,
            304,
            sm_label="CUs",
            source="AMD Instinct MI300X data sheet",
            note="No MIG; AMD offers compute and memory partition modes instead.",
        ),
        GpuPreset(
            "rtx-5090",
            "NVIDIA GeForce RTX 5090",
            209.5,
            419.0,
            32,
            1.792,
            170,
            kind="local",
            source="NVIDIA GeForce RTX 5090 specifications and "
            "Blackwell RTX architecture whitepaper",
            unconfirmed=("bf16_tflops", "fp8_tflops"),
        ),
        GpuPreset(
            "m3-ultra",
            "Apple M3 Ultra (512 GB)",
            None,
            None,
            512,
            0.819,
            80,
            sm_label="GPU cores",
            kind="local",
            source="Apple Mac Studio (2025) technical specifications",
            note="Unified memory shared with the CPU; Apple publishes no tensor "
            "TFLOP/s figure, so presets do not fill peak_tflops.",
        ),
    ]
}

# SM counts per profile are the brief's figures from `nvidia-smi mig -lgip`. The usable GiB
# figures for A100 and H100 are as the guide's -lgip listings show them, but were entered
# without the document at hand, so they are flagged until someone checks them; where no
# listing was available the field is None. Fields named in ``unconfirmed`` say so on pages.
_GIB = ("usable_gib",)
_SMS_GIB = ("sms", "usable_gib")

MIG_PROFILES: dict[str, list[MigProfile]] = {
    "a100-40gb": [
        MigProfile("1g.5gb", 1, 1, 5, 4.75, 14, 7, unconfirmed=_GIB),
        MigProfile("1g.10gb", 1, 2, 10, None, 14, 4, unconfirmed=_GIB),
        MigProfile("2g.10gb", 2, 2, 10, 9.75, 28, 3, unconfirmed=_GIB),
        MigProfile("3g.20gb", 3, 4, 20, 19.62, 42, 2, unconfirmed=_GIB),
        MigProfile("4g.20gb", 4, 4, 20, 19.62, 56, 1, unconfirmed=_GIB),
        MigProfile("7g.40gb", 7, 8, 40, 39.50, 98, 1, unconfirmed=_GIB),
    ],
    "a100-80gb": [
        MigProfile("1g.10gb", 1, 1, 10, 9.50, 14, 7, unconfirmed=_GIB),
        MigProfile("1g.20gb", 1, 2, 20, 19.50, 14, 4, unconfirmed=_GIB),
        MigProfile("2g.20gb", 2, 2, 20, 19.50, 28, 3, unconfirmed=_GIB),
        MigProfile("3g.40gb", 3, 4, 40, 39.25, 42, 2, unconfirmed=_GIB),
        MigProfile("4g.40gb", 4, 4, 40, 39.25, 56, 1, unconfirmed=_GIB),
        MigProfile("7g.80gb", 7, 8, 80, 78.75, 98, 1, unconfirmed=_GIB),
    ],
    "h100-sxm": [
        MigProfile("1g.10gb", 1, 1, 10, 9.75, 16, 7, unconfirmed=_GIB),
        MigProfile("1g.20gb", 1, 2, 20, 19.62, 26, 4, unconfirmed=_GIB),
        MigProfile("2g.20gb", 2, 2, 20, 19.62, 32, 3, unconfirmed=_GIB),
        MigProfile("3g.40gb", 3, 4, 40, 39.50, 60, 2, unconfirmed=_GIB),
        MigProfile("4g.40gb", 4, 4, 40, 39.50, 64, 1, unconfirmed=_GIB),
        MigProfile("7g.80gb", 7, 8, 80, 79.25, 132, 1, unconfirmed=_GIB),
    ],
    # Same SM layout as H100 SXM per the brief; usable GiB not yet read from a listing.
    "h200": [
        MigProfile("1g.18gb", 1, 1, 18, None, 16, 7, unconfirmed=_GIB),
        MigProfile("1g.35gb", 1, 2, 35, None, 26, 4, unconfirmed=_GIB),
        MigProfile("2g.35gb", 2, 2, 35, None, 32, 3, unconfirmed=_GIB),
        MigProfile("3g.71gb", 3, 4, 71, None, 60, 2, unconfirmed=_GIB),
        MigProfile("4g.71gb", 4, 4, 71, None, 64, 1, unconfirmed=_GIB),
        MigProfile("7g.141gb", 7, 8, 141, None, 132, 1, unconfirmed=_GIB),
    ],
    "b200": [
        MigProfile("1g.23gb", 1, 1, 23, None, None, 7, unconfirmed=_SMS_GIB),
        MigProfile("1g.45gb", 1, 2, 45, None, None, 4, unconfirmed=_SMS_GIB),
        MigProfile("2g.45gb", 2, 2, 45, None, None, 3, unconfirmed=_SMS_GIB),
        MigProfile("3g.90gb", 3, 4, 90, None, None, 2, unconfirmed=_SMS_GIB),
        MigProfile("4g.90gb", 4, 4, 90, None, None, 1, unconfirmed=_SMS_GIB),
        MigProfile("7g.180gb", 7, 8, 180, None, None, 1, unconfirmed=_SMS_GIB),
    ],
}

COMPUTE_SLICES = 7
MEMORY_SLICES = 8
GIB_IN_GB = 1.073741824  # 2**30 / 1e9


def mig_profile(gpu_slug: str, profile: str) -> MigProfile:
    for p in MIG_PROFILES[gpu_slug]:
        if p.name == profile:
            return p
    raise KeyError(f"{gpu_slug} has no MIG profile {profile!r}")


def mig_profile_names(gpu_slug: str) -> list[str]:
    return [p.name for p in MIG_PROFILES.get(gpu_slug, [])]


def all_mig_profile_names() -> list[str]:
    seen: dict[str, None] = {}
    for profiles in MIG_PROFILES.values():
        for p in profiles:
            seen.setdefault(p.name, None)
    return list(seen)
