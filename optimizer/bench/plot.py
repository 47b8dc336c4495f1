"""The scaling report as a hand-written SVG: search time against track and against trains.

Two panels share one logarithmic time axis, because search time grows exponentially with the
board: each seed is a dot (hollow when the search stopped before proving its answer) and the
median a line. Plain SVG keeps the project free of a plotting dependency.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 960, 470
PANEL_W, PANEL_H = 380, 300
TOP, LEFT, GAP = 70, 80, 90
INK, GRID, LINE, DOT = "#222", "#ddd", "#1f5fa8", "#c0392b"


def _y_range(values: list) -> tuple:
    positive = [v for v in values if v > 0] or [1.0]
    low = 10 ** math.floor(math.log10(max(min(positive), 0.01)))
    high = 10 ** math.ceil(math.log10(max(positive)))
    return low, max(high, low * 10)


def _fmt_ms(v: float) -> str:
    return f"{v / 1000:.3g} s" if v >= 1000 else f"{v:.3g} ms"


def _panel(x0: float, points: list, title: str, xlabel: str, xtick, low: float, high: float) -> list:
    """One panel: frame, grid, ticks, labels, the seeds' dots and the median line."""
    out = []
    xs = [p["x"] for p in points]
    x_min, x_max = min(xs), max(xs)
    span = (x_max - x_min) or 1

    def px(x):
        return x0 + 20 + (x - x_min) / span * (PANEL_W - 40)

    def py(v):
        v = min(max(v, low), high)
        return TOP + PANEL_H - (math.log10(v) - math.log10(low)) / (math.log10(high) - math.log10(low)) * PANEL_H

    out.append(f'<rect x="{x0}" y="{TOP}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="{INK}"/>')
    decade = low
    while decade <= high * 1.0001:
        y = py(decade)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + PANEL_W}" y2="{y:.1f}" stroke="{GRID}"/>')
        out.append(f'<text x="{x0 - 8}" y="{y + 4:.1f}" text-anchor="end">{_fmt_ms(decade)}</text>')
        decade *= 10
    for x in xs:
        out.append(
            f'<line x1="{px(x):.1f}" y1="{TOP + PANEL_H}" x2="{px(x):.1f}" y2="{TOP + PANEL_H + 5}" stroke="{INK}"/>'
        )
        out.append(f'<text x="{px(x):.1f}" y="{TOP + PANEL_H + 20}" text-anchor="middle">{escape(xtick(x))}</text>')
    out.append(
        f'<text x="{x0 + PANEL_W / 2}" y="{TOP - 14}" text-anchor="middle" font-weight="bold">{escape(title)}</text>'
    )
    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{TOP + PANEL_H + 42}" text-anchor="middle">{escape(xlabel)}</text>')
    for p in points:
        for ms, proven in zip(p["ms"], p["optimal"]):
            fill = DOT if proven else "white"
            out.append(
                f'<circle cx="{px(p["x"]):.1f}" cy="{py(ms):.1f}" r="3.5" fill="{fill}" stroke="{DOT}" '
                f'fill-opacity="0.6"/>'
            )
    path = " ".join(f"{px(p['x']):.1f},{py(p['median_ms']):.1f}" for p in points)
    out.append(f'<polyline points="{path}" fill="none" stroke="{LINE}" stroke-width="2.5"/>')
    for k, p in enumerate(points):
        x, y = px(p["x"]), py(p["median_ms"])
        out.append(f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{LINE}"/>')
        anchor, dx = ("end", -8) if k == len(points) - 1 else ("start", 8)  # the last label stays inside
        out.append(
            f'<text x="{x + dx:.1f}" y="{y - 8:.1f}" fill="{LINE}" font-size="11" text-anchor="{anchor}">'
            f"{_fmt_ms(p['median_ms'])}</text>"
        )
    return out


def scaling_svg(scale: dict, caption: str = "") -> str:
    """The SVG text of the scaling report (``scale`` from :func:`optimizer.bench.runner.scaling`)."""
    values = [ms for series in (scale["track"], scale["trains"]) for p in series for ms in p["ms"] + [p["median_ms"]]]
    low, high = _y_range(values)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12" fill="{INK}">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{WIDTH / 2}" y="26" text-anchor="middle" font-size="16" font-weight="bold">'
        f"Search time on dense synthetic {escape(scale['game'])} boards</text>",
        f'<text transform="translate(18,{TOP + PANEL_H / 2}) rotate(-90)" text-anchor="middle">'
        f"search time (log scale)</text>",
    ]
    if scale["track"]:
        out += _panel(
            LEFT,
            scale["track"],
            f"against track (trains {scale['track'][0]['trains']})",
            "hexes with track (% of the layable map)",
            lambda x: f"{x:.0%}",
            low,
            high,
        )
    if scale["trains"]:
        out += _panel(
            LEFT + PANEL_W + GAP,
            scale["trains"],
            f"against trains ({scale['trains'][0]['track']:.0%} of the map with track)",
            f"number of trains (the first of {scale['trains'][-1]['trains']})",
            lambda x: f"{x:g}",
            low,
            high,
        )
    legend_y = HEIGHT - 16
    out.append(
        f'<rect x="{LEFT}" y="{legend_y - 9}" width="8" height="8" fill="{LINE}"/>'
        f'<text x="{LEFT + 14}" y="{legend_y}">median</text>'
        f'<circle cx="{LEFT + 90}" cy="{legend_y - 5}" r="3.5" fill="{DOT}" fill-opacity="0.6" stroke="{DOT}"/>'
        f'<text x="{LEFT + 98}" y="{legend_y}">one board (seed); hollow: stopped unproven</text>'
    )
    if caption:
        out.append(f'<text x="{WIDTH - 20}" y="{legend_y}" text-anchor="end" font-size="11">{escape(caption)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_scaling_svg(scale: dict, path, caption: str = "") -> None:
    with open(path, "w") as handle:
        handle.write(scaling_svg(scale, caption))
