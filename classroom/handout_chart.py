"""The handout's charts: small Vega-Lite specs drawn by vl-convert as SVG, offline, embedded as data: URIs.

Why not the dashboard's own chart builders (dashboard/charts): classroom sits below the dashboard and may not
import it, and those specs are made for a live page (their sizes are Vega signals the page sets, their look
follows the session's display settings). A handout needs a fixed picture, so it draws its own plain spec
here, from core's numbers, with the dashboard's colours: the scheme names below are
animations/style.py's (WEIGHT_SCHEME, MASKED), which classroom may not import either; a test holds them equal.
"""

import base64

import numpy as np
import vl_convert as vlc

WEIGHT_SCHEME = "viridis"  # animations/style.py's WEIGHT_SCHEME: weights in 0..1
MASKED = "#7F7F7F"  # animations/style.py's MASKED: a blocked cell
FONT = "DejaVu Sans"
NUMBERS_UP_TO = 12  # a cell's number is printed up to this many tokens (the dashboard's heatmaps' rule)
PADDING = 16  # room for a reader's font, a little wider than the one vl-convert measured the texts in


def weights_spec(labels: list[str], weights: np.ndarray, keep: np.ndarray, title: str) -> dict:
    """One head's T×T weights as a heatmap: keys across, queries down, blocked cells grey."""
    T = len(labels)
    cells = [{"query": labels[i], "key": labels[j], "weight": float(weights[i, j]), "blocked": not bool(keep[i, j])}
             for i in range(T) for j in range(T)]
    size = max(12, min(64, 640 // max(T, 1)))
    axis = {"labelFont": FONT, "titleFont": FONT, "labelFontSize": 13 if T <= 16 else 9, "labelLimit": 140}
    rect = {"mark": {"type": "rect"}, "encoding": {"color": {
        "condition": {"test": "datum.blocked", "value": MASKED},
        "field": "weight", "type": "quantitative", "title": "weight",
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


def image(spec: dict, alt: str) -> str:
    """The chart as an <img> of an SVG data: URI: a tenth of a PNG's bytes, sharp at any zoom and in print,
    and, as an image, unable to run or load anything. `alt` must be HTML-escaped already."""
    svg = vlc.vegalite_to_svg(spec)
    return f'<img class="chart" src="{svg_uri(svg)}" alt="{alt}">'


def svg_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
