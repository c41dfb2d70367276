"""Server-side SVG charts from the chart data in a result.

No JavaScript and no colour dependence: series differ by dash pattern and carry direct
labels, bar segments differ by hatch pattern, and the input point is a labelled marker.
Every chart has a <title> and <desc> for screen readers. All text is escaped.

``render_chart`` picks the kind; roofline, line, bar and MIG charts are drawn here,
serving curves in ``chart_serving`` and heatmaps in ``heatmap``, all with the primitives
of ``chart_svg``.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from calculators.chart_serving import render_serving
from calculators.chart_svg import (
    DASHES,
    INK,
    MB,
    ML,
    MR,
    MT,
    H,
    LabelPlacer,
    Scale,
    W,
    _axes,
    _fill,
    _marker,
    _nice_range,
    _polyline,
    _spread,
    _svg_open,
)
from calculators.formatting import number
from calculators.heatmap import render_heatmap
from calculators.presets import COMPUTE_SLICES, MEMORY_SLICES


def render_chart(chart: dict[str, Any] | None, *, uid: str = "c") -> str:
    if not chart:
        return ""
    kind = chart.get("type")
    try:
        if kind == "roofline":
            return _roofline(chart, uid)
        if kind == "line":
            return _line(chart, uid)
        if kind == "bars":
            return _bars(chart, uid)
        if kind == "mig":
            return _mig(chart, uid)
        if kind == "heatmap":
            return render_heatmap(chart, uid)
        if kind == "serving":
            return render_serving(chart, uid)
    except (ValueError, TypeError, ZeroDivisionError):
        return ""  # a chart must never break the page that shows the numbers
    return ""


# ---------------------------------------------------------------- scales


# ---------------------------------------------------------------- chart types


def _roofline(c: dict[str, Any], uid: str) -> str:
    peak, bw, ridge = float(c["peak"]), float(c["bandwidth"]), float(c["ridge"])
    xs_pts = [p["x"] for p in c["points"] if p["x"]]
    x_lo = min([ridge / 100] + [x / 4 for x in xs_pts])
    x_hi = max([ridge * 30] + [x * 4 for x in xs_pts])
    xs = Scale(*_nice_range([x_lo, x_hi], True), ML, W - MR, True)
    y_lo = min([x_lo * bw] + [p["y"] / 4 for p in c["points"] if p["y"]])
    ys = Scale(*_nice_range([y_lo, peak * 2], True), H - MB, MT, True)
    desc = (
        f"Roofline with peak {number(peak)} TFLOP/s and bandwidth {number(bw)} TB/s; ridge at "
        f"{number(ridge)} FLOP/byte. "
        + "; ".join(
            f"{p['label']}: intensity {number(p['x'])}, {number(p['y'])} TFLOP/s"
            for p in c["points"]
        )
    )
    out = _svg_open(uid, c.get("title", "Roofline"), desc)
    out += _axes(xs, ys, c["x_label"], c["y_label"])
    roof = [(xs.lo, xs.lo * bw), (ridge, peak), (xs.hi, peak)]
    out.append(_polyline(xs, ys, roof, "", 3))
    rx, ry = xs(ridge), ys(peak)
    out.append(
        f'<line x1="{rx:.1f}" y1="{ry:.1f}" x2="{rx:.1f}" y2="{H - MB}" stroke="{INK}" '
        f'stroke-dasharray="4 4"/><circle cx="{rx:.1f}" cy="{ry:.1f}" r="4" fill="{INK}"/>'
        # The ridge label sits at the foot of its line, clear of the input points above.
        f'<text x="{rx + 5:.1f}" y="{H - MB - 8}" fill="{INK}" paint-order="stroke" '
        f'stroke="#fff" stroke-width="3">ridge {escape(number(ridge))} FLOP/byte</text>'
    )
    out.append(
        f'<text x="{W - MR + 6}" y="{ys(peak) + 4:.1f}" fill="{INK}">peak '
        f"{escape(number(peak))} TFLOP/s</text>"
    )
    mid = xs.lo**0.3 * ridge**0.7
    # Up and to the left of the sloped roof, so the line never runs through the text.
    out.append(
        f'<text x="{xs(mid) - 8:.1f}" y="{ys(mid * bw) - 8:.1f}" fill="{INK}" '
        f'text-anchor="end" paint-order="stroke" stroke="#fff" stroke-width="3">'
        f"memory roof {escape(number(bw))} TB/s</text>"
    )
    for i, p in enumerate(c["points"]):
        if p["x"] and p["y"]:
            out.append(_marker(xs(p["x"]), ys(p["y"]), p["label"], i))
    out.append("</svg>")
    return "".join(out)


def _line(c: dict[str, Any], uid: str) -> str:
    x_log, y_log = bool(c.get("x_log")), bool(c.get("y_log"))
    all_x = [x for s in c["series"] for x in s["x"]] + [p["x"] for p in c.get("points", [])]
    all_y = (
        [y for s in c["series"] for y in s["y"]]
        + [p["y"] for p in c.get("points", [])]
        + [h["y"] for h in c.get("hlines", [])]
    )
    x_lo, x_hi = (min(all_x), max(all_x)) if not x_log else _nice_range(all_x, True)
    xs = Scale(x_lo, x_hi, ML, W - MR, x_log)
    ys = Scale(*_nice_range(all_y, y_log), H - MB, MT, y_log)
    desc = (
        c.get("title", "")
        + ". "
        + "; ".join(
            f"{p['label']}: {number(p['x'])}, {number(p['y'])}" for p in c.get("points", [])
        )
    )
    out = _svg_open(uid, c.get("title", ""), desc)
    out += _axes(xs, ys, c["x_label"], c["y_label"])
    ends: list[tuple[int, float]] = []
    for i, s in enumerate(c["series"]):
        out.append(
            _polyline(xs, ys, list(zip(s["x"], s["y"], strict=True)), DASHES[i % len(DASHES)])
        )
        last = [
            (x, y)
            for x, y in zip(s["x"], s["y"], strict=True)
            if y is not None and math.isfinite(y) and (y > 0 or not y_log)
        ]
        if last:
            ends.append((i, ys(last[-1][1]) + 4))
    # Direct labels at the right, each at its line's end, moved apart where they would meet.
    for (i, _), y in zip(ends, _spread([y for _, y in ends]), strict=True):
        out.append(
            f'<text x="{W - MR + 6}" y="{y:.1f}" fill="{INK}">'
            f'<tspan font-weight="600">{"—–·"[i % 3] * 2}</tspan> '
            f"{escape(c['series'][i]['label'])}</text>"
        )
    for h in c.get("hlines", []):
        y = ys(h["y"])
        out.append(
            f'<line x1="{ML}" y1="{y:.1f}" x2="{W - MR}" y2="{y:.1f}" stroke="{INK}" '
            f'stroke-dasharray="6 3 1 3"/><text x="{ML + 6}" y="{y - 5:.1f}" '
            f'fill="{INK}" paint-order="stroke" stroke="#fff" stroke-width="3">'
            f"{escape(h['label'])} {escape(number(h['y']))}</text>"
        )
    placer = LabelPlacer()
    for p in c.get("points", []):
        if p["x"] is not None and p["y"] is not None:
            x, y = xs(p["x"]), ys(p["y"])
            out.append(_marker(x, y, p["label"], dy=placer.dy(x, y, p["label"])))
    out.append("</svg>")
    return "".join(out)


def _bars(c: dict[str, Any], uid: str) -> str:
    cats, segs = c["categories"], c["segments"]
    stacked, y_log = bool(c.get("stacked")), bool(c.get("y_log"))
    totals = [
        sum((s["values"][i] or 0) for s in segs)
        if stacked
        else max((s["values"][i] or 0) for s in segs)
        for i in range(len(cats))
    ]
    marks = [v for m in c.get("markers", []) for v in m["values"]]
    ys = Scale(*_nice_range(totals + marks + ([] if y_log else [0]), y_log), H - MB, MT, y_log)
    n = len(cats)
    slot = (W - MR - ML) / max(n, 1)
    group = len(segs) if not stacked else 1
    bar_w = min(80.0, slot * 0.7 / group)
    desc = (
        c.get("title", "")
        + ". "
        + "; ".join(
            f"{cat}: " + ", ".join(f"{s['label']} {number(s['values'][i])}" for s in segs)
            for i, cat in enumerate(cats)
        )
    )
    out = _svg_open(uid, c.get("title", ""), desc)
    # Categories label the x axis, so it has no ticks and no axis label.
    out += _axes(Scale(0, 1, ML, W - MR, False), ys, "", c.get("y_label", ""), x_ticks=False)
    highlight = set(c.get("highlight", []))
    for i, cat in enumerate(cats):
        x0 = ML + slot * i + (slot - bar_w * group) / 2
        base = ys.lo if y_log else 0.0
        for j, s in enumerate(segs):
            v = s["values"][i] or 0
            if y_log and v <= 0:
                continue
            if stacked:
                y_top, y_bot = ys(base + v), ys(base)
                x = x0
                base += v
            else:
                y_top, y_bot = ys(v), ys(ys.lo if y_log else 0)
                x = x0 + j * bar_w
            hgt = max(y_bot - y_top, 0)
            stroke = 3 if i in highlight else 1.2
            out.append(
                f'<rect x="{x:.1f}" y="{y_top:.1f}" width="{bar_w:.1f}" height="{hgt:.1f}"'
                f' fill="{_fill(uid, j)}" stroke="{INK}" stroke-width="{stroke}"/>'
            )
            if hgt > 16 and (stacked or len(segs) > 1):
                out.append(
                    f'<text x="{x + bar_w / 2:.1f}" y="{y_top + hgt / 2 + 4:.1f}" '
                    f'text-anchor="middle" fill="{INK}" font-size="11" '
                    f'paint-order="stroke" stroke="#fff" stroke-width="3">'
                    f"{escape(number(v, sig=3))}</text>"
                )
        top = ys(totals[i])  # a log scale clamps a zero total to its floor
        out.append(
            f'<text x="{x0 + bar_w * group / 2:.1f}" y="{top - 6:.1f}" text-anchor="middle" '
            f'fill="{INK}" font-weight="600">{escape(number(totals[i], sig=3))}</text>'
        )
        label = cat if len(cat) <= 28 else cat[:27] + "…"
        weight = ' font-weight="700"' if i in highlight else ""
        out.append(
            f'<text x="{ML + slot * i + slot / 2:.1f}" y="{H - MB + 16}" '
            f'text-anchor="middle" fill="{INK}" font-size="11"{weight}>'
            f"{escape(label)}</text>"
        )
        for m in c.get("markers", []):
            mv = m["values"][i]
            if mv:
                my = ys(mv)
                out.append(
                    f'<line x1="{x0 - 8:.1f}" y1="{my:.1f}" x2="{x0 + bar_w * group + 8:.1f}"'
                    f' y2="{my:.1f}" stroke="{INK}" stroke-width="2.5" '
                    f'stroke-dasharray="6 3"/>'
                )
    legend_y = MT + 8
    for j, s in enumerate(segs):
        out.append(
            f'<rect x="{W - MR + 8}" y="{legend_y + 20 * j}" width="16" height="12" '
            f'fill="{_fill(uid, j)}" stroke="{INK}"/><text x="{W - MR + 30}" '
            f'y="{legend_y + 20 * j + 10}" fill="{INK}">{escape(s["label"])}</text>'
        )
    for k, m in enumerate(c.get("markers", [])):
        y = legend_y + 20 * (len(segs) + k) + 6
        out.append(
            f'<line x1="{W - MR + 8}" y1="{y}" x2="{W - MR + 24}" y2="{y}" stroke="{INK}" '
            f'stroke-width="2.5" stroke-dasharray="6 3"/><text x="{W - MR + 30}" '
            f'y="{y + 4}" fill="{INK}">{escape(m["label"])}</text>'
        )
    if highlight:
        y = legend_y + 20 * (len(segs) + len(c.get("markers", []))) + 10
        out.append(f'<text x="{W - MR + 8}" y="{y}" fill="{INK}">thick = your input</text>')
    out.append("</svg>")
    return "".join(out)


def _mig(c: dict[str, Any], uid: str) -> str:
    cols = c["columns"]
    row_h, gap = 34, 66
    height = MT + 20 + len(cols) * (2 * row_h + gap)
    desc = "; ".join(
        f"{col['label']}: {col['instances']} instances of {col['compute_slices']} compute and "
        f"{col['memory_slices']} memory slices"
        for col in cols
    )
    out = _svg_open(uid, c.get("title", "MIG slices"), desc, height)
    left, width = 150, W - 170
    y = MT + 16
    for col in cols:
        out.append(
            f'<text x="10" y="{y + 4}" font-weight="600" fill="{INK}">{escape(col["label"])}</text>'
        )
        y += 12
        for kind, total, per in (
            ("compute", COMPUTE_SLICES, col["compute_slices"]),
            ("memory", MEMORY_SLICES, col["memory_slices"]),
        ):
            out.append(
                f'<text x="10" y="{y + row_h / 2 + 4}" fill="{INK}">{kind} ({total} slices)</text>'
            )
            cell = width / total
            for k in range(total):
                inst = k // per if per else total
                used = inst < (col["instances"] or 0)
                fill = _fill(uid, inst + 1) if used else "#fff"
                dash = "" if used else ' stroke-dasharray="3 3"'
                out.append(
                    f'<rect x="{left + k * cell:.1f}" y="{y}" width="{cell - 3:.1f}" '
                    f'height="{row_h - 6}" fill="{fill}" stroke="{INK}" '
                    f'stroke-width="{1.5 if used else 1}"'
                    f"{dash}/>"
                )
                text = f"#{inst + 1}" if used else "unused"
                out.append(
                    f'<text x="{left + k * cell + (cell - 3) / 2:.1f}" y="{y + row_h / 2 + 1}"'
                    f' text-anchor="middle" fill="{INK}" font-size="11" '
                    f'paint-order="stroke" stroke="#fff" stroke-width="3">{text}</text>'
                )
            y += row_h
        sms = col.get("instance_sms")
        idle = col.get("idle_sms")
        fits = "the model fits" if col.get("model_fits") else "the model does not fit"
        sm_text = (
            f"{col['instances']} instances × {number(sms)} SMs; {number(idle)} SMs idle"
            if sms is not None
            else f"{col['instances']} instances; SMs per instance unconfirmed"
        )
        out.append(
            f'<text x="{left}" y="{y + 14}" fill="{INK}">{escape(sm_text)}; {escape(fits)}</text>'
        )
        y += gap - 12
    out.append("</svg>")
    return "".join(out)
