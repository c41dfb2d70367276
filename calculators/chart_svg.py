"""SVG primitives the chart kinds share: sizes and margins, scales (linear or log), axes
and ticks, dash and hatch patterns, markers, polylines and label placement that keeps
direct labels apart. Every chart kind (``charts``, ``chart_serving``) draws with these; no
colour carries meaning (series differ by dash, segments by hatch)."""

from __future__ import annotations

import math
from html import escape

from calculators.formatting import number

W, H = 640, 360


ML, MR, MT, MB = 70, 150, 36, 56  # margins; the right one holds direct labels


DASHES = ["", "8 5", "2 4", "12 4 2 4"]


PATTERNS = ["solid", "diag", "dots", "cross"]


INK = "#1b1f24"


ACCENT = "#1f5fbf"


class Scale:
    def __init__(self, lo: float, hi: float, a: float, b: float, log: bool) -> None:
        if log:
            lo, hi = max(lo, 1e-300), max(hi, lo * 10)
        elif hi <= lo:
            hi = lo + 1
        self.lo, self.hi, self.a, self.b, self.log = lo, hi, a, b, log

    def __call__(self, v: float) -> float:
        if self.log:
            v = max(v, self.lo)
            t = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            t = (v - self.lo) / (self.hi - self.lo)
        return self.a + t * (self.b - self.a)

    def ticks(self) -> list[float]:
        if self.log:
            first, last = math.ceil(math.log10(self.lo)), math.floor(math.log10(self.hi))
            step = max(1, math.ceil((last - first + 1) / 7))
            return [10.0**e for e in range(first, last + 1, step)]
        span = self.hi - self.lo
        raw = span / 5
        mag = 10 ** math.floor(math.log10(raw))
        step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
        start = math.ceil(self.lo / step) * step
        return [start + i * step for i in range(int((self.hi - start) / step) + 1)]


def _nice_range(values: list[float], log: bool, pad: float = 0.08) -> tuple[float, float]:
    vals = [v for v in values if v is not None and math.isfinite(v) and (v > 0 or not log)]
    if not vals:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = min(vals), max(vals)
    if log:
        return 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi) + 1e-9)
    lo = min(lo, 0.0)
    return lo, hi + (hi - lo) * pad or 1.0


def _svg_open(uid: str, title: str, desc: str, height: int = H) -> list[str]:
    return [
        f'<svg class="calc-chart" viewBox="0 0 {W} {height}" role="img" '
        f'aria-labelledby="{uid}-t {uid}-d" xmlns="http://www.w3.org/2000/svg" '
        f'font-family="system-ui, sans-serif" font-size="12">',
        f'<title id="{uid}-t">{escape(title)}</title><desc id="{uid}-d">{escape(desc)}</desc>',
        _pattern_defs(uid),
        # A long title gets a smaller font so it stays inside the chart's width.
        f'<text x="{ML if len(title) <= 60 else 8}" y="20" '
        f'font-size="{14 if len(title) <= 60 else 14 * 74 / max(len(title), 74):.1f}" '
        f'font-weight="600" fill="{INK}">{escape(title)}</text>',
    ]


def _pattern_defs(uid: str) -> str:
    return (
        f'<defs><pattern id="{uid}-diag" width="8" height="8" patternUnits="userSpaceOnUse"'
        f' patternTransform="rotate(45)"><rect width="8" height="8" fill="#fff"/>'
        f'<line x1="0" y1="0" x2="0" y2="8" stroke="{INK}" stroke-width="2"/></pattern>'
        f'<pattern id="{uid}-dots" width="7" height="7" patternUnits="userSpaceOnUse">'
        f'<rect width="7" height="7" fill="#fff"/><circle cx="3.5" cy="3.5" r="1.6" '
        f'fill="{INK}"/></pattern>'
        f'<pattern id="{uid}-cross" width="8" height="8" patternUnits="userSpaceOnUse">'
        f'<rect width="8" height="8" fill="#fff"/><path d="M0 0L8 8M8 0L0 8" '
        f'stroke="{INK}" stroke-width="1"/></pattern></defs>'
    )


def _fill(uid: str, i: int) -> str:
    name = PATTERNS[i % len(PATTERNS)]
    return "#9db7e0" if name == "solid" else f"url(#{uid}-{name})"


def _tick(v: float) -> str:
    """Compact tick labels so large values fit beside the axis."""
    a = abs(v)
    for size, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e5, "k")):
        if a >= size:
            return f"{v / (size if suffix != 'k' else 1e3):g}{suffix}"
    return number(v)


