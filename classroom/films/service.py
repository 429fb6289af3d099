"""The film service inside the lab (the laptop default): training runs in a trainer process, never in a page's.

The API the "Watch it learn" page codes against (RQFilmService in rq_service.py answers the same):

- `submit(settings, session) -> FilmJob`: identical settings share one job (thirty students
  pressing Train start one run); a film already on disk gives a done job at once. Limits: one
  training per session at a time, and at most `max_queued` films waiting in all; past them
  FilmQueueFull, with a sentence for the student (the real wait, estimated from the steps
  ahead). A request identical to a waiting or running one is never refused.
- `FilmJob`: `key`, `settings`, `state` ("queued" | "running" | "done" | "failed"), `step`,
  `total`, `losses` ([(step, loss)] so far: the live loss curve), `error` (one plain sentence
  once failed), `film()` (the Film once done, else None), `wait(timeout)`.
- `job(key)`, `cached(settings)` (the film on disk, or None), `cancel(key, session) -> bool`
  (a session lets go of its job; the training stops, True, when no other session waits for
  it), `queue_length()` (films waiting or training), `shutdown(wait=True)`.

How it runs: `workers` threads (default 1: a laptop has few cores, and a training uses 2
torch threads) each feed one trainer process (child.py: a fresh interpreter, started by exec,
that loads torch once and trains one film after another). Its progress comes back over a
socket that the thread reads (trainer.py says why not a file). Finished films land on disk
(store.py), survive a restart, and the cache stays under its cap. A failure is logged with its
traceback and reaches the page as one sentence.

Stopping: `shutdown()` terminates the trainer processes (SIGTERM, then SIGKILL) within
seconds; backend.service() calls it at interpreter exit. The threads are daemons, so a lab
stopped by Ctrl+C or SIGTERM never waits for a training; a killed lab takes its trainers with
it (child.py).
"""

import logging
import threading
from collections import OrderedDict, deque

from classroom.films import jobs
from classroom.films.jobs import BUSY, CRASHED, SHUTTING_DOWN, STOPPED, FilmJob, FilmQueueFull, killed, queue_full
from classroom.films.store import DEFAULT_CAP_BYTES, FilmStore
from classroom.films.trainer import Trainer
from core.film import Film, LearnSettings

log = logging.getLogger(__name__)

MAX_FINISHED_JOBS = 100  # finished jobs remembered (their films stay on disk); active ones always are


