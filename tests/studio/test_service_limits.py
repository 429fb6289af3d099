"""The render service's own bounds: a cache cap that holds for every render in the folder, and
failures that are logged with their traceback without failing good videos. (How many finished
jobs a queue remembers: tests/jobs/test_local.py.)"""

import logging
import os
import time
from pathlib import Path

import pytest

from animations.render import cache_dir
from animations.service import RenderService
from core import AttentionConfig

from .test_service import FakeRender


def _service(tmp_path, fake, **kw):
    return RenderService(media_dir=tmp_path, render_fn=fake, **kw)


def _cli_render(media: Path, seed: int, size: int, age_s: float) -> Path:
    """A render folder written the way the CLI writes one: straight into media/renders, no index."""
    folder = cache_dir("scores", AttentionConfig(seed=seed), "low", media, None)
    folder.mkdir(parents=True)
    (folder / "scores.mp4").write_bytes(b"\0" * size)
    old = time.time() - age_s
    os.utime(folder, (old, old))
    return folder


def test_cap_counts_renders_written_behind_the_services_back(tmp_path):
    fake = FakeRender(size=1000)
    service = _service(tmp_path, fake, workers=1, cap_bytes=2500)
    first = service.submit("scores", AttentionConfig(seed=1), voice=None)
    assert first.wait(5)
    cli = _cli_render(tmp_path, seed=50, size=1200, age_s=3600)  # older than any service render
    assert cli.name not in service.index.entries  # the index does not know it yet
    second = service.submit("scores", AttentionConfig(seed=2), voice=None)
    assert second.wait(5)
    assert not cli.exists(), "the CLI's render counts towards the cap and, least recently used, goes first"
    assert first.path.is_file() and second.path.is_file()
    on_disk = sum(p.stat().st_size for p in (tmp_path / "renders").rglob("*.mp4"))
    assert on_disk <= 2500 and service.index.total_bytes() == on_disk


def test_a_server_starting_over_the_cap_evicts_at_once(tmp_path):
    old = [_cli_render(tmp_path, seed=s, size=1000, age_s=100 - s) for s in range(4)]
    service = _service(tmp_path, FakeRender(), cap_bytes=2500)
    assert [f.exists() for f in old] == [False, False, True, True]  # the oldest two went
    assert service.index.total_bytes() == 2000


def test_bookkeeping_failure_after_a_good_render_keeps_the_video(tmp_path, monkeypatch, caplog):
    service = _service(tmp_path, FakeRender())

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(service.index, "evict", broken)
    with caplog.at_level(logging.ERROR, logger="animations.service"):
        job = service.submit("scores", AttentionConfig(seed=3))
        assert job.wait(5)
    assert job.state == "done" and job.path.is_file() and not job.error
    record = next(r for r in caplog.records if "bookkeeping" in r.getMessage())
    assert record.exc_info and "No space left" in caplog.text and "Traceback" in caplog.text


@pytest.mark.parametrize("error, shown", [(ValueError("a bug"), "crashed"), (OSError(30, "Read-only file system"),
                                                                             "could not be saved")])
def test_a_crash_fails_the_job_and_logs_its_traceback(tmp_path, caplog, error, shown):
    def crashing(*args, **kwargs):
        raise error

    service = _service(tmp_path, crashing)
    with caplog.at_level(logging.ERROR, logger="animations.service"):
        job = service.submit("scores", AttentionConfig(seed=4))
        assert job.wait(5)
    assert job.state == "failed" and shown in job.error
    assert "Traceback" in caplog.text and type(error).__name__ in caplog.text
    assert "a bug" not in job.error  # the page says what happened, not the internals
