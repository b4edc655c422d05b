# SPDX-License-Identifier: MIT
"""Hand-written SVG charts (no plotting library): grouped horizontal bars and
lines.  Output depends only on the data, so equal results give equal files."""
import math
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]
FONT = 'font-family="sans-serif" font-size="12"'


def _num(x):
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _svg(width, height, body, title):
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n'
            f'<rect width="{width}" height="{height}" fill="white"/>\n'
            f'<text x="{width / 2:.0f}" y="20" text-anchor="middle" {FONT} font-weight="bold">'
            f'{escape(title)}</text>\n')
    return head + "".join(body) + "</svg>\n"


def _legend(series, x, y):
    out = []
    for i, name in enumerate(series):
        yy = y + 16 * i
        out.append(f'<rect x="{x}" y="{yy - 9}" width="10" height="10" fill="{COLORS[i % len(COLORS)]}"/>'
                   f'<text x="{x + 14}" y="{yy}" {FONT}>{escape(name)}</text>\n')
    return out


def _scale(lo, hi, log):
    """Maps a value to [0, 1] on a linear or log10 axis."""
    if log:
        lo, hi = math.log10(lo), math.log10(hi)
        return lambda v: (math.log10(max(v, 10 ** lo)) - lo) / ((hi - lo) or 1)
    return lambda v: (v - lo) / ((hi - lo) or 1)


def _ticks(lo, hi, log):
    if log:
        return [10 ** e for e in range(int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi))) + 1)]
    step = 10 ** math.floor(math.log10(hi or 1))
    if hi / step < 4:
        step /= 2
    return [step * i for i in range(int(math.ceil(hi / step)) + 1)]


def bars(title, labels, series, values, unit, log=False, empty_note="no data"):
    """Horizontal grouped bars.  values[s][i] is series s at label i, or None."""
    present = [v for row in values for v in row if v is not None and (v > 0 or not log)]
    n, k = len(labels), max(1, len(series))
    bar_h, gap, left, width = 12, 8, 230, 760
    plot_w = width - left - 30
    height = 60 + n * (k * bar_h + gap) + 40 + 16 * k
    body = []
    if not present:
        body.append(f'<text x="{width / 2:.0f}" y="50" text-anchor="middle" {FONT}>{escape(empty_note)}</text>\n')
        return _svg(width, 80, body, title)
    lo = min(present) / 2 if log else 0
    hi = max(present) * (2 if log else 1.05)
    ticks = _ticks(lo, hi, log)
    hi = max(hi, ticks[-1]) if not log else ticks[-1]
    lo = ticks[0] if log else 0
    sx = _scale(lo, hi, log)
    top, bottom = 40, 40 + n * (k * bar_h + gap)
    for t in ticks:
        x = left + sx(t) * plot_w
        body.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#ddd"/>'
                    f'<text x="{x:.1f}" y="{bottom + 14}" text-anchor="middle" {FONT}>{_num(t)}</text>\n')
    body.append(f'<text x="{left + plot_w / 2:.0f}" y="{bottom + 30}" text-anchor="middle" {FONT}>'
                f'{escape(unit)}{" (log scale)" if log else ""}</text>\n')
    for i, label in enumerate(labels):
        y0 = top + i * (k * bar_h + gap)
        body.append(f'<text x="{left - 6}" y="{y0 + k * bar_h / 2 + 4:.1f}" text-anchor="end" {FONT}>'
                    f'{escape(label)}</text>\n')
        for s in range(k):
            v = values[s][i]
            if v is None or (log and v <= 0):
                continue
            w = max(1.0, sx(v) * plot_w)
            body.append(f'<rect x="{left}" y="{y0 + s * bar_h}" width="{w:.1f}" height="{bar_h - 2}" '
                        f'fill="{COLORS[s % len(COLORS)]}"><title>{escape(label)}: {_num(v)}</title></rect>\n')
    body += _legend(series, left, bottom + 50)
    return _svg(width, height, body, title)


def lines(title, xs, series, values, xlabel, ylabel, empty_note="no data"):
    """Lines over numeric x positions xs (plotted evenly spaced, labelled by
    value).  values[s][j] is series s at xs[j], or None (a gap)."""
    present = [v for row in values for v in row if v is not None]
    width, height, left, right, top = 760, 420, 70, 200, 40
    plot_w, plot_h = width - left - right, height - top - 60
    body = []
    if not present:
        body.append(f'<text x="{width / 2:.0f}" y="50" text-anchor="middle" {FONT}>{escape(empty_note)}</text>\n')
        return _svg(width, 80, body, title)
    ticks = _ticks(0, max(present) * 1.05, False)
    sy = _scale(0, ticks[-1], False)
    step = plot_w / max(1, len(xs) - 1)
    for t in ticks:
        y = top + plot_h - sy(t) * plot_h
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
                    f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" {FONT}>{_num(t)}</text>\n')
    every = max(1, math.ceil(len(xs) / 16))   # at most 16 labels on the x axis
    for j, x in enumerate(xs):
        if j % every and j != len(xs) - 1:
            continue
        px = left + j * step
        body.append(f'<text x="{px:.1f}" y="{top + plot_h + 16}" text-anchor="middle" {FONT}>{escape(str(x))}</text>\n')
    body.append(f'<text x="{left + plot_w / 2:.0f}" y="{height - 20}" text-anchor="middle" {FONT}>{escape(xlabel)}</text>\n'
                f'<text x="15" y="{top + plot_h / 2:.0f}" text-anchor="middle" {FONT} '
                f'transform="rotate(-90 15 {top + plot_h / 2:.0f})">{escape(ylabel)}</text>\n')
    for s, row in enumerate(values):
        pts = [(left + j * step, top + plot_h - sy(v) * plot_h) for j, v in enumerate(row) if v is not None]
        color = COLORS[s % len(COLORS)]
        if len(pts) > 1:
            body.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="'
                        + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>\n')
        body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>\n' for x, y in pts]
    body += _legend(series, left + plot_w + 20, top + 10)
    return _svg(width, height, body, title)
