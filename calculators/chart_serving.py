"""The serving_estimate chart: total tokens/s against tokens/s per user, one point per
concurrency (the "throughput against interactivity" curve serving benchmarks plot).

Each point is labelled with its concurrency B. The part of the curve the KV cache can
hold is solid, the part beyond it dashed; the memory limit is a filled square labelled
on its left and the input a diamond, so nothing depends on colour.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from calculators.chart_svg import (
    DASHES,
    INK,
    MB,
    ML,
    MT,
    Scale,
    _axes,
    _marker,
    _nice_range,
    _svg_open,
)
from calculators.chart_svg import H as CHART_H
from calculators.chart_svg import W as CHART_W
from calculators.formatting import number

LEGEND_X = CHART_W - 142


def _ok(v: Any) -> bool:
    return v is not None and math.isfinite(v) and v > 0


def render_serving(c: dict[str, Any], uid: str) -> str:
    curves = c["curves"]
    xs_all = [x for cv in curves for x in cv["x"] if _ok(x)]
    ys_all = [y for cv in curves for y in cv["y"] if _ok(y)]
    # Linear axes, as serving benchmarks draw this curve: the knee where adding requests
    # stops adding throughput is what the reader looks for.
    xs = Scale(*_nice_range(xs_all, False), ML, CHART_W - 150, False)
    ys = Scale(*_nice_range(ys_all, False), CHART_H - MB, MT, False)
    desc = "; ".join(
        f"{cv['label'] or 'curve'}: "
        + ", ".join(
            f"B={number(b)} {number(x, sig=3)}/user {number(y, sig=3)} total"
            for b, x, y in zip(cv["concurrency"], cv["x"], cv["y"], strict=True)
        )
        + (f"; KV cache full at B={cv['limit']}" if cv.get("limit") else "")
        for cv in curves
    )
    out = _svg_open(uid, c["title"], desc)
    out += _axes(xs, ys, c["x_label"], c["y_label"])
    # Where labelled markers sit (every curve's memory limit and input point): the small
    # concurrency labels keep clear of them and of each other, across both curves.
    taken = [
        (xs(x), ys(y))
        for cv in curves
        for b, x, y in zip(cv["concurrency"], cv["x"], cv["y"], strict=True)
        if b == cv.get("limit") and _ok(x) and _ok(y)
    ] + [
        (xs(cv["you"]["x"]), ys(cv["you"]["y"]))
        for cv in curves
        if cv.get("you") and _ok(cv["you"]["x"]) and _ok(cv["you"]["y"])
    ]
    for k, cv in enumerate(curves):
        pts = [
            (b, x, y)
            for b, x, y in zip(cv["concurrency"], cv["x"], cv["y"], strict=True)
            if _ok(x) and _ok(y)
        ]
        limit = cv.get("limit") or 0
        inside = [(x, y) for b, x, y in pts if b <= limit]
        beyond = [(x, y) for b, x, y in pts if b >= limit] if limit else [(x, y) for _, x, y in pts]
        for part, dash in ((inside, DASHES[k % 2 * 2]), (beyond, "6 5")):
            if len(part) > 1:
                d = " ".join(f"{xs(x):.1f},{ys(y):.1f}" for x, y in part)
                dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
                out.append(
                    f'<polyline points="{d}" fill="none" stroke="#1f5fbf" '
                    f'stroke-width="2.5"{dash_attr}/>'
                )
        you = cv.get("you") or {}
        for b, x, y in pts:
            px, py = xs(x), ys(y)
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{INK}"/>')
            # A label only where it collides with no other label or marker.
            if all(abs(px - tx) > 40 or abs(py - ty) > 18 for tx, ty in taken):
                taken.append((px, py))
                out.append(
                    f'<text x="{px + 5:.1f}" y="{py + 15 + 12 * k:.1f}" font-size="11" '
                    f'fill="{INK}" paint-order="stroke" stroke="#fff" stroke-width="3">'
                    f"{escape(cv['tag'])}B={number(b)}</text>"
                )
        lim = [(x, y) for b, x, y in pts if b == limit]
        if lim:
            lx, ly = xs(lim[0][0]), ys(lim[0][1])
            text = f"{cv['tag']}KV full at B={number(limit)}"
            # Left of the square, unless that would run off the chart: then right of it.
            left = lx - 9 - 7.5 * len(text) >= 4
            out.append(
                f'<rect x="{lx - 5:.1f}" y="{ly - 5:.1f}" width="10" height="10" fill="{INK}"/>'
                f'<text x="{lx - 9 if left else lx + 9:.1f}" y="{ly - 9 - 14 * k:.1f}" '
                f'text-anchor="{"end" if left else "start"}" '
                f'font-weight="600" fill="{INK}" paint-order="stroke" stroke="#fff" '
                f'stroke-width="3">{escape(text)}</text>'
            )
        if you and _ok(you["x"]) and _ok(you["y"]):
            out.append(_marker(xs(you["x"]), ys(you["y"]), you["label"], k + 1))
    legend = [
        ("line", "", "fits in KV cache"),
        ("line", "6 5", "beyond: queues"),
        ("square", "", "KV cache full"),
        ("diamond", "", "your input"),
    ]
    for i, (shape, dash, text) in enumerate(legend):
        y = MT + 10 + 20 * i
        if shape == "line":
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(
                f'<line x1="{LEGEND_X}" y1="{y}" x2="{LEGEND_X + 20}" y2="{y}" stroke="#1f5fbf" '
                f'stroke-width="2.5"{dash_attr}/>'
            )
        elif shape == "square":
            out.append(
                f'<rect x="{LEGEND_X + 5}" y="{y - 5}" width="10" height="10" fill="{INK}"/>'
            )
        else:
            out.append(
                f'<path d="M{LEGEND_X + 10} {y - 6}L{LEGEND_X + 16} {y}L{LEGEND_X + 10} {y + 6}'
                f'L{LEGEND_X + 4} {y}Z" fill="#fff" stroke="{INK}" stroke-width="2"/>'
            )
        out.append(
            f'<text x="{LEGEND_X + 26}" y="{y + 4}" font-size="11" fill="{INK}">{text}</text>'
        )
    if len(curves) > 1:
        y = MT + 10 + 20 * len(legend)
        for cv in curves:
            label = cv["label"] if len(cv["label"]) <= 24 else cv["label"][:23] + "…"
            out.append(
                f'<text x="{LEGEND_X}" y="{y + 4}" font-size="11" fill="{INK}">'
                f"{escape(label)}</text>"
            )
            y += 16
    out.append(
        f'<text x="{ML + 4}" y="{CHART_H - MB - 8}" font-size="11" fill="{INK}">'
        "labels: B = concurrent requests</text>"
    )
    out.append("</svg>")
    return "".join(out)