def _axes(xs: Scale, ys: Scale, x_label: str, y_label: str, *, x_ticks: bool = True) -> list[str]:
    out = [
        f'<g class="axes" stroke="#9aa4ae" fill="none">'
        f'<line x1="{ML}" y1="{H - MB}" x2="{W - MR}" y2="{H - MB}"/>'
        f'<line x1="{ML}" y1="{MT}" x2="{ML}" y2="{H - MB}"/></g>'
    ]
    for t in xs.ticks() if x_ticks else []:
        x = xs(t)
        out.append(
            f'<line x1="{x:.1f}" y1="{H - MB}" x2="{x:.1f}" y2="{H - MB + 5}" '
            f'stroke="#9aa4ae"/><text x="{x:.1f}" y="{H - MB + 18}" text-anchor="middle" '
            f'fill="{INK}">{escape(_tick(t))}</text>'
        )
    for t in ys.ticks():
        y = ys(t)
        out.append(
            f'<line x1="{ML}" y1="{y:.1f}" x2="{W - MR}" y2="{y:.1f}" stroke="#eceff2"/>'
            f'<text x="{ML - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{INK}">'
            f"{escape(_tick(t))}</text>"
        )
    if x_label:
        out.append(
            f'<text x="{(ML + W - MR) / 2}" y="{H - 14}" text-anchor="middle" '
            f'fill="{INK}">{escape(x_label)}</text>'
        )
    out.append(
        f'<text transform="translate(16 {(MT + H - MB) / 2}) rotate(-90)" '
        f'text-anchor="middle" fill="{INK}">{escape(y_label)}</text>'
    )
    return out


def _spread(positions: list[float], gap: float = 14.0) -> list[float]:
    """Move label baselines apart (keeping their order) so no two are closer than gap."""
    order = sorted(range(len(positions)), key=lambda k: positions[k])
    out = list(positions)
    for a, b in zip(order, order[1:], strict=False):
        if out[b] - out[a] < gap:
            out[b] = out[a] + gap
    return out


class LabelPlacer:
    """Greedy placement of marker labels: each label takes the first of a few offsets
    (above, higher, below, ...) where its box overlaps no label placed before it."""

    OFFSETS = (-12.0, -26.0, 22.0, -40.0, 36.0, -54.0)

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []

    def dy(self, x: float, y: float, label: str) -> float:
        width = 7.2 * len(label) + 4
        for dy in self.OFFSETS:
            box = (x + 9, y + dy - 11, x + 9 + width, y + dy + 3)
            if y + dy - 11 >= MT - 16 and not any(_overlaps(box, other) for other in self.boxes):
                self.boxes.append(box)
                return dy
        self.boxes.append((x + 9, y - 23, x + 9 + width, y - 9))
        return self.OFFSETS[0]


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _marker(x: float, y: float, label: str, i: int = 0, dy: float | None = None) -> str:
    """The input point: a white-filled diamond with a cross, labelled, shape not colour."""
    s = 7
    if dy is None:
        dy = -12 - 14 * (i % 2)
    return (
        f'<g class="calc-point"><path d="M{x:.1f} {y - s:.1f}L{x + s:.1f} {y:.1f}L{x:.1f} '
        f'{y + s:.1f}L{x - s:.1f} {y:.1f}Z" fill="#fff" stroke="{INK}" stroke-width="2"/>'
        f'<path d="M{x - 3:.1f} {y:.1f}H{x + 3:.1f}M{x:.1f} {y - 3:.1f}V{y + 3:.1f}" '
        f'stroke="{INK}" stroke-width="1.5"/>'
        + (
            f'<text x="{x + 9:.1f}" y="{y + dy:.1f}" fill="{INK}" font-weight="600" '
            f'paint-order="stroke" stroke="#fff" stroke-width="3">{escape(label)}</text>'
            if label
            else ""
        )
        + "</g>"
    )


def _polyline(
    xs: Scale, ys: Scale, pts: list[tuple[float, float]], dash: str, width: float = 2.5
) -> str:
    good = [
        (x, y)
        for x, y in pts
        if x is not None
        and y is not None
        and math.isfinite(x)
        and math.isfinite(y)
        and (not ys.log or y > 0)
        and (not xs.log or x > 0)
    ]
    if not good:
        return ""
    d = " ".join(f"{xs(x):.1f},{ys(y):.1f}" for x, y in good)
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<polyline points="{d}" fill="none" stroke="{ACCENT}" stroke-width="{width}"{dash_attr}/>'
    )
