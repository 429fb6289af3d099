"""Whatever students type: the sentence box and hand-made links never crash the lab, are shown as
plain text (the chart's token labels are exactly core's tokens), are capped with core's own
message, never reach a file name, and blocked or non-finite grids never turn into NaN."""

import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import torch
from streamlit.testing.v1 import AppTest

from animations import service as render_service
from animations.render import cache_dir
from core import PRESETS, ConfigError, tokenize
from core.trace import token_labels
from dashboard.video import studio
from tests.conftest import shown as read_as_shown
from tests.dashboard.conftest import switch

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboard" / "app.py"
DEFAULT = PRESETS["default"]

HOSTILE = {
    "empty": "",
    "10 000 characters": ("Attention mixes values. " * 420)[:10_000],
    "emoji": "The 🐱 sat on the 🧶 👍🏽 !",
    "right-to-left": "שלום עולם and مرحبا بالعالم \u202eevil",
    "control characters": "tab\there\x07bell\x1b[31mred\r\nline\x7f\x08back",  # NUL: see the xfail below
    "HTML": "<img src=x onerror=alert(1)> <script>alert(2)</script>",
    "Vega-Lite expressions": '{{datum.x}} "+alert(1)+" ${signal} datum["x"]',
    "shell metacharacters": "$(touch /tmp/pwned); rm -rf ~ `id` | cat && echo > x",
    "path-like": "../../etc/passwd C:\\Windows\\system32 ~/.ssh/id_rsa",
}
# Pieces of the texts above that must never become (part of) a file name.
FRAGMENTS = ("pwned", "passwd", "onerror", "alert", "datum", "system32", "id_rsa", "🐱", "שלום", "evil")
# Where Vega-Lite evaluates strings as expressions.
EXPRESSION_KEYS = {"expr", "calculate", "filter", "test", "signal", "update"}


def fake_render(scene, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
    """Writes a render where the real one would (named from cfg.key()), at once."""
    folder = cache_dir(scene, cfg, quality, media_dir, voice)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{scene}.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
    return folder / f"{scene}.mp4"


@pytest.fixture
def app(tmp_path, monkeypatch):
    """The app after its first run, its render service on a fake manim and a temporary cache."""
    monkeypatch.setenv("ATTENTION_LAB_MEDIA", str(tmp_path))
    real = render_service.RenderService
    monkeypatch.setattr(render_service, "RenderService", lambda **kw: real(render_fn=fake_render, **kw))
    studio.service.clear()
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    yield at
    studio.service().shutdown(wait=True)
    studio.service.clear()


def names_under(*folders: Path) -> set[str]:
    """Every file and folder name under `folders`, not walking into the skipped ones (the virtual
    environment alone is tens of thousands of files)."""
    skip = {".git", ".venv", "node_modules", "__pycache__", ".hypothesis", ".pytest_cache"}
    out = set()
    for folder in folders:
        for here, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d not in skip]
            out.update(os.path.join(here, name) for name in dirs + files)
    return out


def core_error(text: str) -> str:
    try:
        DEFAULT.replace(text=text)
    except ConfigError as err:
        return str(err)
    return ""


def expression_strings(spec) -> list[str]:
    """Every string Vega-Lite would evaluate as an expression in this spec."""
    found = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key in EXPRESSION_KEYS and isinstance(value, str):
                found.append(value)
            found += expression_strings(value)
    elif isinstance(spec, list):
        for value in spec:
            found += expression_strings(value)
    return found


def charts(at: AppTest):
    for element in at.get("vega_lite_chart"):
        spec = json.loads(element.proto.spec)
        frames = [pa.ipc.open_stream(d.data.data).read_all().to_pandas() for d in element.proto.datasets]
        yield spec, frames[0]


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_typed_text_is_plain_capped_and_never_a_file_name(app, tmp_path, text):
    pwned_before = Path("/tmp/pwned").exists()
    app_expressions = {e for spec, _ in charts(app) for e in expression_strings(spec)}
    before = names_under(ROOT, tmp_path)
    app.text_input(key="ctl_text").set_value(text).run()
    assert not app.exception, [e.value for e in app.exception]
    typed = app.session_state["ctl_text"]  # what the box holds (kept even when it cannot work)
    expected_error = core_error(typed)
    errors = " ".join(read_as_shown(e.value) for e in app.error)
    if expected_error:
        assert expected_error in errors, "the page says, in core's words, why the text cannot work"
        assert text in ("", HOSTILE["10 000 characters"]), f"core refused {text!r}"
        shown = DEFAULT.tokens  # the last lesson that worked
    else:
        assert not errors, errors
        shown = tokenize(typed)
    spec, weights = next((s, df) for s, df in charts(app) if s["usermeta"]["lab"] in ("masked", "weights"))
    # Token labels are core's tokens, numbered: the text is data, not markup or expressions.
    assert list(dict.fromkeys(weights["query"])) == token_labels(shown)
    assert list(dict.fromkeys(weights["key"])) == token_labels(shown)
    # Vega-Lite's expressions are the app's own, whatever was typed.
    assert set(expression_strings(spec)) <= app_expressions
    assert not any(f in e for e in expression_strings(spec) for f in FRAGMENTS if f != "datum")
    # A render of this lesson: its files are named from the lesson's hash only.
    app.button(key="studio_render").click().run()
    assert not app.exception, [e.value for e in app.exception]
    new = names_under(ROOT, tmp_path) - before
    assert not [n for n in new if any(f in n for f in FRAGMENTS)], "a user-derived file name"
    if not expected_error:
        assert any(n.endswith(".mp4") for n in new), "the render went through (the check above saw its files)"
    assert Path("/tmp/pwned").exists() == pwned_before, "the shell metacharacters were executed"


