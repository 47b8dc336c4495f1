"""The review as a picture: revenue left on the table per operating round (columns) and company (rows).

A grid reads at a glance: white where the company ran the optimum, darker red the more it left, the
amount written in the cell, a blank where it did not run; totals per company on the right and per
round below. Each cell's tooltip gives what was run and the optimum. Plain SVG, no dependencies.
"""

from __future__ import annotations

from html import escape

CELL_W, CELL_H, LABEL_W, TOTAL_W, TOP, FONT = 46, 26, 90, 64, 64, 12


def shade(left: int, most: int) -> str:
    """White at 0, deepening to red at the largest amount left."""
    if left <= 0 or most <= 0:
        return "#ffffff"
    t = 0.15 + 0.85 * min(left / most, 1.0)
    g = round(235 - 190 * t)
    return f"rgb({round(250 - 40 * t)},{g},{g})"


def review_svg(rows: list, title: str) -> str:
    """The SVG text of the grid of ``rows`` (those of :func:`optimizer.review.review`)."""
    runs = [r for r in rows if "error" not in r and r.get("left") is not None]
    rounds = list(dict.fromkeys(r["round"] for r in runs))
    companies = list(dict.fromkeys(r["entity"] for r in runs))
    cells: dict = {}
    for r in runs:
        cell = cells.setdefault((r["entity"], r["round"]), {"left": 0, "ran": 0, "optimum": 0})
        for k in ("left", "ran", "optimum"):
            cell[k] += r[k]
    most = max((c["left"] for c in cells.values()), default=0)
    total_left = sum(c["left"] for c in cells.values())
    total_optimum = sum(c["optimum"] for c in cells.values())
    share = f" ({100 * total_left / total_optimum:.1f}%)" if total_optimum else ""
    subtitle = (
        f"Revenue left on the table per operating round: {total_left} of {total_optimum}{share} "
        "(the optimum minus what was run; blank: no run)"
    )
    width = max(LABEL_W + CELL_W * len(rounds) + TOTAL_W + 10, 16 + len(subtitle) * 6.6)
    height = TOP + CELL_H * (len(companies) + 1) + 16
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="{FONT}">',
        f'<rect width="{width}" height="{height}" fill="#fafafa"/>',
        f'<text x="8" y="20" font-size="15" font-weight="bold">{escape(title)}</text>',
        f'<text x="8" y="38" fill="#444">{escape(subtitle)}</text>',
    ]
    for j, rnd in enumerate(rounds):
        x = LABEL_W + CELL_W * j + CELL_W / 2
        out.append(f'<text x="{x}" y="{TOP - 6}" text-anchor="middle" font-size="10">{escape(rnd)}</text>')
    out.append(
        f'<text x="{LABEL_W + CELL_W * len(rounds) + TOTAL_W / 2}" y="{TOP - 6}" text-anchor="middle" '
        f'font-weight="bold">total</text>'
    )
    for i, company in enumerate(companies):
        y = TOP + CELL_H * i
        out.append(f'<text x="{LABEL_W - 8}" y="{y + CELL_H * 0.65}" text-anchor="end">{escape(str(company))}</text>')
        for j, rnd in enumerate(rounds):
            cell = cells.get((company, rnd))
            if cell is None:
                continue
            x = LABEL_W + CELL_W * j
            tip = f"{company}, {rnd}: ran {cell['ran']}, optimum {cell['optimum']}, left {cell['left']}"
            out.append(
                f'<g><title>{escape(tip)}</title><rect x="{x + 1}" y="{y + 1}" width="{CELL_W - 2}" '
                f'height="{CELL_H - 2}" fill="{shade(cell["left"], most)}" stroke="#ccc"/>'
                f'<text x="{x + CELL_W / 2}" y="{y + CELL_H * 0.65}" text-anchor="middle" '
                f'fill="{"#fff" if cell["left"] > most * 0.6 else "#222"}">{cell["left"] if cell["left"] else "·"}</text></g>'
            )
        left = sum(c["left"] for (co, _), c in cells.items() if co == company)
        tx = LABEL_W + CELL_W * len(rounds) + TOTAL_W / 2
        out.append(f'<text x="{tx}" y="{y + CELL_H * 0.65}" text-anchor="middle" font-weight="bold">{left}</text>')
    y = TOP + CELL_H * len(companies)
    out.append(f'<text x="{LABEL_W - 8}" y="{y + CELL_H * 0.65}" text-anchor="end" font-weight="bold">total</text>')
    for j, rnd in enumerate(rounds):
        left = sum(c["left"] for (_, r), c in cells.items() if r == rnd)
        x = LABEL_W + CELL_W * j + CELL_W / 2
        out.append(f'<text x="{x}" y="{y + CELL_H * 0.65}" text-anchor="middle" font-weight="bold">{left}</text>')
    tx = LABEL_W + CELL_W * len(rounds) + TOTAL_W / 2
    out.append(f'<text x="{tx}" y="{y + CELL_H * 0.65}" text-anchor="middle" font-weight="bold">{total_left}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
