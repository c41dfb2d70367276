"""Allowed downtime for an availability target.

Units: availability_pct in percent; downtime in minutes per year (365.25 days), minutes
per month (a twelfth of that year) and hours per year.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import f64

MINUTES_PER_YEAR = 365.25 * 24 * 60


def availability(*, availability_pct: ArrayLike) -> dict[str, np.ndarray]:
    """Return downtime_min_per_year, downtime_min_per_month, downtime_hours_per_year and
    nines (-log10 of the unavailable fraction: 99.9% is 3 nines)."""
    pct = f64(availability_pct)
    down = (100.0 - pct) / 100.0
    per_year = down * MINUTES_PER_YEAR
    with np.errstate(divide="ignore"):
        nines = -np.log10(down)
    return {
        "downtime_min_per_year": per_year,
        "downtime_min_per_month": per_year / 12.0,
        "downtime_hours_per_year": per_year / 60.0,
        "nines": nines,
    }
