"""Charts as SVG and PNG images, drawn with matplotlib on the Agg canvas: the
recommendation bars in both formats, the price history as PNG (its SVG is written by
history_svg.py; line_chart's own SVG export is how the tests read the PNG's figure).

Each call builds its own `Figure` and attaches an explicit canvas (FigureCanvasAgg for
PNG, FigureCanvasSVG for SVG): pyplot is never imported, so no global figure state is
shared between the server's worker threads.
"""

from __future__ import annotations

import io
import math
import re
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal
from xml.sax.saxutils import escape

from services.api.charts.data import METRIC_TITLES, Bar, Metric, Series

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

ImageFormat = Literal["svg", "png"]
# "wide" for documents and desktop screens; "narrow" for a phone or a chat preview (about
# 400 px across): one label per line, so its type reads at the size it is shown.
ChartLayout = Literal["wide", "narrow"]
# Figure widths (inches, 96 px each in the SVG and on a screen; PNG_DPI in the PNG).
WIDE_INCHES, NARROW_INCHES = 10.0, 4.4
# Characters per line of the narrow drawing's title (12 pt bold) and footnote (7.5 pt).
NARROW_TITLE_CHARS, NARROW_FOOTNOTE_CHARS = 44, 78
MEDIA_TYPES: dict[ImageFormat, str] = {"svg": "image/svg+xml", "png": "image/png"}

# The pages' palette, so images pasted into documents match the site.
CONDITION_COLOURS = {"new": "#4f46e5", "used": "#0d9488", "refurbished": "#b45309"}
OTHER_COLOUR = "#64748b"
# One colour per price-history series, as the pages' light theme draws them (style.css
# --c0 to --c7; a test keeps the two in step). Okabe and Ito's palette, which stays
# distinguishable with each common colour-vision deficiency, with its yellow (1.3:1 on
# white) swapped for Paul Tol's wine. Orange and sky blue are under 3:1 on white, so each
# series also has a dash pattern of its own, in the legend as on the line.
SERIES_COLOURS = (
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#882255",
    "#000000",
)
# Solid, dashed, dotted, dash-dot; on and off lengths in line widths (style.css .d0-.d3).
SERIES_DASHES: tuple[tuple[float, ...], ...] = ((), (4.0, 2.0), (1.0, 1.5), (4.0, 1.5, 1.0, 1.5))
INK, MUTED, GRID = "#1e293b", "#64748b", "#e2e8f0"
PNG_DPI = 144
_SVG_OPEN = re.compile(rb"<svg\b[^>]*>")


def colour(condition: str) -> str:
    return CONDITION_COLOURS.get(condition, OTHER_COLOUR)


