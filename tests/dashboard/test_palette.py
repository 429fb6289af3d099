"""The videos' colour stops are the dashboard's Vega schemes, read back from Vega itself."""

import json
import re

import pytest
import vl_convert as vlc

from animations import style

STOPS = [i / 32 for i in range(33)]  # between the stored stops too


def vega_colours(scheme: str, domain=(0.0, 1.0)) -> list[str]:
    """The fill Vega gives each of STOPS (as a fraction of the domain) under `scheme`, via an SVG."""
    low, high = domain
    values = [low + t * (high - low) for t in STOPS]
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "data": {"values": [{"i": i, "v": v} for i, v in enumerate(values)]},
            "mark": "rect", "encoding": {"x": {"field": "i", "type": "ordinal", "sort": None},
                                         "color": {"field": "v", "type": "quantitative",
                                                   "scale": {"scheme": scheme, "domain": list(domain)},
                                                   "legend": None}}}
    svg = vlc.vegalite_to_svg(json.dumps(spec))
    fills = re.findall(r'<path[^>]*fill="(#[0-9a-fA-F]{6}|rgb\([^)]*\))"[^>]*/>', svg)
    fills = [_hex(f) for f in fills if f.lower() not in ("#ffffff", "#fff")]
    assert len(fills) == len(STOPS), fills
    return fills


def _hex(colour: str) -> str:
    if colour.startswith("rgb"):
        r, g, b = (int(float(x)) for x in re.findall(r"[\d.]+", colour)[:3])
        return f"#{r:02X}{g:02X}{b:02X}"
    return colour.upper()


def _distance(a: str, b: str) -> int:
    return max(abs(int(a[i:i + 2], 16) - int(b[i:i + 2], 16)) for i in (1, 3, 5))


@pytest.mark.parametrize("scheme,stops,domain", [
    (style.WEIGHT_SCHEME, style.WEIGHT_STOPS, (0.0, 1.0)),
    (style.SCORE_SCHEME, style.SCORE_STOPS, (-1.0, 1.0)),
])
def test_the_videos_colours_are_the_dashboards_scheme(scheme, stops, domain):
    for t, vega in zip(STOPS, vega_colours(scheme, domain), strict=True):
        ours = style.interpolate(stops, t)
        assert _distance(ours, vega) <= 6, (scheme, t, ours, vega)  # 6/255: not a colour anyone tells apart
