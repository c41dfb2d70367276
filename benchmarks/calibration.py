"""The calibration table: every published measurement in calculators/calibration/, the
calculators' estimate for the same configuration (as a user would run it: GPU preset,
model from the catalogue, default efficiencies), the ratio, and the median miss.

    python benchmarks/calibration.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inferview.settings.test")
    import django

    django.setup()
    from calculators.calibration import TARGET_BAND, evaluate, median_log_miss

    results = evaluate()
    print(f"{'row':36s} {'calculator':17s} {'measured':>12s} {'estimate':>12s} {'ratio':>6s}  band")
    for r in results:
        flag = "" if r.in_target else "  (miss explained)" if r.row.explained else "  MISS"
        print(
            f"{r.row.id:36s} {r.row.calculator:17s} {r.row.measured:12,.1f} "
            f"{r.estimate:12,.1f} {r.ratio:6.2f}  {r.row.band[0]:.2f}-{r.row.band[1]:.2f}{flag}"
        )
    inside = sum(r.in_target for r in results)
    within_2x = sum(0.5 <= r.ratio <= 2.0 for r in results)
    print(
        f"\n{len(results)} rows; {inside} within {TARGET_BAND[0]}-{TARGET_BAND[1]}x, "
        f"{within_2x} within 2x; every row in its band: {all(r.in_band for r in results)}"
    )
    print(f"median |ln(estimate/measured)| = {median_log_miss(results):.3f}")
    for r in results:
        if r.row.explained:
            print(f"- {r.row.id}: {r.row.explained}")
    return 0 if all(r.in_band for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
