"""One hall on one machine: Redis, N lab processes, HAProxy in front, render workers if any.

Every lab process is `python -m dashboard.serve` (`streamlit run dashboard/app.py` with the fix
that lets a page moved to it by a failover work: dashboard/serve.py) as `make classroom` starts it
(no file watcher), but on a loopback port of its own; only HAProxy listens on the classroom's address.
What each lab process receives in its environment:

- ATTENTION_LAB_REDIS_URL  redis://:<password>@127.0.0.1:<port>/0, the hall's Redis: where what
  the processes share (renders, rooms) is kept; without it the lab keeps all of it in-process;
- ATTENTION_LAB_MEDIA      the one media folder they share (renders are renamed into place);
- ATTENTION_LAB_PROCESS    its name in the hall (lab1, lab2, ...: HAProxy's server and cookie);
- ATTENTION_LAB_TRUSTED_PROXIES  HAProxy's address as the lab sees it (PROXY_ADDRESS: it connects to the
  labs' loopback ports from 127.0.0.1), so the lab reads the client's address from the X-Forwarded-For
  that HAProxy writes, and from no one else (classroom/rooms/clients.py);
- STREAMLIT_SERVER_COOKIE_SECRET  one secret for all, as Streamlit asks of replicas.

Render workers: the hall runs `--render-workers` processes of `python -m jobs.worker` (WORKER_ARGV:
the films' queue first, then the renders') with the same Redis URL and media folder, and restarts
them like the labs. Given the Redis URL, each lab process queues its renders and films there
(animations/service.py and classroom/films/service.py pick the RQ service) and runs none itself.
"""

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from classroom.films.trainer import OMP_WAIT_POLICY
from classroom.rooms.clients import TRUSTED_PROXIES_ENV
from dashboard.serve import free_port, listens

from . import haproxy, redis_server
from .supervisor import Child, Supervisor

ROOT = Path(__file__).resolve().parents[1]
# The worker and the tasks it serves, in order: a film is seconds of work, a render minutes.
WORKER_ARGV = ["-m", "jobs.worker", "classroom.films.task:worker_task", "animations.service:worker_task"]
PROGRAMS = {"haproxy": "haproxy", "redis-server": "redis-server", "redis-cli": "redis-tools"}  # -> Debian package
PROXY_ADDRESS = "127.0.0.1"  # HAProxy's source address towards the lab processes' loopback ports
STREAMLIT_FLAGS = ["--server.headless", "true", "--server.fileWatcherType", "none",
                   "--browser.gatherUsageStats", "false"]


def default_workers() -> int:
    """Lab processes by default: one per core but one (left for HAProxy, Redis and renders), at least 2."""
    return max(2, (os.cpu_count() or 2) - 1)


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