def series_style(index: int) -> tuple[int, int]:
    """(colour, dash pattern) of the index-th series: every colour once, then each colour
    again with another pattern, so no two of the first 32 series look alike."""
    colours, dashes = len(SERIES_COLOURS), len(SERIES_DASHES)
    return index % colours, (index + index // colours) % dashes


def _figure(width_in: float, height_in: float) -> Figure:
    # Imported here: matplotlib costs ~0.4 s to import, paid only by processes that draw.
    from matplotlib.figure import Figure

    return Figure(figsize=(width_in, height_in), layout="constrained")


def _export(figure: Figure, fmt: ImageFormat, title: str, desc: str) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    buffer = io.BytesIO()
    if fmt == "png":
        # Attaching the canvas picks the backend for this figure alone (no matplotlib.use).
        FigureCanvasAgg(figure)
        figure.savefig(
            buffer, format="png", dpi=PNG_DPI, metadata={"Title": title, "Description": desc}
        )
        return buffer.getvalue()
    FigureCanvasSVG(figure)
    # Date=None keeps the SVG byte-identical for identical data (cacheable, diffable).
    figure.savefig(buffer, format="svg", metadata={"Title": title, "Date": None})
    return _accessible_svg(buffer.getvalue(), title, desc)


def _accessible_svg(svg: bytes, title: str, desc: str) -> bytes:
    """Add role, aria-labelledby and <title>/<desc> so screen readers get the data as text."""
    match = _SVG_OPEN.search(svg)
    if match is None:  # pragma: no cover - matplotlib always writes an <svg> root
        return svg
    opening = match.group(0)[:-1] + b' role="img" aria-labelledby="chart-title chart-desc">'
    text = (
        f'<title id="chart-title">{escape(title)}</title>'
        f'<desc id="chart-desc">{escape(desc)}</desc>'
    ).encode()
    return svg[: match.start()] + opening + text + svg[match.end() :]


def _style_axes(axes: Axes) -> None:
    for side in ("top", "right", "left"):
        axes.spines[side].set_visible(False)
    axes.spines["bottom"].set_color(GRID)
    axes.tick_params(colors=MUTED, labelsize=9, length=0)
    axes.grid(axis="x", color=GRID, linewidth=0.8)
    axes.set_axisbelow(True)


def bar_chart(
    items: Sequence[Bar],
    metric: Metric,
    subtitle: str,
    footnote: str,
    fmt: ImageFormat,
    desc: str,
    layout: ChartLayout = "wide",
) -> bytes:
    """Horizontal bars in rank order (best on top), the model interval as error bars.

    Each bar and its label carry an SVG id `bar-<rank>-<gpu id>` / `label-<rank>-<gpu id>`,
    so tools (and the tests) can read the ranking back from the image. Wide: name | bar |
    price, a row per GPU; narrow: the name, the bar and the price each on a line.
    """
    title = f"{METRIC_TITLES[metric]}: {subtitle}"
    narrow = layout == "narrow"
    if narrow:
        title = "\n".join(textwrap.wrap(title, NARROW_TITLE_CHARS))
        footnote = "\n".join(textwrap.wrap(footnote, NARROW_FOOTNOTE_CHARS))
        height = 1.6 + 0.4 * title.count("\n") + 0.7 * max(len(items), 1)
        figure = _figure(NARROW_INCHES, height)
    else:
        figure = _figure(WIDE_INCHES, 1.7 + 0.42 * max(len(items), 1))
    axes = figure.add_subplot()
    _style_axes(axes)
    figure.suptitle(title, x=0.01, ha="left", fontsize=12, color=INK, fontweight="bold")
    if not items:
        axes.set_axis_off()
        axes.text(0.5, 0.5, "No GPU matches these filters", ha="center", va="center", color=MUTED)
        return _export(
            figure, fmt, title.replace("\n", " "), desc or "No GPU matches these filters."
        )
    top_value = max(b.value for b in items)
    # One wild interval (a model guess for an unusual card) must not squash every bar:
    # whiskers past 1.8x the best value are clipped at the edge; the text alternative
    # still has the numbers.
    x_max = min(max(b.high for b in items), top_value * 1.8) * 1.12
    if narrow:
        _narrow_bars(axes, items, x_max)
    else:
        _wide_bars(axes, items, x_max)
    axes.set_xlim(0, x_max)
    axes.set_xlabel(
        {
            "perf_per_dollar": "perf per $1,000 of the build",
            "performance": "x reference GPU",
            "cost_per_unit": f"{items[0].unit} (shorter is cheaper)",
        }[metric],
        color=MUTED,
        fontsize=9,
    )
    # supxlabel (not a free figure.text) so the constrained layout leaves room for it.
    figure.supxlabel(footnote, x=0.01, ha="left", fontsize=7.5, color=MUTED)
    return _export(figure, fmt, title.replace("\n", " "), desc)


def _bar(axes: Axes, y: float, b: Bar, height: float, x_max: float) -> None:
    """One bar with its id, its interval whisker and its value."""
    (rect,) = axes.barh(
        y,
        b.value,
        height=height,
        color=colour(b.condition),
        alpha=0.55 if b.kind == "msrp" else 0.9,
        hatch="//" if b.kind == "msrp" else None,
        edgecolor="white",
        linewidth=0,
    )
    rect.set_gid(f"bar-{b.rank}-{b.gpu_id}")
    axes.errorbar(
        b.value,
        y,
        xerr=[[b.value - b.low], [b.high - b.value]],
        fmt="none",
        ecolor=INK,
        elinewidth=1,
        capsize=3,
    )
    axes.text(
        min(b.high + x_max * 0.01, x_max * 0.93),
        y,
        f"{b.value:.3g}",
        va="center",
        fontsize=8.5,
        color=INK,
        # Readable over a clipped whisker.
        bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0},
    )


def _wide_bars(axes: Axes, items: Sequence[Bar], x_max: float) -> None:
    positions = list(range(len(items)))[::-1]  # rank 1 at the top
    for y, b in zip(positions, items, strict=True):
        _bar(axes, y, b, 0.62, x_max)
        # The price column sits right of the plot (x in axes units), aligned across bars.
        _price_label(axes, b, 1.02, y, "center")
    axes.set_yticks(positions, [f"{b.short}  {b.memory_gb:g} GB" for b in items])
    axes.tick_params(axis="y", labelsize=9.5, labelcolor=INK)
    axes.set_ylim(-0.6, len(items) - 0.4)