def test_a_nul_character_is_no_token_and_labels_stay_whole(app):
    app.text_input(key="ctl_text").set_value("before\x00after").run()
    assert not app.exception
    spec, weights = next((s, df) for s, df in charts(app) if s["usermeta"]["lab"] in ("masked", "weights"))
    assert list(dict.fromkeys(weights["query"])) == token_labels(tokenize("before\x00after"))


def test_a_ten_thousand_character_link_gets_cores_message():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params = {"text": "x" * 10_000}
    at.run()
    assert not at.exception
    notices = " ".join(read_as_shown(w.value) for w in at.warning)
    assert core_error("x" * 10_000) in notices and "10,000 characters" in notices


def test_no_raw_html_anywhere_in_the_dashboard_but_the_themes_constant_css():
    """Raw HTML only in dashboard/display.py, whose CSS and reload script are built from constants
    (tests/dashboard/test_display.py checks what they can hold)."""
    sources = {p: p.read_text(encoding="utf-8") for p in (ROOT / "dashboard").rglob("*.py")}
    assert len(sources) >= 5, "the grep found the dashboard's sources"
    offenders = [str(p) for p, text in sources.items() if re.search(r"unsafe_allow_html|st\.html\(|components\.html",
                                                                      text) and p.name != "display.py"]
    assert not offenders, offenders


@pytest.mark.parametrize("page", [None, "masking"])
def test_a_fully_blocked_custom_mask_gives_zero_weights_and_says_why(page):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params = {"source": "random", "seq_len": "3", "mask": "custom", "custom_mask": "000;000;000"}
    at.run()
    if page:  # (page 1 opens on its "3. Mask, then softmax" step: the weights are on screen)
        switch(at, page)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.warning, "a valid link, not a broken one"
    weights = [df for spec, df in charts(at) if spec["usermeta"]["lab"] == "weights"]
    assert weights, "the weights are drawn"
    for df in weights:
        assert len(df) == 9 and not df["weight"].isna().any()
        np.testing.assert_array_equal(df["weight"].to_numpy(), 0)
    info = " ".join(read_as_shown(i.value) for i in at.info)
    said = (r"Fully blocked rows: 1 t1, 2 t2, 3 t3\. These queries may attend to no key: every score in their rows"
            if page else "no key left to attend to")
    assert re.search(said, info), info


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "1e30"])
@pytest.mark.parametrize("matrix", ["q", "k", "v"])
def test_non_finite_or_huge_hand_entered_numbers_give_a_notice(matrix, bad):
    rows = {"q": "1,0;0,1", "k": "1,0;0,1", "v": "1,2;3,4"}
    rows[matrix] = f"{bad},0;0,1"
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params = {"source": "manual", "d_model": "2", "num_heads": "1", **rows}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    notice = " ".join(read_as_shown(w.value) for w in at.warning)
    assert "cannot work" in notice and f"{matrix.upper()} row 1, column 1" in notice, notice
    for spec, df in charts(at):
        numbers = df.select_dtypes("number").to_numpy(dtype=float)
        assert np.isfinite(numbers).all(), spec["usermeta"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_a_link_asking_for_cuda_keeps_its_lesson_on_the_cpu():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params = {"device": "cuda", "d_model": "32", "num_heads": "8", "mask": "causal"}
    at.run()
    assert not at.exception
    notices = " ".join(read_as_shown(w.value) for w in at.warning)
    assert "'cuda' was asked for" in notices and "runs on the CPU instead" in notices
    cfg = at.session_state["lesson"]
    assert (cfg.d_model, cfg.num_heads, cfg.mask, cfg.device) == (32, 8, "causal", "auto")
