"""The RQ render service against a real (throwaway) Redis, without workers: what the lab
processes do. Two service objects stand for two lab processes; jobs stay queued, or the test
moves them by hand as a worker would. (Workers, kills and restarts: tests/hall/test_renders.py.)"""

import time

import pytest

pytest.importorskip("rq")

from animations.render import cache_dir  # noqa: E402
from animations.service import RenderService, RQRenderService, make_service  # noqa: E402
from core import AttentionConfig  # noqa: E402
from jobs import QueueFull, QueueUnavailable  # noqa: E402
from jobs.job import REFRESH_S  # noqa: E402
from jobs.rq_queue import job_id  # noqa: E402
from tests.conftest import free_port  # noqa: E402


@pytest.fixture
def two_labs(redis_url, tmp_path):
    labs = [RQRenderService(redis_url, media_dir=tmp_path, max_per_session=2, max_queued=3) for _ in range(2)]
    labs[0].redis.flushdb()
    yield labs
    for lab in labs:
        lab.shutdown()


def lesson(seed: int) -> AttentionConfig:
    return AttentionConfig(seed=seed)


def test_make_service_picks_rq_only_where_the_hall_names_a_redis(redis_url, tmp_path):
    assert isinstance(make_service({"ATTENTION_LAB_MEDIA": str(tmp_path)}), RenderService)
    assert isinstance(make_service({"ATTENTION_LAB_MEDIA": str(tmp_path), "ATTENTION_LAB_REDIS_URL": redis_url}),
                      RQRenderService)


def test_the_same_request_from_two_processes_is_one_job(two_labs):
    a, b = two_labs
    first, second = a.submit("scores", lesson(1), session="s1"), b.submit("scores", lesson(1), session="s2")
    assert first.key == second.key and first.state == second.state == "queued"
    assert a.redis.lrange(f"rq:queue:{a.queue.keys.queue}", 0, -1) == [job_id(first.key).encode()]
    assert a.queue_length() == b.queue_length() == 1


def test_limits_count_every_process(two_labs):
    a, b = two_labs
    a.submit("scores", lesson(1), session="s1")
    b.submit("scores", lesson(2), session="s1")
    with pytest.raises(QueueFull, match="You already have 2 videos rendering"):
        a.submit("scores", lesson(3), session="s1")
    b.submit("scores", lesson(3), session="s2")
    with pytest.raises(QueueFull, match="queue is full"):
        a.submit("scores", lesson(4), session="s3")
    assert b.submit("scores", lesson(1), session="s3").state == "queued", "joining a queued render costs nothing"


def test_a_finished_job_frees_its_place_and_progress_is_read_from_its_meta(two_labs):
    a, b = two_labs
    job = a.submit("scores", lesson(1), session="s1")
    rq_job = a.queue.fetch(job.key)
    rq_job.meta.update(done=3, total=12)
    rq_job.save_meta()
    rq_job.set_status("started")
    seen = b.submit("scores", lesson(1), session="s2")
    assert (seen.state, seen.done, seen.total) == ("running", 3, 12)
    rq_job.meta.update(error="Rendering scores failed (exit status 1).", log="ValueError: no frames")
    rq_job.save_meta()
    rq_job.set_status("finished")
    seen = b.submit("scores", lesson(1), session="s2")  # ended without a video: a new job, progress from 0
    assert (seen.state, seen.done) == ("queued", 0)
    a.submit("scores", lesson(2), session="s1")
    a.submit("scores", lesson(3), session="s1")  # s1's first job ended: two of its own are allowed again
    assert a.redis.hlen(a.queue.keys.active) == 3


def test_a_failed_job_says_why_in_plain_words(two_labs):
    a, _ = two_labs
    job = a.submit("scores", lesson(1), session="s1")
    rq_job = a.queue.fetch(job.key)
    rq_job.meta.update(error="Rendering scores took longer than 600 s and was stopped.", log="...")
    rq_job.save_meta()
    rq_job.set_status("failed")
    time.sleep(REFRESH_S)  # a page's reads within REFRESH_S share one look at Redis
    assert (job.state, job.error, job.log) == ("failed", "Rendering scores took longer than 600 s and was stopped.",
                                               "...")
    a.redis.delete(rq_job.key)  # as after a Redis restart
    time.sleep(REFRESH_S)
    assert job.state == "failed" and "restarted and lost this request" in job.error


def test_a_video_on_disk_is_done_without_asking_redis(two_labs):
    a, _ = two_labs
    folder = cache_dir("scores", lesson(5), "low", a.media_dir, None)
    folder.mkdir(parents=True)
    (folder / "scores.mp4").write_bytes(b"\0\0\0\x18ftypmp42")
    down = RQRenderService(f"redis://:pw@127.0.0.1:{free_port()}/0", media_dir=a.media_dir)
    job = down.submit("scores", lesson(5), voice=None)
    assert job.state == "done" and job.path == folder / "scores.mp4"


def test_redis_down_is_a_plain_message_not_a_traceback(tmp_path):
    down = RQRenderService(f"redis://:pw@127.0.0.1:{free_port()}/0", media_dir=tmp_path)
    with pytest.raises(QueueUnavailable, match="Renders are briefly unavailable") as err:
        down.submit("scores", lesson(1), session="s1")
    assert isinstance(err.value, QueueFull), "pages show it as they show a full queue"
    assert down.queue_length() == 0
