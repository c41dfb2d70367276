"""The Redis cache, failing fast and in one recognisable way when Redis is away.

Django's Redis backend inherits redis-py's defaults: no socket timeouts (a paused Redis
hangs a request until the proxy gives up) and three retries with backoff on every
command. Here every command has short socket timeouts and at most one immediate retry
(on a dead pooled connection, not on a timeout), and after a
failure the cache is skipped for ``BREAKER_SECONDS``, so a page that renders twenty
Markdown fragments pays for one timeout, not twenty.

Every failure surfaces as ``CacheUnavailable``. Callers decide what it means:
- a read of something derived (rendered Markdown, a whole page, the content version)
  treats it as a miss and computes the value live;
- a counter that protects something (rate limits) cannot be skipped silently, so the
  request is refused with 503 and Retry-After (``inferview.outage``).

allauth's rate limiter guards each counter with a lock, ``cache.add(key + ":lock",
timeout=10)``, and answers 429 when it cannot take the lock within a second. A paused
Redis keeps a command in its socket buffer and runs it when it resumes, so the lock of a
sign-in that failed with 503 during the pause is set afterwards, held by nobody: for ten
seconds every sign-in from that address (or for that account) would get 429. Here those
locks live ``RATE_LIMIT_LOCK_MS`` instead, well inside the one-second wait; the critical
section they guard is one read and one write, a few milliseconds.

**Reads kept in the process, invalidated by Redis** (``client_cache_entries`` in the
cache's OPTIONS; the settings give 1,000, ``REDIS_CLIENT_CACHE_ENTRIES``): redis-py's
client-side caching over Redis's own client tracking (RESP3). A ``GET`` or ``MGET`` is
kept by the process that made it, and Redis pushes an invalidation down that process's
connection when anyone writes, deletes, expires or flushes a key it read; redis-py reads
pending invalidations before answering any read from its copy, and drops every copy when
its connection breaks. A signed-in page's first read (its session, the reader's row:
``inferview.accounts.sessions``) then costs no round trip while neither has changed, and
a session signed out elsewhere is gone for this process as soon as the push arrives (the
same event-loop pass of Redis that answers the sign-out). An expired key is pushed when
Redis removes it: on access, or by its expiry cycle, ten times a second. Each entry is a
whole reply (a page copy read with the session is one): the LRU bound keeps a process's
copies to the last ``client_cache_entries`` replies.

redis-py refuses client-side caching below Redis 7.4, a floor set for the compatibility
of Redis's hosted products; the open-source server has had RESP3 client tracking since
6.0, and Debian 12 ships 7.0. ``TrackingPool`` lowers that floor to 7.0, the version this
project's tests run the tracking tests against (``tests/ops/test_client_tracking.py``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

BREAKER_SECONDS = 2.0
DEFAULT_SOCKET_TIMEOUT = 0.5
RATE_LIMIT_LOCK_MS = 500


class CacheUnavailable(ConnectionError):
    """The shared cache could not be reached (or was skipped after a recent failure)."""


class _Breaker:
    def __init__(self) -> None:
        self._open_until = 0.0
        self._lock = threading.Lock()

    def check(self) -> None:
        if time.monotonic() < self._open_until:
            raise CacheUnavailable("cache skipped after a recent failure")

    def trip(self) -> None:
        with self._lock:
            self._open_until = time.monotonic() + BREAKER_SECONDS


def _tracking_pool_class() -> type:
    from redis import ConnectionPool
    from redis.connection import CacheProxyConnection

    class TrackingPool(ConnectionPool):
        def make_connection(self) -> Any:
            connection = super().make_connection()
            if isinstance(connection, CacheProxyConnection):
                connection.MIN_ALLOWED_VERSION = TRACKING_MIN_VERSION
            return connection

    return TrackingPool


TRACKING_MIN_VERSION = "7.0.0"
TrackingPool = _tracking_pool_class()


class FailFastRedisCacheClient(RedisCacheClient):
    _OPERATIONS = (
        "add",
        "get",
        "set",
        "touch",
        "delete",
        "get_many",
        "has_key",
        "incr",
        "set_many",
        "delete_many",
        "clear",
    )

    def __init__(self, servers: list[str], **options: Any) -> None:
        entries = options.pop("client_cache_entries", 0)
        if entries:
            from redis.cache import CacheConfig

            options.update(
                protocol=3, cache_config=CacheConfig(max_size=entries), pool_class=TrackingPool
            )
        options.setdefault("socket_connect_timeout", DEFAULT_SOCKET_TIMEOUT)
        options.setdefault("socket_timeout", DEFAULT_SOCKET_TIMEOUT)
        super().__init__(servers, **options)
        self.breaker = _Breaker()
        self._clients: dict[bool, tuple[Any, Any]] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """One client per connection pool, made once: Django builds a new ``redis.Redis``
        for every command, which a page that reads its session, its content version and
        itself pays for three times. A client over a shared pool is safe across threads.
        (A single-connection client would skip the pool's checks, about 40 µs a command,
        and with them the pool's replacing of a connection the server closed.)"""
        pool = self._get_connection_pool(write)
        made = self._clients.get(write)
        if made is not None and made[0] is pool:
            return made[1]
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # One immediate retry on a connection error only (a connection reset in the
        # middle of a command, as in a failover; redis-py already replaces a pooled
        # connection the server closed before using it). Timeouts are not retried: a
        # hung Redis costs one socket timeout, and the breaker handles the outage.
        retry = Retry(NoBackoff(), 1, supported_errors=(self._lib.exceptions.ConnectionError,))
        client = self._client(connection_pool=pool, retry=retry)
        self._clients[write] = (pool, client)
        return client

    def add(self, key: Any, value: Any, timeout: Any) -> bool:
        if isinstance(key, str) and ":allauth:rl:" in key and key.endswith(":lock"):
            client = self.get_client(key, write=True)
            value = self._serializer.dumps(value)
            return bool(client.set(key, value, px=RATE_LIMIT_LOCK_MS, nx=True))
        return bool(super().add(key, value, timeout))

    def __getattribute__(self, name: str) -> Any:
        attribute = super().__getattribute__(name)
        if name in FailFastRedisCacheClient._OPERATIONS:
            return _guarded(attribute, super().__getattribute__("breaker"), self._lib)
        return attribute


def _guarded(operation: Callable[..., Any], breaker: _Breaker, lib: Any) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        breaker.check()
        try:
            return operation(*args, **kwargs)
        except (lib.exceptions.ConnectionError, lib.exceptions.TimeoutError, OSError) as exc:
            breaker.trip()
            raise CacheUnavailable(str(exc)) from exc

    return call


class FailFastRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = FailFastRedisCacheClient

    def validate_key(self, key: str) -> None:
        """Nothing to check: Redis takes any key. Django's default warns about keys
        memcached would refuse, walking every character of every key in Python, which a
        signed-in page's five-key session read paid for on every request."""
