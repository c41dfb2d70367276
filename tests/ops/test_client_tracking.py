"""The shared cache's reads kept in each process, invalidated by Redis itself.

With ``client_cache_entries`` the cache's connections turn on Redis's client tracking
(RESP3): a read is kept in the process, and Redis pushes an invalidation to every
process holding a key when anyone writes, deletes, expires or flushes it. These tests run
two caches (two processes' worth of connections) against a real redis-server of their own
and check that a repeated read does not reach the server, that every kind of change made
elsewhere is seen, that a restarted server never serves what the old one held, and that
a session signed out by another process is not accepted here.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
import redis as redis_lib

from inferview.cache import CacheUnavailable, FailFastRedisCache

pytestmark = [pytest.mark.postgres]

#: how long an invalidation may take to arrive: Redis writes it in the same event-loop
#: pass as the writer's own reply, so on loopback it is there before the next command
ARRIVAL = 0.05


def _cache(url: str, entries: int = 100) -> FailFastRedisCache:
    options = {"client_cache_entries": entries} if entries else {}
    return FailFastRedisCache(url, {"OPTIONS": options})


def _calls(server_url: str, command: str) -> int:
    stats = redis_lib.Redis.from_url(server_url).execute_command("INFO", "commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


def _seen_within(read: Callable[[], object], expected: object) -> float:
    """Seconds until ``read()`` returns ``expected`` (fails after ``ARRIVAL``)."""
    started = time.monotonic()
    while time.monotonic() - started < ARRIVAL:
        if read() == expected:
            return time.monotonic() - started
    pytest.fail(f"still {read()!r} {ARRIVAL} s after the change, expected {expected!r}")


@pytest.fixture
def server(redis_server):
    redis_lib.Redis.from_url(redis_server.url).flushall()
    redis_lib.Redis.from_url(redis_server.url).config_resetstat()
    return redis_server


def test_a_repeated_read_is_answered_in_the_process(server):
    tracked, plain = _cache(server.url), _cache(server.url, entries=0)
    tracked.set_many({"a": 1, "b": {"x": "y"}})
    for cache in (tracked, plain):
        before = _calls(server.url, "mget")
        for _ in range(5):
            assert cache.get_many(["a", "b", "missing"]) == {"a": 1, "b": {"x": "y"}}
        cache.reads = _calls(server.url, "mget") - before
    assert (tracked.reads, plain.reads) == (1, 5)


def test_writes_deletes_and_flushes_elsewhere_are_seen(server):
    here, elsewhere = _cache(server.url), _cache(server.url)
    here.set("k", "first")
    assert here.get("k") == "first" and here.get("k") == "first"  # now kept here

    elsewhere.set("k", "second")
    _seen_within(lambda: here.get("k"), "second")
    elsewhere.delete("k")
    _seen_within(lambda: here.get("k"), None)

    elsewhere.set("k", "third")
    assert here.get_many(["k"]) == {"k": "third"}
    redis_lib.Redis.from_url(server.url).flushdb()  # not even through Django
    _seen_within(lambda: here.get_many(["k"]), {})


def test_an_expired_key_is_not_served_after_redis_removes_it(server):
    here = _cache(server.url)
    here.set("short", "lived", timeout=1)
    assert here.get("short") == "lived" and here.get("short") == "lived"
    time.sleep(1.1)  # the key's own lifetime, not a race
    # Redis removes an expired key when it is next touched (here) or by its expiry
    # cycle, and pushes the invalidation then; KEPT_SECONDS bounds the wait otherwise.
    assert redis_lib.Redis.from_url(server.url).get(here.make_key("short")) is None
    _seen_within(lambda: here.get("short"), None)


def test_kept_replies_age_out_and_large_ones_are_not_kept(monkeypatch):
    """Without Redis: the age bound (an expiry Redis has not yet pushed, a connection that
    broke without closing) and the size bound of inferview.cache.KeptReplies."""
    from redis.cache import CacheConfig, CacheEntry, CacheEntryStatus, CacheKey

    from inferview import cache as module

    now = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    kept = module.KeptReplies(CacheConfig(max_size=10))

    def entry(name: str, value: object) -> CacheEntry:
        key = CacheKey(command="GET", redis_keys=(name,), redis_args=("GET", name))
        return CacheEntry(
            cache_key=key, cache_value=value, status=CacheEntryStatus.VALID, connection_ref=None
        )

    small, large = entry("s", b"x" * 100), entry("l", [b"x" * module.KEPT_BYTES, b"y"])
    assert kept.set(small) and not kept.set(large)
    assert kept.get(small.cache_key) is small and kept.get(large.cache_key) is None
    now[0] += module.KEPT_SECONDS - 0.1
    kept.expire()
    assert kept.get(small.cache_key) is small
    now[0] += 0.2
    # only expire() drops it (before a command is sent), never a lookup in between
    assert kept.get(small.cache_key) is small
    kept.expire()
    assert kept.get(small.cache_key) is None and kept.size == 0
    # a placeholder a failed command left is dropped before the next command
    stuck = entry("p", None)
    stuck.status = CacheEntryStatus.IN_PROGRESS
    kept.set(stuck)
    kept.expire()
    assert kept.get(stuck.cache_key) is None


def test_an_error_reply_does_not_leave_the_next_read_waiting(server):
    """redis-py marks a read "in progress" until its reply; an error reply used to leave
    the mark, and the same read again waited out the socket timeout (then the breaker)."""
    here = _cache(server.url)
    redis_lib.Redis.from_url(server.url).lpush(here.make_key("listy"), "x")
    for _ in range(2):
        started = time.monotonic()
        with pytest.raises(redis_lib.exceptions.ResponseError):
            here.get("listy")  # WRONGTYPE
        assert time.monotonic() - started < 0.25
    assert here.get_many(["other"]) == {}  # and the cache still answers


def test_threads_sharing_the_cache_each_keep_their_own(server):
    """gunicorn's gthread workers: redis-py's kept replies are not safe across threads
    sharing a pool (one thread drains another's reply; redis-py#4306), so each thread has
    a pool of its own. Four threads reading the same keys and writing their own for a
    second and a half: no timeout, no wrong value."""
    import threading

    here = _cache(server.url)
    here.set_many({"session": "s", "reader": "r"})
    failures: list[BaseException] = []
    rounds = [0] * 4

    def work(n: int) -> None:
        deadline = time.monotonic() + 1.5
        try:
            while time.monotonic() < deadline:
                assert here.get_many(["session", "reader"]) == {"session": "s", "reader": "r"}
                here.set(f"own:{n}", rounds[n])
                assert here.get(f"own:{n}") == rounds[n]
                rounds[n] += 1
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and min(rounds) > 100, (failures[:3], rounds)


def test_a_read_timeout_drops_the_thread_s_kept_replies(server):
    """A command that times out closes its connection beneath redis-py's caching layer;
    the replies kept on it must go too, or a key deleted meanwhile (whose push went to
    the closed connection) would be served from the copy."""
    here, elsewhere = _cache(server.url), _cache(server.url)
    here.set("session", "alive")
    assert here.get("session") == "alive" and here.get("session") == "alive"
    client = here._cache.get_client()
    with pytest.raises(redis_lib.exceptions.TimeoutError):
        client.blpop(["nothing-comes"], timeout=1)  # longer than the 0.5 s socket timeout
    elsewhere.delete("session")
    assert here.get("session") is None


@pytest.mark.parametrize(
    "meta",
    [{b"server": b"redis", b"version": b"7.0.9"}, {b"server": b"valkey", b"version": b"8.0.1"}],
)
def test_a_server_redis_py_cannot_track_gets_plain_connections(server, monkeypatch, meta):
    from redis.connection import AbstractConnection

    real_connect = AbstractConnection.on_connect_check_health

    def on_connect(self, *args, **kwargs):  # the server's HELLO answer, as another's
        real_connect(self, *args, **kwargs)
        self.handshake_metadata = meta

    monkeypatch.setattr(AbstractConnection, "on_connect_check_health", on_connect)
    here = _cache(server.url)
    here.set("k", "v")
    before = _calls(server.url, "get")
    for _ in range(3):
        assert here.get("k") == "v"
    assert _calls(server.url, "get") - before == 3


def test_a_restarted_server_never_serves_what_the_old_one_held(server):
    here = _cache(server.url)
    here.set("k", "before the restart")
    assert here.get("k") == "before the restart"
    server.stop()
    server.start()  # empty: no persistence
    seen = []
    deadline = time.monotonic() + 5  # the breaker skips the cache for 2 s after a failure
    while time.monotonic() < deadline:
        try:
            seen.append(here.get("k"))
        except CacheUnavailable:
            time.sleep(0.05)  # polling while the breaker is open, not a race
            continue
        if seen[-1] is None:
            break
    assert seen and set(seen) == {None}


@pytest.mark.django_db
def test_a_session_signed_out_by_another_process_is_refused_here(
    server, settings, client, free_user
):
    settings.CACHES = {
        "default": {
            "BACKEND": "inferview.cache.FailFastRedisCache",
            "LOCATION": server.url,
            "OPTIONS": {"client_cache_entries": 100},
        },
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "t"},
    }
    client.force_login(free_user)
    for _ in range(2):  # the session and the reader's row are now kept in this process
        assert client.get("/accounts/email/").status_code == 200
    before = _calls(server.url, "mget")
    assert client.get("/accounts/email/").status_code == 200
    assert _calls(server.url, "mget") == before  # read here, not from Redis

    # Another process signs the session out: its row goes, then its key in Redis.
    from django.contrib.sessions.models import Session

    assert Session.objects.filter(session_key=client.cookies["sessionid"].value).delete()[0]
    assert client.get("/accounts/email/").status_code == 200  # still the copy kept here
    raw = redis_lib.Redis.from_url(server.url)
    keys = raw.keys("*django.contrib.sessions.cache*")
    assert len(keys) == 1 and raw.delete(*keys) == 1
    started = time.monotonic()
    while client.get("/accounts/email/").status_code == 200:
        assert time.monotonic() - started < ARRIVAL, "the signed-out session still reads"
    assert client.get("/accounts/email/").status_code == 302  # to the sign-in page
