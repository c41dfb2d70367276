"""The Redis cache, failing fast and in one recognisable way when Redis is away.

Django's Redis backend inherits redis-py's defaults: no socket timeouts (a paused Redis
hangs a request until the proxy gives up). Here every command has short socket timeouts,
and after a failure the cache is skipped for ``BREAKER_SECONDS``, so a page that renders
twenty Markdown fragments pays for one timeout, not twenty.

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

**Reads kept in each thread, invalidated by Redis** (``client_cache_entries`` in the
cache's OPTIONS; the settings give 256, ``REDIS_CLIENT_CACHE_ENTRIES``, 0 turns it off):
redis-py's client-side caching over Redis's client tracking (RESP3). A ``GET`` or ``MGET``
reply is kept, and Redis pushes an invalidation down the connection that read a key when
anyone writes, deletes, flushes or removes it; before answering from a kept reply,
redis-py reads what is pending on that connection. A signed-in page's first read (its
session and the reader's row, ``inferview.accounts.sessions``) then costs no round trip
while neither changes, and a session signed out elsewhere is gone for this thread once
the push arrives (Redis writes it in the same pass of its event loop as its reply to the
sign-out). What bounds the rest:

- **each thread has its own pool and its own kept replies**: redis-py's client-side
  cache is not safe when threads share a pool (a hit drains the connection that made the
  copy, which another thread may be reading: redis-py#4306). Django already gives each
  thread its own cache backend (gunicorn's gthread workers run several); the pools are
  per thread here too, so a backend shared between threads is safe as well. A process
  forked afterwards builds its own.
- **no kept reply is older than ``KEPT_SECONDS``** (5 s): Redis pushes an expired key
  only when it removes it (on access, or by an expiry cycle that can take minutes on a
  large keyspace), and a connection that breaks without closing would keep its copies.
  Every time bound the cache's users state (a session's cached copy, a reader's row, a
  reader's page copy) holds with up to this much added.
- **replies over ``KEPT_BYTES``** (64 KB) are not kept, and a thread keeps at most
  ``client_cache_entries`` replies: 16 MB a thread at worst, a few MB in practice.
- **any disconnect drops the thread's kept replies**, whichever layer of redis-py made it.
- **the server is asked what it is once per backend** (redis-py's test: its HELLO names
  Redis, and here 7.0.10 or later), with the pool's own options: otherwise, or if it
  refuses, the pools are plain ones. redis-py itself refuses below 7.4, a floor set for Redis's hosted
  products; the open-source server has RESP3 tracking since 6.0, its protocol fixes are
  all in 7.0.10, and Debian 12 ships 7.0.15 (what ``tests/ops/test_client_tracking.py``
  runs against). ``TrackingPool`` lowers redis-py's floor accordingly.

Redis keeps a table of the keys each tracking connection read (misses included) until
they change; ``tracking-table-max-keys`` bounds it (compose.yaml sets 100,000).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
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


TRACKING_MIN_VERSION = (7, 0, 10)  # RESP3 tracking's protocol fixes are in 7.0.10
#: no kept reply is older than this: Redis pushes an expired key only once it removes it
#: (on access, or by its expiry cycle, which on a large keyspace can take minutes), and a
#: connection that broke without a disconnect would otherwise keep its copies
KEPT_SECONDS = 5.0
#: replies larger than this are not kept (a page copy is 15 KB in the median, 112 KB at
#: most), so a thread's copies weigh at most entries x this
KEPT_BYTES = 64 * 1024


def _reply_bytes(value: Any) -> int:
    if isinstance(value, bytes | str):
        return len(value)
    if isinstance(value, list | tuple):
        return sum(_reply_bytes(v) for v in value)
    return 16


def _kept_classes() -> tuple[type, type]:
    from redis import ConnectionPool
    from redis.cache import CacheEntryStatus, DefaultCache
    from redis.connection import CacheProxyConnection

    class KeptReplies(DefaultCache):
        """redis-py's LRU of replies, with an age bound and a size bound per reply.

        Old replies are dropped in one place, ``expire``, which ``TrackingPool``'s
        connections call before sending each command: redis-py looks an entry up several
        times while it answers one command, and an entry must not vanish in between.
        ``expire`` also drops the placeholder a command that failed left behind (redis-py
        marks a key "in progress" when it sends the read, and only a reply clears it)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._born: OrderedDict[Any, float] = OrderedDict()
            self._pending: set[Any] = set()

        def set(self, entry: Any) -> bool:
            key = entry.cache_key
            if entry.status == CacheEntryStatus.IN_PROGRESS:
                self._pending.add(key)
            else:
                self._pending.discard(key)
                if _reply_bytes(entry.cache_value) > KEPT_BYTES:
                    self._cache.pop(key, None)  # its placeholder
                    self._born.pop(key, None)
                    return False
            self._born[key] = time.monotonic()
            self._born.move_to_end(key)
            return bool(super().set(entry))

        def expire(self) -> None:
            for key in self._pending:  # nothing of this thread's is in flight now
                self._cache.pop(key, None)
            self._pending.clear()
            limit = time.monotonic() - KEPT_SECONDS
            born = self._born
            while born:
                key, at = next(iter(born.items()))
                if at > limit:
                    break
                born.popitem(last=False)
                self._cache.pop(key, None)
            if len(born) > 2 * len(self._cache) + 64:  # keys invalidated or evicted since
                self._born = OrderedDict((k, t) for k, t in born.items() if k in self._cache)

    class TrackingPool(ConnectionPool):
        def make_connection(self) -> Any:
            connection = super().make_connection()
            if isinstance(connection, CacheProxyConnection):
                # redis-py refuses below 7.4 (its hosted products' floor); the client
                # checks the version itself first (FailFastRedisCacheClient._tracking)
                connection.MIN_ALLOWED_VERSION = "7.0.10"
                # redis-py drops the kept replies when the proxy disconnects, but some
                # read errors disconnect the connection beneath it: drop them then too
                raw, cache = connection._conn, self.cache
                real_disconnect = raw.disconnect

                def disconnect(*args: Any, **kwargs: Any) -> Any:
                    cache.flush()
                    return real_disconnect(*args, **kwargs)

                raw.disconnect = disconnect
                kept = getattr(cache, "_cache", cache)  # the KeptReplies behind the proxy
                real_send = connection.send_command

                def send_command(*args: Any, **kwargs: Any) -> Any:
                    kept.expire()
                    return real_send(*args, **kwargs)

                connection.send_command = send_command
            return connection

    return KeptReplies, TrackingPool


