"""Small SVG line charts for the scale curves of `make bench` (Benchmarks/scale.py): one chart per measure,
a line per series, written next to the results so a reader sees how a cost grows with the work. Plain SVG
text, no plotting package."""
import html
import math

WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 72, 200, 36, 48
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def _ticks(high):
    """About five round tick values from 0 to at least `high`."""
    if high <= 0:
        return [0, 1]
    step = 10 ** math.floor(math.log10(high / 5))
    for factor in (1, 2, 5, 10):
        if high / (step * factor) <= 6:
            step *= factor
            break
    return [step * index for index in range(int(math.ceil(high / step)) + 1)]


def _label(value):
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def line_chart(path, title, x_label, y_label, xs, series):
    """Writes an SVG line chart to `path`.

    xs: the x values (work sizes), drawn evenly spaced and labelled as given (they grow by factors).
    series: {name: [y per x, or None where not measured]}.
    """
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    values = [y for ys in series.values() for y in ys if y is not None]
    ticks = _ticks(max(values) if values else 1)
    top = ticks[-1] or 1

    def point(index, y):
        x = LEFT + (plot_width * index / max(len(xs) - 1, 1))
        return x, TOP + plot_height * (1 - y / top)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">{html.escape(title)}</text>']
    for tick in ticks:
        _, y = point(0, tick)
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_width}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{_label(tick)}</text>')
    for index, x_value in enumerate(xs):
        x, _ = point(index, 0)
        parts.append(f'<text x="{x:.1f}" y="{TOP + plot_height + 18}" text-anchor="middle">'
                     f'{html.escape(str(x_value))}</text>')
    parts.append(f'<text x="{LEFT + plot_width / 2}" y="{HEIGHT - 8}" text-anchor="middle">'
                 f'{html.escape(x_label)}</text>')
    parts.append(f'<text transform="translate(16 {TOP + plot_height / 2}) rotate(-90)" text-anchor="middle">'
                 f'{html.escape(y_label)}</text>')
    parts.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_height}" stroke="black"/>')
    parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_width}" y1="{TOP + plot_height}" '
                 f'y2="{TOP + plot_height}" stroke="black"/>')
    for number, (name, ys) in enumerate(series.items()):
        colour = COLOURS[number % len(COLOURS)]
        points = [point(index, y) for index, y in enumerate(ys) if y is not None]
        if len(points) > 1:
            text = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            parts.append(f'<polyline points="{text}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in points:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>')
        legend_y = TOP + 16 * number + 8
        parts.append(f'<rect x="{WIDTH - RIGHT + 12}" y="{legend_y - 8}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 28}" y="{legend_y + 1}">{html.escape(name)}</text>')
    parts.append("</svg>\n")
    with open(path, "w") as handle:
        handle.write("\n".join(parts))
