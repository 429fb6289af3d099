"""The handout's charts: small Vega-Lite specs drawn by vl-convert as SVG, offline, embedded as data: URIs (a
chart of thousands of cells, the trained model's every head, as a PNG instead: `raster`).

Why not the dashboard's own chart builders (dashboard/charts): classroom sits below the dashboard and may not
import it, and those specs are made for a live page (their sizes are Vega signals the page sets, their look
follows the session's display settings). A handout needs a fixed picture, so it draws its own plain spec
here, from core's numbers, with the dashboard's colours: the scheme names below are
animations/style.py's (WEIGHT_SCHEME, MASKED), which classroom may not import either; a test holds them equal.
"""

import base64
import struct
import zlib

import numpy as np
import vl_convert as vlc

WEIGHT_SCHEME = "viridis"  # animations/style.py's WEIGHT_SCHEME: weights in 0..1
MASKED = "#7F7F7F"  # animations/style.py's MASKED: a blocked cell; a level drawn dashed (chance, a threshold)
QUERY, KEY, OUTPUT = "#0072B2", "#E69F00", "#CC79A7"  # its QUERY (a loss curve), KEY (the step shown), OUTPUT
FONT = "DejaVu Sans"
NUMBERS_UP_TO = 12  # a cell's number is printed up to this many tokens (the dashboard's heatmaps' rule)
PADDING = 16  # room for a reader's font, a little wider than the one vl-convert measured the texts in
THUMBNAIL_PX = 56  # the side a head's map aims at in the grid of every head (cells of whole pixels: a little less)
GAP_PX = 6  # between two maps of that grid


