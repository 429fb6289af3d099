"""How the lab's processes talk to the hall's Redis (rooms, the job queues).

Short timeouts and few retries: when Redis is down or restarting a page learns it at once, when
it hangs within about four seconds (two tries of COMMAND_TIMEOUT_S), and says so in plain words
instead of hanging a student's screen. (redis-py's own defaults retry ten times with a growing
pause, and wait on a connection as long as the operating system does.)
"""

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.retry import Retry

REDIS_URL_ENV = "ATTENTION_LAB_REDIS_URL"
CONNECT_TIMEOUT_S = 1.0  # on loopback or a LAN a connection takes milliseconds
COMMAND_TIMEOUT_S = 2.0  # every command the lab sends is O(1) or O(room) on a small value
RETRIES = 1  # one quick retry covers a dropped pooled connection (e.g. after a Redis restart)
UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError)  # Redis down, restarting, loading or hung


def connect(url: str, **kwargs) -> redis.Redis:
    """A client for `url` (redis://:password@host:port/db) with the lab's timeouts; connects lazily."""
    retry = Retry(ExponentialWithJitterBackoff(cap=0.25, base=0.05), RETRIES)
    return redis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=COMMAND_TIMEOUT_S,
                                retry=retry, **kwargs)
