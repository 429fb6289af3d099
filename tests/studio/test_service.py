"""The render service: one render per distinct request, bounded concurrency, a capped cache."""

import json
import os
import threading
import time
from pathlib import Path

import pytest

from animations.cache_index import CacheIndex
from animations.render import RenderError, cache_dir
from animations.service import RenderService
from core import AttentionConfig, ConfigError
from jobs import QueueFull


class FakeRender:
    """Stands in for manim: writes a video of `size` bytes into the cache folder after `delay`."""

    def __init__(self, delay=0.05, size=1000, fail=()):
        self.delay, self.size, self.fail = delay, size, set(fail)
        self.calls, self.running, self.most_running = [], 0, 0
        self._lock = threading.Lock()

    def __call__(self, scene, cfg, quality, on_progress=None, timeout=None, media_dir=None, voice=None):
        with self._lock:
            self.calls.append((scene, cfg.key()))
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        try:
            time.sleep(self.delay)
            if on_progress:
                on_progress(1, 1)
            if cfg.seed in self.fail:
                raise RenderError("Rendering scores failed (exit status 1).", "Traceback ...\nValueError: boom")
            folder = cache_dir(scene, cfg, quality, media_dir, voice)
            folder.mkdir(parents=True, exist_ok=True)
            movie = folder / f"{scene}.mp4"
            movie.write_bytes(b"\0" * self.size)
            return movie
        finally:
            with self._lock:
                self.running -= 1


def _service(tmp_path, fake, **kw):
    return RenderService(media_dir=tmp_path, render_fn=fake, **kw)


def test_identical_requests_share_one_render(tmp_path):
    fake = FakeRender(delay=0.3)
    service = _service(tmp_path, fake, workers=2, max_per_session=100)
    cfg = AttentionConfig(seed=5)
    jobs = []
    threads = [threading.Thread(target=lambda i=i: jobs.append(service.submit("scores", cfg, session=f"s{i}")))
               for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(j) for j in jobs}) == 1
    assert jobs[0].wait(5) and jobs[0].state == "done" and jobs[0].path.is_file()
    assert len(fake.calls) == 1
    # Asking again after it finished serves the same file, still without a new render.
    assert service.submit("scores", cfg).path == jobs[0].path and len(fake.calls) == 1


def test_concurrency_one_runs_jobs_one_at_a_time(tmp_path):
    fake = FakeRender(delay=0.1)
    service = _service(tmp_path, fake, workers=1)
    jobs = [service.submit("scores", AttentionConfig(seed=s)) for s in range(5)]
    assert service.queue_length() >= 4
    assert all(j.wait(10) for j in jobs)
    assert [j.state for j in jobs] == ["done"] * 5
    assert fake.most_running == 1 and len(fake.calls) == 5
    assert service.queue_length() == 0


def test_failure_is_reported_and_a_retry_renders_again(tmp_path):
    fake = FakeRender(fail={7})
    service = _service(tmp_path, fake)
    job = service.submit("scores", AttentionConfig(seed=7))
    job.wait(5)
    assert job.state == "failed" and "failed (exit status 1)" in job.error and "ValueError: boom" in job.log
    other = service.submit("scores", AttentionConfig(seed=8))
    assert other.wait(5) and other.state == "done"
    fake.fail.clear()
    retry = service.submit("scores", AttentionConfig(seed=7))
    assert retry is not job and retry.wait(5) and retry.state == "done"


def test_bad_settings_and_unknown_scenes_fail_before_queueing(tmp_path):
    fake = FakeRender()
    service = _service(tmp_path, fake)
    with pytest.raises(ConfigError, match="not divisible"):
        service.submit("scores", {"d_model": "10", "num_heads": "4"})
    with pytest.raises(KeyError, match="Unknown scene"):
        service.submit("../../etc/passwd", AttentionConfig())
    assert fake.calls == [] and service.queue_length() == 0


def test_limits_per_session_and_in_total(tmp_path):
    service = _service(tmp_path, FakeRender(delay=0.5), workers=1, max_per_session=2, max_queued=3)
    service.submit("scores", AttentionConfig(seed=1), session="alice")
    service.submit("scores", AttentionConfig(seed=2), session="alice")
    with pytest.raises(QueueFull, match="You already have 2 videos rendering"):
        service.submit("scores", AttentionConfig(seed=3), session="alice")
    service.submit("scores", AttentionConfig(seed=3), session="bob")
    with pytest.raises(QueueFull, match="queue is full"):
        service.submit("scores", AttentionConfig(seed=4), session="carol")
    # Joining a render that is already queued costs nothing.
    assert service.submit("scores", AttentionConfig(seed=1), session="carol").session == "alice"
    service.shutdown(wait=False)


def test_cache_cap_evicts_least_recently_used(tmp_path):
    fake = FakeRender(size=1000)
    service = _service(tmp_path, fake, workers=1, cap_bytes=2500)
    paths = []
    for seed in (1, 2):
        job = service.submit("scores", AttentionConfig(seed=seed))
        job.wait(5)
        paths.append(job.path)
        time.sleep(0.01)
    assert service.cached("scores", AttentionConfig(seed=1)) == paths[0]  # seed 1 is now the newest use
    time.sleep(0.01)
    third = service.submit("scores", AttentionConfig(seed=3))
    third.wait(5)
    assert paths[0].is_file() and third.path.is_file()
    assert not paths[1].exists()  # seed 2: least recently used, evicted
    assert service.index.total_bytes() <= 2500


def test_index_survives_restart_and_rebuilds_when_corrupt(tmp_path):
    fake = FakeRender(size=300)
    first = _service(tmp_path, fake)
    job = first.submit("scores", AttentionConfig(seed=1))
    job.wait(5)
    first.shutdown()
    entries = json.loads((tmp_path / "renders" / "index.json").read_text())
    assert list(entries) == [job.path.parent.name] and entries[job.path.parent.name]["size"] == 300
    again = _service(tmp_path, fake)
    assert again.index.entries == entries
    assert again.submit("scores", AttentionConfig(seed=1)).wait(5) and len(fake.calls) == 1
    (tmp_path / "renders" / "index.json").write_text("{ not json")
    rebuilt = CacheIndex(tmp_path / "renders", 10**9)
    assert list(rebuilt.entries) == [job.path.parent.name] and rebuilt.entries[job.path.parent.name]["size"] == 300


def test_cache_folder_deleted_while_running(tmp_path):
    fake = FakeRender()
    service = _service(tmp_path, fake)
    service.submit("scores", AttentionConfig(seed=1)).wait(5)
    import shutil
    shutil.rmtree(tmp_path / "renders")
    job = service.submit("scores", AttentionConfig(seed=1))
    assert job.wait(5) and job.state == "done" and job.path.is_file() and len(fake.calls) == 2
    assert Path(job.path).parent.name in service.index.entries
    assert not any(p.name.startswith(".index-") for p in (tmp_path / "renders").iterdir())
    assert os.path.commonpath([job.path, tmp_path]) == str(tmp_path)