def _narrow_bars(axes: Axes, items: Sequence[Bar], x_max: float) -> None:
    """A row per GPU of three lines: its name and memory, the bar, its price."""
    axes.set_yticks([])
    row = 1.0
    for i, b in enumerate(items):
        y = -i * row  # rank 1 at the top
        name = axes.text(
            0.0,
            y + 0.24,
            f"{b.rank}. {b.short}  {b.memory_gb:g} GB",
            transform=axes.get_yaxis_transform(),
            va="bottom",
            fontsize=9.5,
            color=INK,
        )
        name.set_gid(f"name-{b.rank}-{b.gpu_id}")
        _bar(axes, y, b, 0.34, x_max)
        _price_label(axes, b, 0.0, y - 0.22, "top")
    axes.set_ylim(-(len(items) - 1) * row - 0.75, 0.75)


def _price_label(axes: Axes, b: Bar, x: float, y: float, va: str) -> None:
    """The price a bar used (x in axes units, y in rows), with its id for tools."""
    label = axes.text(
        x, y, b.label, transform=axes.get_yaxis_transform(), va=va, fontsize=8.5, color=MUTED
    )
    label.set_gid(f"label-{b.rank}-{b.gpu_id}")


def line_chart(
    series: Sequence[Series],
    title: str,
    fmt: ImageFormat,
    desc: str,
    layout: ChartLayout = "wide",
) -> bytes:
    """Median price per period and source, shaded between the period's min and max."""
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num
    from matplotlib.ticker import FuncFormatter

    # The legend goes below the plot, two columns from three series on: inside it, eight
    # series covered the lines. The figure grows by its rows rather than squeeze the plot.
    narrow = layout == "narrow"
    columns = 1 if len(series) <= 2 or narrow else 2
    legend_rows = math.ceil(len(series) / columns)
    if narrow:
        figure = _figure(NARROW_INCHES, 3.4 + 0.2 * legend_rows)
    else:
        figure = _figure(9.0, 4.2 + 0.2 * legend_rows)
    axes = figure.add_subplot()
    _style_axes(axes)
    axes.grid(axis="y", color=GRID, linewidth=0.8)
    shown = "\n".join(textwrap.wrap(title, NARROW_TITLE_CHARS)) if narrow else title
    figure.suptitle(shown, x=0.01, ha="left", fontsize=12, color=INK, fontweight="bold")
    if not series:
        axes.set_axis_off()
        axes.text(0.5, 0.5, "No price observations", ha="center", va="center", color=MUTED)
        return _export(figure, fmt, title, desc)
    for index, s in enumerate(series):
        # date2num handles aware datetimes (numpy datetime64 warns on them); it is untyped.
        xs = date2num([b.start for b in s.buckets])  # type: ignore[no-untyped-call]
        colour_index, dash_index = series_style(index)
        colour_ = SERIES_COLOURS[colour_index]
        dashes = SERIES_DASHES[dash_index]
        if len(xs) == 1:
            axes.plot(xs, [s.buckets[0].median], marker="D", linestyle="none", color=colour_)
            line = axes.lines[-1]
        else:
            (line,) = axes.plot(
                xs,
                [b.median for b in s.buckets],
                color=colour_,
                # matplotlib scales dash lengths by the line width, as the pattern says.
                linestyle=(0, dashes) if dashes else "-",
                linewidth=1.6,
            )
            axes.fill_between(
                xs,
                [b.low for b in s.buckets],
                [b.high for b in s.buckets],
                color=colour_,
                alpha=0.15,
                linewidth=0,
                step=None,
            )
        line.set_label(f"{s.label} ({s.kind}, n={s.n})")
        line.set_gid(f"series-{index}-{s.condition}")
    axes.xaxis_date()
    if narrow:
        # Five short date labels fit 4.4 inches ("2024", "Jul", ...): ISO dates overlapped.
        locator = AutoDateLocator(minticks=3, maxticks=5)  # type: ignore[no-untyped-call]
        axes.xaxis.set_major_locator(locator)
        axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"${v:,.0f}"))
    axes.set_ylim(bottom=0)
    figure.legend(
        loc="outside lower left", ncols=columns, fontsize=8, frameon=False, labelcolor=INK
    )
    return _export(figure, fmt, title, desc)