class Hall:
    def __init__(self, workers: int, bind: str, port: int, run_dir: Path, media: Path, render_workers: int,
                 say=print):
        self.workers, self.bind, self.port = workers, bind, port
        self.run_dir, self.media, self.render_workers = run_dir, media, render_workers
        self.sup = Supervisor(say)
        self.sup.on_restart = lambda child: self.write_info()
        self.password = redis_server.new_password()
        self.redis_port = free_port()
        self.labs: list[tuple[Child, int]] = []

    @property
    def redis_url(self) -> str:
        return redis_server.redis_url(self.password, self.redis_port)

    def shared_env(self) -> dict[str, str]:
        return {"ATTENTION_LAB_REDIS_URL": self.redis_url, "ATTENTION_LAB_MEDIA": str(self.media)}

    def start(self):
        """Everything, in order; returns once the proxy answers (raises if a part does not come up)."""
        missing = [f"{prog} (Debian package {pkg})" for prog, pkg in PROGRAMS.items() if not shutil.which(prog)]
        if missing:
            raise FileNotFoundError(f"not installed: {', '.join(missing)}. `make system` installs them.")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.run_dir.chmod(0o700)  # logs, the rendered configuration and hall.json (the Redis password)
        (self.run_dir / "hall.json").unlink(missing_ok=True)  # written again once this hall is up
        self.media.mkdir(parents=True, exist_ok=True)
        self._start_redis()
        self._start_labs()
        self._start_proxy()
        self._start_render_workers()
        self.write_info()

    def _start_redis(self):
        redis = self.sup.add(Child("redis", ["redis-server", "-"], self.run_dir / "redis.log", last=True,
                                   stdin=redis_server.redis_config(self.password, self.redis_port).encode()))
        redis_server.wait_ready(redis.proc, self.password, self.redis_port)

    def _start_labs(self):
        env = {**self.shared_env(), "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32),
               TRUSTED_PROXIES_ENV: PROXY_ADDRESS}
        for i in range(1, self.workers + 1):
            port = free_port()
            argv = [sys.executable, "-m", "dashboard.serve", "--server.address", "127.0.0.1",
                    "--server.port", str(port), *STREAMLIT_FLAGS]
            child = Child(f"lab{i}", argv, self.run_dir / f"lab{i}.log", {**env, "ATTENTION_LAB_PROCESS": f"lab{i}"},
                          cwd=ROOT)
            self.labs.append((self.sup.add(child), port))
        deadline = time.monotonic() + 120
        for child, port in self.labs:
            # Up means answering on its port from its own socket: HAProxy must never route a lab's
            # students to some other server that took the port.
            while not (healthy(f"http://127.0.0.1:{port}") and listens(child.proc.pid, port)):
                if not child.alive or time.monotonic() > deadline:
                    raise RuntimeError(f"{child.name} did not start on port {port}: see {child.log}")
                time.sleep(0.3)

    def _start_proxy(self):
        backends = [haproxy.Backend(child.name, "127.0.0.1", port) for child, port in self.labs]
        cfg = self.run_dir / "haproxy.cfg"
        cfg.write_text(haproxy.render(backends, self.bind, self.port), encoding="utf-8")
        check = subprocess.run(["haproxy", "-c", "-q", "-f", str(cfg)], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"HAProxy refused its configuration:\n{check.stdout}{check.stderr}")
        proxy = self.sup.add(Child("haproxy", ["haproxy", "-db", "-f", str(cfg)], self.run_dir / "haproxy.log"))
        deadline = time.monotonic() + 20
        while not healthy(f"http://127.0.0.1:{self.port}"):
            if not proxy.alive or time.monotonic() > deadline:
                raise RuntimeError(f"HAProxy did not start on {self.bind}:{self.port}: see {proxy.log}")
            time.sleep(0.1)

    def _start_render_workers(self):
        for i in range(1, self.render_workers + 1):
            argv = [sys.executable, *WORKER_ARGV]
            # They also train films; OpenMP threads that sleep at a barrier (classroom/films/trainer.py says why).
            env = {"OMP_WAIT_POLICY": OMP_WAIT_POLICY, **self.shared_env(), "ATTENTION_LAB_PROCESS": f"render{i}"}
            self.sup.add(Child(f"render{i}", argv, self.run_dir / f"render{i}.log", env, cwd=ROOT))

    def info(self) -> dict:
        """What a person (or a test, or the load benchmark) needs to find the hall's parts."""
        return {"url": f"http://{'127.0.0.1' if self.bind == '0.0.0.0' else self.bind}:{self.port}",
                "bind": self.bind, "port": self.port, "redis_url": self.redis_url,
                "processes": {c.name: c.proc.pid for c in self.sup.children if c.alive},
                "labs": {child.name: port for child, port in self.labs}, "run_dir": str(self.run_dir)}

    def write_info(self):
        path = self.run_dir / "hall.json"
        tmp = path.with_suffix(".tmp")
        tmp.touch(mode=0o600)
        tmp.write_text(json.dumps(self.info(), indent=1), encoding="utf-8")
        os.replace(tmp, path)