class FilmService:
    def __init__(self, media_dir="media", cap_bytes: int = DEFAULT_CAP_BYTES, workers: int = 1,
                 max_per_session: int = 1, max_queued: int = 4, trainer: str | None = None,
                 threads: int = jobs.THREADS, warm: bool = True):
        """`trainer`: "module:function" trained with (default core.learn:train); `warm`: start the
        trainer processes now, not with the first film (torch takes a second or two to load)."""
        self.media_dir, self.workers, self.threads = media_dir, workers, threads
        self.max_per_session, self.max_queued = max_per_session, max_queued
        self.trainer = trainer or jobs.trainer_name()
        self.store = FilmStore(media_dir, cap_bytes)
        self.seconds_per_step = jobs.DEFAULT_STEP_S  # the last measured training's, once there is one
        self.closed = False
        self._jobs: OrderedDict[str, FilmJob] = OrderedDict()  # least recently asked for first
        self._queue: deque[FilmJob] = deque()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._trainers: list[Trainer | None] = [None] * workers
        self._threads = [threading.Thread(target=self._feed, args=(i, warm), name=f"film-trainer-{i}", daemon=True)
                         for i in range(workers)]
        for thread in self._threads:
            thread.start()

    # -- what pages call -------------------------------------------------------------------------
    def submit(self, settings: LearnSettings, session: str = "") -> FilmJob:
        """The job of these settings: a running or finished one if there is one, else a new one.
        Raises FilmQueueFull past the limits (never for a film already waiting or training)."""
        if not isinstance(settings, LearnSettings):
            raise TypeError("submit takes LearnSettings")
        key = settings.key()
        with self._lock:
            if job := self._shared(key, session):
                return job
        on_disk = self.store.load(settings) is not None  # trained before, perhaps before a restart
        with self._lock:
            if job := self._shared(key, session):
                return job
            if on_disk:
                return self._done_job(settings)
            if self.closed:
                raise FilmQueueFull(SHUTTING_DOWN)
            self._check_limits(session)
            job = self._remember(FilmJob(key, settings, session, total=settings.steps, sessions={session},
                                         _store=self.store))
            self._queue.append(job)
            self._wake.notify()
        return job

    def job(self, key: str) -> FilmJob | None:
        """The job of this key: one this process knows, or a done one if its film is on disk."""
        with self._lock:
            if (job := self._jobs.get(key)) is not None:
                return job
        film = self.store.load_key(key)
        if film is None:
            return None
        with self._lock:
            return self._jobs.get(key) or self._done_job(film.settings)

    def cached(self, settings: LearnSettings) -> Film | None:
        return self.store.load(settings)

    def cancel(self, key: str, session: str = "") -> bool:
        """`session` no longer waits for this film; the training stops (True) if no other session does."""
        with self._lock:
            job = self._jobs.get(key)
            if job is None or not job.active or session not in job.sessions:
                return False
            job.sessions.discard(session)
            if job.session == session:
                job.session = ""  # its place is free again, whoever else waits
            if job.sessions:
                return False
            if job.state == "queued":
                self._queue.remove(job)
                job.end("failed", STOPPED)
            else:
                job._stop = True  # its thread tells the trainer process
            return True

    def queue_length(self) -> int:
        """Films waiting or training."""
        with self._lock:
            return sum(j.active for j in self._jobs.values())

    def shutdown(self, wait: bool = True):
        """Stop now: waiting films fail with a sentence, trainer processes are terminated."""
        with self._lock:
            self.closed = True
            for job in self._queue:
                job.end("failed", SHUTTING_DOWN)
            self._queue.clear()
            self._wake.notify_all()
        for trainer in list(self._trainers):
            if trainer is not None:
                trainer.kill()
        if wait:
            for thread in self._threads:
                thread.join(5)

    # -- bookkeeping (call with the lock) --------------------------------------------------------
    def _shared(self, key: str, session: str) -> FilmJob | None:
        job = self._jobs.get(key)
        if job is None or not (job.active or (job.state == "done" and self.store.has(key))):
            return None
        if job.active:
            job.sessions.add(session)
        self._jobs.move_to_end(key)
        return job

    def _done_job(self, settings: LearnSettings) -> FilmJob:
        job = FilmJob(settings.key(), settings, state="done", step=settings.steps, total=settings.steps,
                      _store=self.store)
        job.finished.set()
        return self._remember(job)

    def _remember(self, job: FilmJob) -> FilmJob:
        self._jobs[job.key] = job
        self._jobs.move_to_end(job.key)
        self._forget_old()
        return job

    def _forget_old(self):
        finished = [k for k, j in self._jobs.items() if not j.active]
        for key in finished[: max(0, len(finished) - MAX_FINISHED_JOBS)]:
            del self._jobs[key]

    def _check_limits(self, session: str):
        active = [j for j in self._jobs.values() if j.active]
        if session and sum(j.session == session for j in active) >= self.max_per_session:
            raise FilmQueueFull(BUSY)
        waiting = [j for j in active if j.state == "queued"]
        if len(waiting) >= self.max_queued:
            steps = sum(j.total - j.step for j in active)
            raise FilmQueueFull(queue_full(len(waiting), steps * self.seconds_per_step / self.workers))

    # -- the trainer threads ---------------------------------------------------------------------
    def _feed(self, slot: int, warm: bool):
        """One trainer thread: start its process (now if `warm`, else with the first film), then train
        the queued films one by one. PR_SET_PDEATHSIG ties the process to this thread: it lives as long."""
        if warm:
            try:
                self._trainer(slot)
            except OSError:
                log.exception("Could not start a film trainer process (the first film tries again)")
        while (job := self._next()) is not None:
            try:
                self._train(slot, job)
            except Exception:  # a bug here must not leave a page waiting forever
                log.exception("Training film %s failed in the service", job.key)
                job.end("failed", CRASHED)
            with self._lock:
                self._forget_old()
        if (trainer := self._trainers[slot]) is not None:
            trainer.kill()
            trainer.conn.close()

    def _next(self) -> FilmJob | None:
        with self._wake:
            while not self._queue and not self.closed:
                self._wake.wait()
            if self.closed:
                return None
            job = self._queue.popleft()
            job.state = "running"
            return job

    def _trainer(self, slot: int) -> Trainer | None:
        """This slot's trainer process, started afresh if it ended; None once the service is closed."""
        trainer = self._trainers[slot]
        if trainer is not None and trainer.alive():
            return trainer
        if trainer is not None:
            trainer.kill()
            trainer.conn.close()
        with self._lock:  # shutdown() kills what is in _trainers: a new one is either there or never started
            if self.closed:
                return None
            trainer = self._trainers[slot] = Trainer(self.trainer, self.media_dir, self.threads)
        return trainer

    def _train(self, slot: int, job: FilmJob):
        for _ in range(2):  # a second time if the process ended (idle) just as the film was sent
            if (trainer := self._trainer(slot)) is None:
                return job.end("failed", SHUTTING_DOWN)
            if trainer.train(job, lambda: self.closed):
                break
        else:
            job.end("failed", killed(trainer.proc.returncode))
        if job.state == "done":
            self.seconds_per_step = trainer.seconds_per_step or self.seconds_per_step
            try:
                self.store.evict(keep={job.key})
            except OSError:
                log.exception("Could not bring the film cache under its cap (the new film is kept)")
