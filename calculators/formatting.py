"""Number formatting shared by steps, texts, tables, the directive and the CLI.

Four significant figures, thousands separators for whole numbers, and powers of ten
written as "x 10^n" beyond a million so a reader can check them by hand.
"""

from __future__ import annotations

import math
from typing import Any

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number(value: Any, *, sig: int = 4) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    x = float(value)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if isinstance(value, int) or (x.is_integer() and abs(x) < 1e7):
        return f"{int(x):,}"
    if x == 0:
        return "0"
    exp = math.floor(math.log10(abs(x)))
    if abs(x) >= 1e7 or abs(x) < 1e-4:
        mant = x / 10**exp
        text = f"{mant:.{sig - 1}f}".rstrip("0").rstrip(".")
        return f"{text} × 10{str(exp).translate(SUPERSCRIPT)}"
    decimals = max(sig - 1 - exp, 0)
    text = f"{x:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def with_unit(value: Any, unit: str = "", *, sig: int = 4, kind: str = "number") -> str:
    if kind == "pct" and isinstance(value, int | float) and not isinstance(value, bool):
        if math.isnan(float(value)):
            return "n/a"
        return f"{number(float(value) * 100, sig=sig)} %"
    text = number(value, sig=sig)
    if not unit or text == "n/a" or isinstance(value, bool) or isinstance(value, str):
        return text
    if unit == "x":
        return f"{text}×"
    return f"{text} {unit}"
