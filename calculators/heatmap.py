"""Server-side SVG heat map for two-input grids (rows × columns, one output per cell).

Shade goes from light to dark with the value (a log scale when the values span more
than two decades), and every cell small enough to hold text carries its value, so the
chart never depends on telling colours apart. Cells marked in ``mask`` (a serving
estimate that does not fit) are hatched and crossed. Large grids are drawn at a stride
of rows and columns, which the description says.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from calculators.formatting import number

W = 640
ML, MR, MT, MB = 92, 16, 52, 78
MAX_DRAWN = 40  # cells per axis drawn; larger grids are sampled at a stride
MAX_LABELLED = 12  # cells per axis that still get a value written in them
INK = "#1b1f24"
LIGHT = (238, 243, 251)
DARK = (22, 58, 122)


def _stride(n: int) -> int:
    return max(1, math.ceil(n / MAX_DRAWN))


def _shade(t: float) -> tuple[str, str]:
    """Fill colour for t in [0, 1] and a text colour that reads on it."""
    rgb = [round(a + (b - a) * t) for a, b in zip(LIGHT, DARK, strict=True)]
    luminance = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255
    return "#{:02x}{:02x}{:02x}".format(*rgb), ("#fff" if luminance < 0.5 else INK)


def _short(v: Any) -> str:
    if v is None:
        return "n/a"
    a = abs(float(v))
    # (threshold, divisor, suffix): plain numbers up to 9,999, then k, M, G, T.
    for threshold, size, suffix in (
        (1e12, 1e12, "T"),
        (1e9, 1e9, "G"),
        (1e6, 1e6, "M"),
        (1e4, 1e3, "k"),
    ):
        if a >= threshold:
            return f"{float(v) / size:.3g}{suffix}"
    return number(v, sig=3)


def render_heatmap(c: dict[str, Any], uid: str) -> str:
    xs, ys, z = list(c["x"]), list(c["y"]), c["z"]
    mask = c.get("mask")
    sx, sy = _stride(len(xs)), _stride(len(ys))
    cols, rows = list(range(0, len(xs), sx)), list(range(0, len(ys), sy))
    values = [z[i][j] for i in rows for j in cols if z[i][j] is not None]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    log = lo > 0 and hi / lo > 100

    def t_of(v: float) -> float:
        if hi <= lo:
            return 0.5
        if log:
            return (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        return (v - lo) / (hi - lo)

    cell_w = (W - ML - MR) / len(cols)
    cell_h = max(14.0, min(34.0, 360 / len(rows)))
    height = int(MT + cell_h * len(rows) + MB)
    labelled = len(cols) <= MAX_LABELLED and len(rows) <= MAX_LABELLED * 2
    unit = c.get("unit", "")
    sampled = (
        f" Drawn at one column in {sx} and one row in {sy} of {len(ys)} × {len(xs)}."
        if sx > 1 or sy > 1
        else ""
    )
    desc = (
        f"{c.get('value_label', '')} in {unit} for {c['y_label']} (rows) × {c['x_label']} "
        f"(columns); from {number(lo)} to {number(hi)}.{sampled}"
    )
    if labelled:
        desc += " " + "; ".join(
            f"{c['y_label']} {number(ys[i])}: " + ", ".join(_short(z[i][j]) for j in cols)
            for i in rows
        )
    out = [
        f'<svg class="calc-chart calc-heatmap" viewBox="0 0 {W} {height}" role="img" '
        f'aria-labelledby="{uid}-t {uid}-d" xmlns="http://www.w3.org/2000/svg" '
        f'font-family="system-ui, sans-serif" font-size="13">',
        f'<title id="{uid}-t">{escape(c.get("title", ""))}</title>'
        f'<desc id="{uid}-d">{escape(desc)}</desc>',
        f'<defs><pattern id="{uid}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/>'
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="#8a939c" stroke-width="2"/></pattern></defs>',
        f'<text x="8" y="22" font-size="15" font-weight="600" fill="{INK}">'
        f"{escape(c.get('title', ''))}{' (' + escape(unit) + ')' if unit else ''}</text>",
    ]
    label_every_x = max(1, math.ceil(len(cols) / 8))
    label_every_y = max(1, math.ceil(len(rows) / 16))
    gap = 1 if labelled else 0
    for r, i in enumerate(rows):
        y = MT + r * cell_h
        for k, j in enumerate(cols):
            x = ML + k * cell_w
            v = z[i][j]
            masked = bool(mask and mask[i][j])
            if v is None:
                fill, ink = "#fff", INK
            else:
                fill, ink = _shade(t_of(v))
            if masked:
                fill, ink = f"url(#{uid}-hatch)", INK
            out.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell_w:.1f}" height="{cell_h:.1f}" '
                f'fill="{fill}" stroke="#fff" stroke-width="{gap}"/>'
            )
            if labelled:
                text = ("✗ " if masked else "") + _short(v)
                halo = ' paint-order="stroke" stroke="#fff" stroke-width="3"' if masked else ""
                out.append(
                    f'<text x="{x + cell_w / 2:.1f}" y="{y + cell_h / 2 + 4:.1f}" '
                    f'text-anchor="middle" fill="{ink}" font-size="12"{halo}>'
                    f"{escape(text)}</text>"
                )
        if r % label_every_y == 0:
            out.append(
                f'<text x="{ML - 6}" y="{y + cell_h / 2 + 4:.1f}" text-anchor="end" '
                f'fill="{INK}">{escape(_short(ys[i]))}</text>'
            )
    base = MT + cell_h * len(rows)
    for k, j in enumerate(cols):
        if k % label_every_x:
            continue
        out.append(
            f'<text x="{ML + k * cell_w + cell_w / 2:.1f}" y="{base + 18:.1f}" '
            f'text-anchor="middle" fill="{INK}">{escape(_short(xs[j]))}</text>'
        )
    out.append(
        f'<text x="{(ML + W - MR) / 2:.1f}" y="{base + 38:.1f}" text-anchor="middle" '
        f'fill="{INK}">{escape(c["x_label"])} →</text>'
        f'<text x="8" y="{MT - 8}" fill="{INK}">{escape(c["y_label"])} ↓</text>'
    )
    # Legend: the shade ramp with its ends, and the hatch for cells that do not fit.
    ly = base + 52
    for s in range(10):
        fill, _ = _shade(s / 9)
        out.append(f'<rect x="{ML + s * 14}" y="{ly}" width="14" height="12" fill="{fill}"/>')
    scale = "log scale" if log else "linear"
    out.append(
        f'<text x="{ML + 146}" y="{ly + 11}" fill="{INK}">{escape(_short(lo))} to '
        f"{escape(_short(hi))} {escape(unit)} ({scale})</text>"
    )
    if mask:
        out.append(
            f'<rect x="{W - MR - 130}" y="{ly}" width="14" height="12" fill="url(#{uid}-hatch)"'
            f' stroke="{INK}" stroke-width=".5"/><text x="{W - MR - 110}" y="{ly + 11}" '
            f'fill="{INK}">✗ {escape(c.get("mask_label", "masked"))}</text>'
        )
    out.append("</svg>")
    return "".join(out)
