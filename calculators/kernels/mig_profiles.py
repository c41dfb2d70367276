"""MIG profiles as data, inside the kernel package so the ``mig`` kernel needs nothing
above it. ``calculators.presets`` re-exports these for pages, forms and the API.

Profiles come from NVIDIA's Multi-Instance GPU User Guide ("Supported MIG Profiles") and
the ``nvidia-smi mig -lgip`` listings it shows. A field named in ``unconfirmed`` could
not be checked against a listing when it was entered; pages say so. None means unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MIG_GUIDE = (
    "NVIDIA Multi-Instance GPU User Guide, 'Supported MIG Profiles' "
    "(https://docs.nvidia.com/datacenter/tesla/mig-user-guide/) and its "
    "nvidia-smi mig -lgip listings"
)
H100_LGIP = (
    MIG_GUIDE + "; H100 80GB memory GiB and SMs as printed by nvidia-smi mig -lgip "
    "(listing reproduced at https://jbarrow.ai/field_notes/nvidia-mig/)"
)

COMPUTE_SLICES = 7
MEMORY_SLICES = 8
GIB_IN_GB = 1.073741824  # 2**30 / 1e9


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

    @property
    def usable_gb(self) -> float | None:
        """The usable memory in GB (1e9 bytes), so a fit compares GB with GB."""
        return None if self.usable_gib is None else self.usable_gib * GIB_IN_GB

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "compute_slices": self.compute_slices,
            "memory_slices": self.memory_slices,
            "nominal_gb": self.nominal_gb,
            "usable_gib": self.usable_gib,
            "usable_gb": self.usable_gb,
            "sms": self.sms,
            "max_instances": self.max_instances,
            "unconfirmed": list(self.unconfirmed),
            "source": self.source,
        }


# SM counts per profile are the brief's figures from `nvidia-smi mig -lgip`. The H100
# listing (GiB and SMs) has been checked against a printed -lgip listing; the A100 GiB
# figures were entered without a listing at hand, so they stay flagged; where no listing
# was available the field is None.
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
        MigProfile("1g.10gb", 1, 1, 10, 9.75, 16, 7, source=H100_LGIP),
        MigProfile("1g.20gb", 1, 2, 20, 19.62, 26, 4, source=H100_LGIP),
        MigProfile("2g.20gb", 2, 2, 20, 19.62, 32, 3, source=H100_LGIP),
        MigProfile("3g.40gb", 3, 4, 40, 39.50, 60, 2, source=H100_LGIP),
        MigProfile("4g.40gb", 4, 4, 40, 39.50, 64, 1, source=H100_LGIP),
        MigProfile("7g.80gb", 7, 8, 80, 79.25, 132, 1, source=H100_LGIP),
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

# Streaming multiprocessors on the whole GPU, for the idle-SM count (None: not confirmed).
MIG_GPU_SMS: dict[str, int | None] = {
    "a100-40gb": 108,
    "a100-80gb": 108,
    "h100-sxm": 132,
    "h200": 132,
    "b200": None,
}


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
