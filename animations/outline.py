"""The outlines a manim `Text`/`MarkupText` would have, without building one VMobject per glyph.

`Text` asks Pango for an SVG, then builds a VMobject per glyph path (the bulk of its cost); a
Label only needs all outlines in one array. Here manim's own pieces do every step on plain arrays:
`Text.__init__` itself chooses the font and writes (or reuses) the SVG, `SVGMobject.modify_xml_tree`
and svgelements read it, `VMobjectFromSVGPath.handle_commands` turns each path into Bezier points;
then the steps `Text` applies afterwards (flip, centre, closing each glyph, the anti-aliasing
scale) run in the same order. tests/animations/test_text_path.py compares the result with
`Text`'s own. Anything unusual (another shape than a path, the OpenGL renderer) returns None and
the caller builds the real `Text`.
"""

import xml.etree.ElementTree as ET
from io import BytesIO
from types import SimpleNamespace

import numpy as np
import svgelements as se
from manim import RIGHT, MarkupText, SVGMobject, Text, VMobject, config
from manim.constants import RendererType
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath
from manim.mobject.text.text_mobject import TEXT_MOB_SCALE_FACTOR

# SVGMobject's default style, as Text leaves it; only modify_xml_tree reads it
_SVG_DEFAULT = {"color": None, "opacity": None, "fill_color": None, "fill_opacity": None,
                "stroke_width": 0, "stroke_color": None, "stroke_opacity": None}


class _SvgWritten(Exception):
    def __init__(self, file_name):
        super().__init__(file_name)
        self.file_name = file_name


class _StopAtSvg(SVGMobject):
    """Placed between Text and SVGMobject: Text has written its SVG and calls this with its path."""

    def __init__(self, file_name, *args, **kwargs):
        raise _SvgWritten(file_name)


class _TextSvg(Text, _StopAtSvg):
    pass


class _MarkupSvg(MarkupText, _StopAtSvg):
    pass


def _svg_file(cls, *args, **kwargs) -> str:
    try:
        cls(*args, **kwargs)
    except _SvgWritten as done:
        return str(done.file_name)
    raise RuntimeError("manim's Text no longer hands its SVG to SVGMobject")


def _glyph_paths(file_name: str):
    """Each glyph path's points, in the order SVGMobject.get_mobjects_from adds them; None if the
    SVG holds anything but paths (manim's own classes handle that)."""
    holder = SimpleNamespace(svg_default=_SVG_DEFAULT)
    holder.generate_config_style_dict = lambda: SVGMobject.generate_config_style_dict(holder)
    tree = SVGMobject.modify_xml_tree(holder, ET.parse(file_name))
    buffer = BytesIO()
    tree.write(buffer)
    buffer.seek(0)
    svg = se.SVG.parse(buffer)
    glyphs, stack = [], [svg]
    while stack:
        element = stack.pop()
        if isinstance(element, se.Group | se.Use):
            stack.extend(element[::-1])
        if isinstance(element, se.SimpleLine | se.Rect | se.Circle | se.Ellipse | se.Polygon
                      | se.Polyline | se.Text):
            return None
        if not isinstance(element, se.Path):
            continue
        element.approximate_arcs_with_quads()
        path = SimpleNamespace(path_obj=element, n_points_per_curve=4, long_lines=False)
        VMobjectFromSVGPath.handle_commands(path)
        points = path.points
        if not len(points):
            continue  # a space: SVGMobject drops it too
        if element.apply:  # SVGMobject.handle_transform: the matrix about the origin, then the shift
            m = element.transform
            full = np.identity(3)
            full[:2, :2] = [[m.a, m.c], [m.b, m.d]]
            points = np.dot(points, full.T) + np.array([m.e, m.f, 0.0])
        glyphs.append(points)
    return glyphs


def _closed(points: np.ndarray) -> np.ndarray:
    """Text's closing step for one glyph: a straight cubic back to where each run of joined
    curves began, wherever a curve does not start where the last one ended, and after the last."""
    ends, starts = points[3:-1:4], points[4::4]
    cuts = (np.nonzero(np.any(ends != starts, axis=1))[0] + 1) * 4
    out = []
    for run in np.split(points, cuts):
        start, end = run[-1], run[0]
        out += [run, np.array([start, (start + start + end) / 3, (start + end + end) / 3, end])]
    return np.concatenate(out)


def _outline(file_name: str) -> np.ndarray | None:
    glyphs = _glyph_paths(file_name)
    if glyphs is None:
        return None
    if not glyphs:
        return np.zeros((0, 3))
    # flip and centre act on every point alike, so they run once on all glyphs together
    whole = VMobject()
    whole.points = np.concatenate(glyphs)
    whole.flip(RIGHT)
    whole.center()
    cuts = np.cumsum([len(g) for g in glyphs])[:-1]
    whole.points = np.concatenate([_closed(g) for g in np.split(whole.points, cuts)])
    whole.scale(TEXT_MOB_SCALE_FACTOR)
    return whole.points


def text_points(text: str, font: str, size: int, weight: str) -> np.ndarray | None:
    """The points `_flat(Text(text, font=font, font_size=size, weight=weight))` holds, or None."""
    if config.renderer != RendererType.CAIRO:
        return None
    return _outline(_svg_file(_TextSvg, text, font=font, font_size=size, weight=weight))


def markup_points(markup: str, font: str, size: int) -> np.ndarray | None:
    """The points `_flat(MarkupText(markup, font=font, font_size=size))` holds, or None."""
    if config.renderer != RendererType.CAIRO:
        return None
    return _outline(_svg_file(_MarkupSvg, markup, font=font, font_size=size))
