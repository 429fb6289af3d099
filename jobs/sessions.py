"""Jobs whose sessions have all gone are cancelled, in both backends: how they are found.

The server says how to tell a session that is still there (`watch_sessions(alive)`: the dashboard
gives the Streamlit runtime's word, dashboard/devices.py); the queues made afterwards look every
SWEEP_S and stop a job none of whose sessions has been alive for GRACE_S (a websocket's reconnect,
a reload whose new tab polls the job and so waits for it too). A job for everyone (session "") is
never stopped for its sessions.

- In-process (local.py): the queue asks `alive` about its jobs' sessions.
- In a hall (rq_queue.py, `Marks`): each lab process renews, every SWEEP_S, a Redis key per session
  it serves that is still alive (it expires after GRACE_S), and cancels the hall's admitted jobs
  none of whose sessions has a key: a job asked for from a lab process that died goes too. A
  process that cannot tell (a script, a tool: no `alive`) marks its sessions for UNKNOWN_S.
"""

import logging
import threading
import time

log = logging.getLogger(__name__)
SWEEP_S = 2.0  # how often the sessions of active jobs are looked at
GRACE_S = 10.0  # a job is cancelled once none of its sessions has been alive for this long
ALIVE = "attention-lab:alive:"  # + session: present while a lab process serves that live session
UNKNOWN_S = 3600  # the mark of a session whose process cannot tell whether it is alive
_ALIVE = []  # the server's alive(session), once it said (watch_sessions)


def watch_sessions(alive):
    """The server says how to tell a session that is still there; the queues made afterwards use it."""
    _ALIVE[:] = [alive]


def session_check():
    """The alive(session) the server gave (None: none; jobs are never cancelled for their sessions)."""
    return _ALIVE[0] if _ALIVE else None


def asked(alive, session: str) -> bool:
    """alive(session); a failure of it keeps the job (a bug there must not cancel work)."""
    try:
        return bool(alive(session))
    except Exception:
        log.exception("alive(%s) failed", session[:12])
        return True


def sweep_forever(queue, errors: tuple = ()):
    """A daemon thread that calls `queue.sweep()` every SWEEP_S until the queue is closed. No failure
    of one sweep ends it: a thread that died would leave every later job of a closed tab running."""
    def loop():
        while not queue.closed:
            time.sleep(SWEEP_S)
            if queue.closed:
                return
            try:
                queue.sweep()
            except errors:
                pass  # Redis restarts: the next sweep renews the marks
            except Exception:  # e.g. redis-py's reader torn down under a read while Redis restarts
                log.exception("a sweep of the %s queue failed; the next one runs in %s s", queue.task.name, SWEEP_S)

    threading.Thread(target=loop, name=f"{queue.task.name}-sweep", daemon=True).start()


class Marks:
    """The hall's marks of live sessions in Redis (see the module's doc), for one lab process."""

    def __init__(self, redis, alive, grace_s: float):
        self.redis, self.alive, self.ttl = redis, alive, max(1, round(grace_s))
        self.served: set[str] = set()  # sessions of this process that asked for or follow a job

    def mark(self, session: str):
        """A session of this process asks for or follows a job. Where no one says which sessions are alive
        (a script, a test, a tool), its mark lasts UNKNOWN_S: the hall's sweeps must not cancel its jobs."""
        if not session:
            return
        if self.alive is None:
            self.redis.set(ALIVE + session, "1", ex=UNKNOWN_S)
            return
        self.served.add(session)
        self.redis.set(ALIVE + session, "1", ex=self.ttl)

    def renew(self):
        for session in list(self.served):
            if asked(self.alive, session):
                self.redis.set(ALIVE + session, "1", ex=self.ttl)
            else:
                self.served.discard(session)

    def gone(self, sessions: set[str]) -> bool:
        """Whether none of these sessions is marked (a job for everyone, "", never is gone)."""
        return bool(sessions) and "" not in sessions and not any(self.redis.exists(ALIVE + s) for s in sessions)


def sweep_local(queue):
    """The in-process queue's sweep: a job's sessions are asked outside its lock (the server answers)."""
    with queue._lock:
        jobs = [(job, set(job.requesters)) for job in queue._jobs.values() if job.active and not job.stop]
    now = queue.clock()
    for job, sessions in jobs:
        if "" in sessions or not sessions:
            continue  # a job for everyone
        there = any(asked(queue.alive, session) for session in sessions)
        with queue._lock:
            if there or job.requesters - sessions:
                job.gone_since = None
            elif job.gone_since is None:
                job.gone_since = now
            elif now - job.gone_since >= queue.grace_s and job.active:
                log.info("%s %s: its sessions have gone; stopped", queue.task.name, job.key)
                queue._stop(job, queue.task.words.abandoned)