def weights_spec(labels: list[str], weights: np.ndarray, keep: np.ndarray, title: str, across: int = 640,
                 what: str = "weight") -> dict:
    """One head's T×T weights (or other numbers in 0..1, named `what`) as a heatmap: keys across, queries down,
    blocked cells grey; `across`: the pixels its T cells share (two maps side by side share a page's width)."""
    T = len(labels)
    cells = [{"query": labels[i], "key": labels[j], "weight": float(weights[i, j]), "blocked": not bool(keep[i, j])}
             for i in range(T) for j in range(T)]
    size = max(12, min(64, across // max(T, 1)))
    axis = {"labelFont": FONT, "titleFont": FONT, "labelFontSize": 13 if T <= 16 else 9, "labelLimit": 140}
    rect = {"mark": {"type": "rect"}, "encoding": {"color": {
        "condition": {"test": "datum.blocked", "value": MASKED},
        "field": "weight", "type": "quantitative", "title": what,
        "scale": {"scheme": WEIGHT_SCHEME, "domain": [0, 1]}}}}
    layers = [rect]
    if T <= NUMBERS_UP_TO:
        layers.append({"mark": {"type": "text", "font": FONT, "fontSize": 12 if T <= 8 else 10},
                       "transform": [{"filter": "!datum.blocked"}],  # a blocked cell's 0 is said by its grey
                       "encoding": {"text": {"field": "weight", "type": "quantitative", "format": ".2f"},
                                    "color": {"condition": {"test": "datum.weight > 0.5", "value": "black"},
                                              "value": "white"}}})
    return {"title": {"text": title, "font": FONT, "fontSize": 15}, "data": {"values": cells},
            "width": size * T, "height": size * T, "background": "white", "padding": PADDING,
            "encoding": {"x": {"field": "key", "type": "ordinal", "sort": labels, "title": "key",
                               "axis": {**axis, "labelAngle": -45 if T > 4 else 0}},
                         "y": {"field": "query", "type": "ordinal", "sort": labels, "title": "query", "axis": axis}},
            "layer": layers}


def side_by_side(*specs: dict) -> dict:
    """Charts in a row with one colour scale and legend (the norm view: weights beside shares, both 0..1)."""
    inner = [{k: v for k, v in spec.items() if k not in ("background", "padding")} for spec in specs]
    return {"hconcat": inner, "background": "white", "padding": PADDING, "spacing": 40,
            "resolve": {"scale": {"color": "shared"}}}


def grid_spec(weights: np.ndarray, title: str) -> dict:
    """Every head's weights (L, H, T, T) as a grid of small maps, a row of heads per layer, on one 0..1 colour
    scale, labelled "layer 1", "head 1"… Each cell is placed in whole pixels (the scales map a pixel to a pixel),
    so that the picture's cells have sharp edges and its PNG compresses well (`raster`)."""
    L, H, T, _ = weights.shape
    unit = max(1, THUMBNAIL_PX // T)  # pixels per cell
    step = unit * T + GAP_PX  # one map and its gap
    width, height = H * step - GAP_PX, L * step - GAP_PX
    layer, head, row, col = np.indices(weights.shape).reshape(4, -1)
    cells = [{"x": int(x), "y": int(y), "weight": round(float(w), 4)} for x, y, w in
             zip(head * step + col * unit, layer * step + row * unit, weights.reshape(-1), strict=True)]
    return {"title": {"text": title, "font": FONT, "fontSize": 15}, "data": {"values": cells},
            "width": width, "height": height, "background": "white", "padding": PADDING,
            "config": {"view": {"stroke": None}}, "transform": [
                {"calculate": f"datum.x + {unit}", "as": "x2"}, {"calculate": f"datum.y + {unit}", "as": "y2"}],
            "mark": {"type": "rect", "aria": False},  # no words per cell: 72 maps of 13 pieces are 12,168 cells
            "encoding": {"x": _placed("x", width, "head", "top", H, step, unit * T), "x2": {"field": "x2"},
                         "y": _placed("y", height, "layer", "left", L, step, unit * T), "y2": {"field": "y2"},
                         "color": {"field": "weight", "type": "quantitative", "title": "weight",
                                   "scale": {"scheme": WEIGHT_SCHEME, "domain": [0, 1]},
                                   "legend": {"orient": "top", "direction": "horizontal", "labelFont": FONT,
                                              "titleFont": FONT}}}}


def _placed(field: str, size: int, what: str, orient: str, count: int, step: int, side: int) -> dict:
    """A pixel position (a scale from pixels to the same pixels), named at each map's centre ("head 1"…)."""
    axis = {"values": [i * step + side / 2 for i in range(count)], "orient": orient, "title": None,
            "labelExpr": f"'{what} ' + (floor(datum.value / {step}) + 1)", "ticks": False, "domain": False,
            "grid": False, "labelFont": FONT, "labelFontSize": 12, "labelAngle": 0, "labelPadding": 4}
    return {"field": field, "type": "quantitative", "axis": axis,
            "scale": {"domain": [0, size], "range": [0, size], "nice": False, "zero": False}}


def lines_spec(x: list, series: dict[str, list], x_title: str, y_title: str, title: str) -> dict:
    """Lines of y against x, one per series (its name in the legend); x on a log scale of base 2."""
    rows = [{"x": xv, "y": float(yv), "series": name}
            for name, ys in series.items() for xv, yv in zip(x, ys, strict=True)]
    axis = {"labelFont": FONT, "titleFont": FONT, "labelFontSize": 13}
    return {"title": {"text": title, "font": FONT, "fontSize": 15}, "data": {"values": rows},
            "width": 420, "height": 240, "background": "white", "padding": PADDING,
            "mark": {"type": "line", "point": True},
            "encoding": {"x": {"field": "x", "type": "quantitative", "title": x_title, "axis": axis,
                               "scale": {"type": "log", "base": 2}},
                         "y": {"field": "y", "type": "quantitative", "title": y_title, "axis": axis},
                         "color": {"field": "series", "type": "nominal", "title": None,
                                   "legend": {"labelFont": FONT, "labelFontSize": 13}}}}


def loss_spec(losses, total: int, at: int, top: float, chance: float, formed: int | None, title: str) -> dict:
    """A run's loss at steps 1..`at` (`losses` holds steps 1..S; nothing after `at` is drawn), on the whole run's
    scales (x 0..`total`, y 0..`top`), chance dashed, the step shown an orange rule, and `formed`, the step the
    first induction head formed, once `at` has reached it: the projector's chart (dashboard/charts/training.py)."""
    rows = [{"step": i + 1, "loss": float(v)} for i, v in enumerate(losses[:at])]
    line = {"data": {"values": rows}, "mark": {"type": "line", "color": QUERY, "strokeWidth": 2},
            "encoding": {"x": {"field": "step", "type": "quantitative"},
                         "y": {"field": "loss", "type": "quantitative"}}}
    layers = [line, *_level(chance, f"chance: ln 32 = {chance:.3f}"), _rule(at, KEY, 3)]
    if formed is not None and formed <= at:
        layers += [_rule(formed, OUTPUT, 2), _said(formed, top * 0.72, f"step {formed}: first induction head", total)]
    return _curves(layers, total, [0, top], "training step", "loss (nats)", title)


def scores_spec(snapshots, scores: np.ndarray, at: int, total: int, threshold: float, y_title: str,
                title: str) -> dict:
    """Each head's score (K, L, H) at the snapshot steps up to `at`, a line per head ("L1 H2"), the threshold that
    names a head dashed, the step shown an orange rule (dashboard/charts/training.py's scores chart)."""
    K, L, H = scores.shape
    rows = [{"step": int(snapshots[k]), "head": f"L{la + 1} H{h + 1}", "score": float(scores[k, la, h])}
            for k in range(K) if snapshots[k] <= at for la in range(L) for h in range(H)]
    # a point at each snapshot, as the projector's; no words per point (an image's SVG is read by its alt text):
    # 47 snapshots of 8 heads were 185 kB of labels
    line = {"data": {"values": rows}, "mark": {"type": "line", "point": {"size": 18, "aria": False}},
            "encoding": {"x": {"field": "step", "type": "quantitative"},
                         "y": {"field": "score", "type": "quantitative"},
                         "color": {"field": "head", "type": "nominal", "title": "layer, head",
                                   "legend": {"orient": "bottom", "columns": 4, "labelFont": FONT,
                                              "titleFont": FONT, "labelFontSize": 12}}}}
    return _curves([line, *_level(threshold), _rule(at, KEY, 3)], total, [0, 1], "training step", y_title, title)


def _curves(layers: list, total: int, y_domain: list, x_title: str, y_title: str, title: str) -> dict:
    axis = {"labelFont": FONT, "titleFont": FONT, "labelFontSize": 12, "titleFontSize": 13}
    return {"title": {"text": title, "font": FONT, "fontSize": 15}, "width": 380, "height": 220,
            "background": "white", "padding": PADDING, "layer": layers,
            "encoding": {"x": {"type": "quantitative", "title": x_title, "axis": axis,
                               "scale": {"domain": [0, total], "nice": False}},
                         "y": {"type": "quantitative", "title": y_title, "axis": axis,
                               "scale": {"domain": y_domain, "nice": False}}}}


def _rule(step: int, colour: str, width: int) -> dict:
    """A vertical rule at `step` (its own one-row table: drawn once, even where no curve has a point yet)."""
    return {"data": {"values": [{}]}, "mark": {"type": "rule", "color": colour, "strokeWidth": width},
            "encoding": {"x": {"datum": step}}}


def _level(y: float, label: str = "") -> list:
    """A dashed grey level at `y`, labelled above it at the right."""
    rule = {"data": {"values": [{}]}, "mark": {"type": "rule", "color": MASKED, "strokeDash": [6, 4]},
            "encoding": {"y": {"datum": y}}}
    if not label:
        return [rule]
    text = {"data": {"values": [{}]}, "encoding": {"y": {"datum": y}},
            "mark": {"type": "text", "text": label, "align": "right", "baseline": "bottom", "dy": -3, "x": "width",
                     "font": FONT, "fontSize": 12}}
    return [rule, text]


def _said(step: int, y: float, label: str, total: int) -> dict:
    """`label` beside the rule at `step`, on the side with more room."""
    left = step > total / 2
    return {"data": {"values": [{}]}, "encoding": {"x": {"datum": step}, "y": {"datum": y}},
            "mark": {"type": "text", "text": label, "align": "right" if left else "left", "dx": -4 if left else 4,
                     "font": FONT, "fontSize": 12}}


def image(spec: dict, alt: str) -> str:
    """The chart as an <img> of an SVG data: URI: a tenth of a PNG's bytes, sharp at any zoom and in print,
    and, as an image, unable to run or load anything. `alt` must be HTML-escaped already."""
    svg = vlc.vegalite_to_svg(spec)
    return f'<img class="chart" src="{svg_uri(svg)}" alt="{alt}">'


def svg_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def raster(spec: dict, alt: str) -> str:
    """The chart as an <img> of a PNG data: URI, drawn at twice its size (sharp on a fine screen and in print):
    for a chart of thousands of cells, whose SVG would hold a path per cell (72 maps of 9 word pieces: 300 kB of
    SVG, 31 kB of PNG). `alt` must be HTML-escaped already."""
    png = smaller_png(vlc.vegalite_to_png(spec, scale=2))
    width = struct.unpack(">I", png[16:20])[0] // 2  # IHDR's width, in CSS pixels
    return (f'<img class="chart" width="{width}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}" '
            f'alt="{alt}">')


def smaller_png(png: bytes) -> bytes:
    """vl-convert's PNG re-encoded without loss in about a tenth of its bytes: vl-convert filters every row by
    "Sub" and deflates it fast; a chart of flat cells, each many rows tall, compresses far better row against
    row ("Up"), without an alpha channel that is opaque everywhere, at deflate's best level. A PNG of another
    form (a row filtered otherwise, another colour type) is returned as it came."""
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", png[16:29])
    chunks = _chunks(png)
    raw = np.frombuffer(zlib.decompress(b"".join(data for kind, data in chunks if kind == b"IDAT")), np.uint8)
    if (depth, colour, interlace) != (8, 6, 0) or raw.size != height * (1 + 4 * width):
        return png
    raw = raw.reshape(height, 1 + 4 * width)
    if not np.isin(raw[:, 0], (0, 1)).all():  # only "None" and "Sub" are undone here
        return png
    pixels = raw[:, 1:].reshape(height, width, 4).copy()  # (rows, columns, RGBA)
    sub = raw[:, 0] == 1
    pixels[sub] = np.cumsum(pixels[sub], axis=1, dtype=np.uint8)  # Sub: each byte adds the pixel to its left's
    if (pixels[..., 3] == 255).all():
        pixels = pixels[..., :3]
    flat = pixels.reshape(height, -1)
    up = np.diff(flat, axis=0, prepend=np.zeros((1, flat.shape[1]), np.uint8))  # Up: each row less the one above
    body = zlib.compress(np.hstack([np.full((height, 1), 2, np.uint8), up]).tobytes(), 9)
    header = struct.pack(">IIBBBBB", width, height, 8, 2 if pixels.shape[-1] == 3 else 6, 0, 0, 0)
    return png[:8] + _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b"")


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    out, at = [], 8  # after the signature
    while at + 8 <= len(png):
        size, kind = struct.unpack(">I4s", png[at:at + 8])
        out.append((kind, png[at + 8:at + 8 + size]))
        at += 12 + size  # length, kind, data, CRC
    return out


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
