"""`python -m animations.rq_worker`: a render worker of the hall's queue (RQ on the hall's Redis).

`make hall` starts `--render-workers` of them and restarts one that dies; deploy/'s `render`
service runs it in containers. Each takes one render at a time from the queue that the lab
processes fill (animations/rq_service.py), renders it with `animations.render.render` into the
shared media folder (ATTENTION_LAB_MEDIA: written aside, renamed into place), writes its progress
into the job's meta, and keeps the cache under its cap (ATTENTION_LAB_CACHE_GB). It needs
ATTENTION_LAB_REDIS_URL. It also trains the films of "Watch it learn" (classroom/films/rq_job.py)
from their own queue, which it takes first: a film is seconds of work, a render minutes.

Worker settings, and why:
- a job whose worker dies (killed, out of memory, its machine gone) is re-queued by RQ once its
  heartbeat lapses and a worker's maintenance finds it (the lab enqueues it with `Retry`). RQ's
  defaults take up to 10 minutes for that; here the worker beats every JOB_MONITORING_S (5 s), a
  job counts as abandoned HEARTBEAT_MARGIN_S (15 s; RQ's own margin is 60 s) after the last beat,
  and idle workers look every MAINTENANCE_S (5 s; WORKER_TTL 20 s makes them wake every 5 s): a
  killed worker's job starts again within about 20-30 s;
- the render (the work horse RQ forks for each job) dies with its worker (PR_SET_PDEATHSIG), so
  no render outlives the hall or runs twice at once;
- when Redis restarts or does not answer, the worker lets a render in progress finish (its video
  still lands on disk), waits for Redis and starts again; it never exits for that.

Tests only: ATTENTION_LAB_TEST_RENDER=module:function renders with that function (the signature
of animations.render.render) instead of manim.
"""

import ctypes
import importlib
import logging
import os
import signal
import socket
import sys
import time

from rq import Queue, Worker, get_current_job
from rq.serializers import JSONSerializer

from animations.backend import cap_bytes, media_dir
from animations.cache_index import CacheIndex
from animations.render import DEFAULT_TIMEOUT, RenderError, code_version, render
from animations.rq_service import CRASHED, QUEUE
from animations.voice import Voice
from classroom.films.rq_service import QUEUE as FILM_QUEUE
from classroom.redis_client import REDIS_URL_ENV, UNAVAILABLE, connect

log = logging.getLogger("animations.rq_worker")

WORKER_TTL_S = 20
JOB_MONITORING_S = 5
MAINTENANCE_S = 5
HEARTBEAT_MARGIN_S = 15
TEST_RENDER_ENV = "ATTENTION_LAB_TEST_RENDER"


def render_job(scene: str, cfg_json: str, quality: str, key: str, voice: dict | None) -> str:
    """One render, in the work horse. Returns the video's path; a failure is told in job.meta
    ('error', 'log') and returned as '' (manim failing again would not help: no retry)."""
    job = get_current_job()
    _meta(job, done=0, total=0, error="", log="")  # a retried job starts its progress again
    progress = lambda done, total: _meta(job, done=done, total=total)  # noqa: E731
    try:
        movie = render_function()(scene, cfg_json, quality, on_progress=progress, timeout=DEFAULT_TIMEOUT,
                                  media_dir=media_dir(), voice=Voice(**voice) if voice else None)
    except RenderError as err:
        log.warning("Render %s failed: %s", key, str(err).split("\n")[0])
        return _failed(job, str(err).split("\n")[0], err.log)
    except OSError as err:  # the disk: full, read-only, a folder removed under us
        log.exception("Render %s could not be written", key)
        return _failed(job, f"The video could not be saved ({err.strerror or err}).")
    except Exception:  # a bug: the traceback goes to this worker's log, a sentence to the page
        log.exception("Render %s crashed", key)
        return _failed(job, CRASHED)
    if movie.parent.name != key:
        return _failed(job, "The render worker runs another version of the lab than the page that asked (or "
                       "cannot narrate there); restart the hall so that all its processes run the same code.")
    _keep_in_cache(movie)
    return str(movie)


def _meta(job, **fields):
    """Progress for the pages; best effort (a Redis restart must not fail the render itself)."""
    job.meta.update(fields)
    try:
        job.save_meta()
    except UNAVAILABLE:
        pass


def _failed(job, error: str, manim_log: str = "") -> str:
    _meta(job, error=error, log=manim_log)
    return ""


def _keep_in_cache(movie):
    try:
        index = CacheIndex(movie.parent.parent, cap_bytes())
        index.touch(movie.parent)
        index.evict(keep={movie.parent.name})
    except (OSError, ValueError):
        log.exception("Cache bookkeeping failed after a good render of %s (the video is kept)", movie.parent.name)


class RenderWorker(Worker):
    """RQ's forking worker, with a shorter heartbeat margin and a horse that dies with it."""

    stopping = False

    def get_heartbeat_ttl(self, job) -> int:
        return super().get_heartbeat_ttl(job) - 60 + HEARTBEAT_MARGIN_S  # RQ adds 60 s to the beat

    def main_work_horse(self, job, queue):
        if sys.platform == "linux":
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
            if os.getppid() != self.parent_pid:  # the worker died before prctl: so does the render
                os._exit(1)
        super().main_work_horse(job, queue)

    def request_stop(self, signum, frame):
        self.stopping = True  # SIGTERM / Ctrl+C: the supervisor stops us; not a Redis failure
        super().request_stop(signum, frame)


def wait_for_redis(url: str):
    client, pause = connect(url), 0.5
    while True:
        try:
            client.ping()
            return
        except UNAVAILABLE as err:
            log.warning("Redis does not answer (%s); trying again in %.0f s", err, pause)
            time.sleep(pause)
            pause = min(5.0, pause * 2)


def render_function():
    """animations.render.render; where TEST_RENDER_ENV names one (tests only), that function instead."""
    name = os.environ.get(TEST_RENDER_ENV)
    if not name:
        return render
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def work(url: str) -> bool:
    """One worker's life, until a stop (True) or a Redis failure (False)."""
    connection = connect(url)
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in (FILM_QUEUE, QUEUE)]
    worker = RenderWorker(queues, connection=connection,
                          name=f"{os.environ.get('ATTENTION_LAB_PROCESS', 'render')}-{socket.gethostname()}-"
                          f"{os.getpid()}-{time.time_ns() % 10**6}", serializer=JSONSerializer,
                          worker_ttl=WORKER_TTL_S, maintenance_interval=MAINTENANCE_S,
                          job_monitoring_interval=JOB_MONITORING_S)
    worker.parent_pid = os.getpid()
    try:
        worker.work(logging_level="INFO")
    except UNAVAILABLE as err:
        log.warning("Lost Redis (%s)", err)
    if worker.horse_pid:  # lost Redis mid-render: let the render finish; its video lands on disk
        worker.wait_for_horse()
    return worker.stopping


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    url = os.environ.get(REDIS_URL_ENV)
    if not url:
        print(f"{REDIS_URL_ENV} is not set: a render worker serves the hall's queue in Redis.", file=sys.stderr)
        return 2
    if os.environ.get(TEST_RENDER_ENV):
        log.warning("Rendering with %s, not manim (%s is set: tests only)", render_function(), TEST_RENDER_ENV)
    code_version()  # once, before any fork: every render of this worker is named by the code it started with
    media_dir().mkdir(parents=True, exist_ok=True)
    while True:
        wait_for_redis(url)
        if work(url):
            return 0


if __name__ == "__main__":
    sys.exit(main())
