"""Chart labels never sit on top of each other (issue 15: 'chart labels collide')."""

import re

from calculators.charts import render_chart


def _texts(svg: str) -> list[tuple[float, float, str]]:
    return [
        (float(x), float(y), t)
        for x, y, t in re.findall(
            r'<text x="([\d.]+)" y="([\d.]+)"[^>]*>(?:<tspan[^>]*>[^<]*</tspan> )?([^<]+)</text>',
            svg,
        )
    ]


def test_marker_and_direct_labels_do_not_overlap():
    """Three input points at one spot and three lines ending at one height: every label
    gets its own line of text (at least 14 px apart where they share a column)."""
    chart = {
        "type": "line",
        "title": "t",
        "x_label": "x",
        "y_label": "y",
        "series": [{"label": f"series {k}", "x": [1, 2], "y": [1, 5]} for k in range(3)],
        "points": [{"label": f"point {k}", "x": 1.5, "y": 3} for k in range(3)],
    }
    texts = _texts(render_chart(chart, uid="c"))
    for group in ("series", "point"):
        ys = sorted(y for _, y, t in texts if t.strip().startswith(group))
        assert len(ys) == 3
        assert all(b - a >= 14 for a, b in zip(ys, ys[1:], strict=False)), (group, ys)


def test_a_long_title_shrinks_to_fit():
    title = "Collective time against message size (latency-bound left, bandwidth-bound right)"
    svg = render_chart(
        {"type": "line", "title": title, "x_label": "", "y_label": "", "series": [
            {"label": "s", "x": [1, 2], "y": [1, 2]}]},
        uid="c",
    )  # fmt: skip
    size = float(
        re.search(r'font-size="([\d.]+)" font-weight="600" fill="[^"]+">Collective', svg).group(1)
    )
    assert size * 0.6 * len(title) <= 640 - 8
