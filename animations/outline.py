"""The outlines a manim `Text`/`MarkupText` would have, without building one VMobject per glyph.

`Text` asks Pango for an SVG, then builds a VMobject per glyph path (the bulk of its cost); a
Label only needs all outlines in one array. Here manim's own pieces do every step on plain arrays:
`Text.__init__` itself chooses the font and writes (or reuses) the SVG, `SVGMobject.modify_xml_tree`
and svgelements read it, `VMobjectFromSVGPath.handle_commands` turns each path into Bezier points;
then the steps `Text` applies afterwards (flip, centre, closing each glyph, the anti-aliasing
scale) run in the same order. tests/animations/test_text_path.py compares the result with
`Text`'s own. Anything unusual (a shape outside Pango's glyph symbols, a transform, the OpenGL
renderer) returns None and the caller builds the real `Text`.
"""

import xml.etree.ElementTree as ET
from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import svgelements as se
from manim import RIGHT, MarkupText, SVGMobject, Text, VMobject, config
from manim.constants import RendererType
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath
from manim.mobject.text.text_mobject import TEXT_MOB_SCALE_FACTOR


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


def _svg_file(cls, *args, **kwargs) -> str | None:
    """The SVG file Text wrote, or None where a newer manim no longer hands it to SVGMobject (the
    caller then builds the real Text: a render never fails for want of this shortcut)."""
    try:
        cls(*args, **kwargs)
    except _SvgWritten as done:
        return str(done.file_name)
    return None


_SVG, _XLINK = "{http://www.w3.org/2000/svg}", "{http://www.w3.org/1999/xlink}href"
_PLAIN = {"svg": {"width", "height", "viewBox", "version"}, "defs": set(), "g": {"id", "style"},
          "symbol": {"overflow", "id"}, "path": {"style", "d"}, "use": {_XLINK, "x", "y"}}


@lru_cache(maxsize=8192)
def _glyph(d: str) -> np.ndarray:
    """One glyph's path in its own coordinates, as VMobjectFromSVGPath converts it."""
    path = se.Path(d)
    path.approximate_arcs_with_quads()
    holder = SimpleNamespace(path_obj=path, n_points_per_curve=4, long_lines=False)
    VMobjectFromSVGPath.handle_commands(holder)
    return holder.points


def _glyph_paths(file_name: str):
    """Each drawn glyph's points, in document order (the order SVGMobject adds them), or None
    unless the SVG is Pango's plain form: glyph symbols made of paths, placed by <use x y>
    (a use is a translation, so a glyph converted once serves every place it is drawn)."""
    root = ET.parse(file_name).getroot()
    symbols, glyphs = {}, []
    for element in root.iter():
        tag = element.tag.removeprefix(_SVG)
        if tag not in _PLAIN or not set(element.attrib) <= _PLAIN[tag]:
            return None
        if tag == "symbol":
            if any(child.tag != _SVG + "path" for child in element):
                return None
            symbols[element.get("id")] = [child.get("d", "") for child in element]
    if len(list(root.iter(_SVG + "path"))) != sum(len(paths) for paths in symbols.values()):
        return None  # a path drawn outside a glyph (a rule, an underline)
    for use in root.iter(_SVG + "use"):
        paths = symbols.get(use.get(_XLINK, "").removeprefix("#"))
        if paths is None:
            return None
        shift = np.array([float(use.get("x", 0)), float(use.get("y", 0)), 0.0])
        for d in paths:
            points = _glyph(d)
            if len(points):  # a space has no points: SVGMobject drops it too
                glyphs.append(points + shift)
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


def _outline(file_name: str | None) -> np.ndarray | None:
    glyphs = None if file_name is None else _glyph_paths(file_name)
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