KeptReplies, TrackingPool = _kept_classes()


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
        options.setdefault("socket_connect_timeout", DEFAULT_SOCKET_TIMEOUT)
        options.setdefault("socket_timeout", DEFAULT_SOCKET_TIMEOUT)
        super().__init__(servers, **options)
        self.breaker = _Breaker()
        self._clients: dict[bool, tuple[Any, Any]] = {}
        self._tracked_options: dict[str, Any] | None = None
        if entries:
            from redis.cache import CacheConfig

            config = CacheConfig(max_size=entries, cache_class=KeptReplies)
            self._tracked_options = {**self._pool_options, "protocol": 3, "cache_config": config}
        self._local = threading.local()
        self._tracks: dict[int, bool] = {}  # per server, once its version is known

    def _tracking(self, index: int) -> bool:
        """Whether server ``index`` can track: redis-py's own test (the server's HELLO
        names Redis, 7.0.10 or later here), asked once per backend with the pool's own
        options. Refused (an old server, a proxy, an ACL): plain connections. Unreachable:
        the error propagates (the breaker's), and the question is asked again."""
        if index not in self._tracks:
            exceptions = self._lib.exceptions
            probe = self._pool_class.from_url(
                self._servers[index], **{**self._pool_options, "protocol": 3}
            )
            try:
                meta = probe.get_connection().handshake_metadata or {}
                name = meta.get(b"server", meta.get("server", b""))
                version = meta.get(b"version", meta.get("version", b""))
            except (exceptions.ConnectionError, exceptions.TimeoutError):
                raise
            except exceptions.RedisError:
                name, version = b"", b""
            finally:
                probe.disconnect()
            name = name.decode() if isinstance(name, bytes) else str(name)
            version = version.decode() if isinstance(version, bytes) else str(version)
            parts = tuple(int(p) for p in version.split(".")[:3] if p.isdigit())
            self._tracks[index] = name == "redis" and parts >= TRACKING_MIN_VERSION
        return self._tracks[index]

    def _get_connection_pool(self, write: bool) -> Any:
        """With tracking, each thread has its own pool (and its own kept replies):
        redis-py's client-side cache is not safe when threads share a pool (a hit drains
        the connection that made the copy, which another thread may be reading from:
        redis-py#4306), and gunicorn's gthread workers run several threads."""
        if self._tracked_options is None:
            return super()._get_connection_pool(write)
        local = self._local
        if getattr(local, "pid", None) != os.getpid():  # forked: nothing of the parent's
            local.pid, local.pools = os.getpid(), {}
        index = self._get_connection_pool_index(write)
        pool = local.pools.get(index)
        if pool is None:
            if self._tracking(index):
                pool = TrackingPool.from_url(self._servers[index], **self._tracked_options)
            else:
                pool = self._pool_class.from_url(self._servers[index], **self._pool_options)
            local.pools[index] = pool
        return pool

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """One client per connection pool, made once: Django builds a new ``redis.Redis``
        for every command, which a page that reads its session, its content version and
        itself pays for three times. A client over a shared pool is safe across threads;
        with tracking, each thread has its own pool and client (``_get_connection_pool``).

        No retry of our own: redis-py applies ``retry=`` only to a pool it builds itself,
        so these connections keep its default, no retry, and an error closes the
        connection (dropping its kept replies). A pool without tracking also replaces a
        pooled connection the server closed before using it; a tracked one cannot tell
        that from a pending invalidation, so after a Redis restart its first command
        fails and the breaker skips the cache for ``BREAKER_SECONDS``."""
        if self._tracked_options is not None:
            local = self._local
            made = getattr(local, "clients", None)
            if made is not None and local.pid == os.getpid():
                client = made.get(write)
                if client is not None:
                    return client
            pool = self._get_connection_pool(write)  # (re)sets local.pid and its pools
            if getattr(local, "clients_pid", None) != local.pid:
                local.clients_pid, local.clients = local.pid, {}
            # one server (pool index 0) is all the settings configure; with several,
            # reads would pick a pool at random and the client is not kept
            client = self._client(connection_pool=pool)
            if len(self._servers) == 1:
                local.clients[write] = client
            return client
        pool = self._get_connection_pool(write)
        made = self._clients.get(write)
        if made is not None and made[0] is pool:
            return made[1]
        client = self._client(connection_pool=pool)
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
