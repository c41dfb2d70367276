"""A Redis that is away, in-process: reads degrade to a miss, writes that need the cache
answer 503 with Retry-After quickly, and an unreachable database answers 503, not 500.

The cache here points at a port nothing listens on (Redis stopped). The fault tests
(test_faults.py) do the same against a real redis-server that is stopped and paused.
"""

import json
import time

import pytest
from django.core.cache import caches
from django.db import OperationalError

from inferview.cache import CacheUnavailable
from tests.factories import QuestionFactory

DEAD_REDIS = {
    "default": {
        "BACKEND": "inferview.cache.FailFastRedisCache",
        "LOCATION": "redis://127.0.0.1:9/0",
    },
    # each process's own memory, as the settings define it (empty: a process just started)
    "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "dead"},
}


@pytest.fixture
def dead_cache(settings):
    settings.CACHES = DEAD_REDIS
    yield caches["default"]


@pytest.fixture(autouse=True)
def _clear_cache():
    """Replaces the suite's autouse cache clearing, which would fail on the dead cache."""
    yield


def test_a_dead_cache_fails_fast_then_is_skipped_without_a_network_call(dead_cache):
    started = time.monotonic()
    with pytest.raises(CacheUnavailable):
        dead_cache.get("k")
    assert time.monotonic() - started < 1.0
    started = time.monotonic()
    for _ in range(100):  # the breaker is open: no connection attempts
        with pytest.raises(CacheUnavailable):
            dead_cache.set("k", "v")
    assert time.monotonic() - started < 0.1


def test_markdown_renders_live_when_the_cache_is_away(dead_cache):
    from questions.markdown import render_markdown, render_untrusted_markdown

    assert "<strong>bold</strong>" in render_markdown("some **bold** text")
    assert "<em>mine</em>" in render_untrusted_markdown("*mine*")


@pytest.mark.django_db
def test_question_pages_answer_200_when_the_cache_is_away(client, dead_cache):
    question = QuestionFactory(answer="The **answer**, rendered live.")
    response = client.get(question.get_absolute_url())
    assert response.status_code == 200
    assert "<strong>answer</strong>" in response.content.decode()
    assert client.get("/").status_code == 200


@pytest.mark.django_db
def test_posting_a_comment_answers_503_with_retry_after(client_for, free_user, settings):
    question = QuestionFactory()
    client = client_for(free_user)  # signed in before the cache went away
    settings.CACHES = DEAD_REDIS
    started = time.monotonic()
    response = client.post(f"/community/question/{question.pk}/comments/", {"body": "hello"})
    assert time.monotonic() - started < 2.0
    assert response.status_code == 503 and response["Retry-After"] == "5"
    from inferview.community.models import Comment

    assert not Comment.objects.exists()


@pytest.mark.django_db
def test_signing_in_answers_503_with_retry_after(client, verified_user, dead_cache):
    from tests.conftest import PASSWORD

    assert client.get("/accounts/login/").status_code == 200  # the form itself still shows
    started = time.monotonic()
    response = client.post("/accounts/login/", {"login": verified_user.email, "password": PASSWORD})
    assert time.monotonic() - started < 2.0
    assert response.status_code == 503 and response["Retry-After"] == "5"


def test_an_unreachable_database_answers_503_from_a_view_and_from_middleware(rf):
    from inferview.outage import ServiceUnavailableMiddleware
    from inferview.views import server_error

    request = rf.get("/api/v1/tracks/")
    middleware = ServiceUnavailableMiddleware(lambda r: None)
    response = middleware.process_exception(request, OperationalError("server closed"))
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert json.loads(response.content)["error"]["code"] == "service_unavailable"
    assert middleware.process_exception(request, ValueError("a bug")) is None  # still a 500

    # Raised in a middleware, the exception reaches the 500 handler instead.
    try:
        raise OperationalError("connection refused")
    except OperationalError:
        page = server_error(rf.get("/tracks/"))
    assert page.status_code == 503 and page["Retry-After"] == "5"
    try:
        raise ValueError("a bug")
    except ValueError:
        assert server_error(rf.get("/tracks/")).status_code == 500


# --- calculator runs: refused means refused; a run stuck "running" is enqueued again ----

INPUTS = {"availability_pct": 99.95}


@pytest.mark.django_db(transaction=True)
def test_a_run_the_api_refused_is_never_computed_by_a_late_task(monkeypatch):
    from calculators import services
    from calculators.models import CalculationRun

    monkeypatch.setattr(services, "_publish", lambda run_id: False)  # the broker timed out
    with pytest.raises(services.BrokerUnavailable) as refused:
        services.run_request(calculator="availability", raw_inputs=INPUTS)
    run_id = str(refused.value.run.pk)
    # The publish reached Redis after all, once it resumed: the task runs, and must not
    # compute what the client was told had failed.
    assert services.execute_run(run_id=run_id) == "failed"
    row = CalculationRun.objects.get(pk=run_id)
    assert (row.status, row.result, row.attempts) == ("failed", None, 0)
    assert "unavailable" in row.error

    # Asking again (the broker is back) queues and computes it.
    monkeypatch.setattr(services, "_publish", lambda run_id: True)
    run, scheduled = services.run_request(calculator="availability", raw_inputs=INPUTS)
    assert scheduled and str(run.pk) == run_id
    assert services.execute_run(run_id=run_id) == "done"


@pytest.mark.django_db(transaction=True)
def test_a_run_left_running_by_a_dead_worker_is_enqueued_again_after_a_timeout(
    monkeypatch, settings
):
    from datetime import timedelta

    from django.utils import timezone

    from calculators import services
    from calculators.models import CalculationRun

    published = []
    monkeypatch.setattr(services, "_publish", lambda run_id: published.append(run_id) or True)
    run, _ = services.run_request(calculator="availability", raw_inputs=INPUTS)
    now = timezone.now()
    CalculationRun.objects.filter(pk=run.pk).update(
        status="running", started_at=now, heartbeat_at=now
    )
    _, scheduled = services.run_request(calculator="availability", raw_inputs=INPUTS)
    assert not scheduled  # a live run is not doubled
    dead_since = timezone.now() - timedelta(seconds=settings.CALC_RUN_LEASE_SECONDS + 1)
    CalculationRun.objects.filter(pk=run.pk).update(heartbeat_at=dead_since)
    again, scheduled = services.run_request(calculator="availability", raw_inputs=INPUTS)
    assert scheduled and again.status == "queued" and published == [str(run.pk)] * 2
    assert services.execute_run(run_id=str(run.pk)) == "done"


def test_a_restarted_redis_serves_the_next_request_on_a_fresh_connection(tmp_path, settings):
    """After Redis restarts, every pooled connection is dead; the next command must
    reconnect instead of failing (a sign-in would answer 503 for nothing)."""
    import shutil

    assert shutil.which("redis-server"), "needs redis-server (apt-get install redis-server)"
    from tests.ops.stack import RedisServer

    server = RedisServer(tmp_path)
    server.start()
    try:
        settings.CACHES = {
            "default": {"BACKEND": "inferview.cache.FailFastRedisCache", "LOCATION": server.url}
        }
        cache = caches["default"]
        cache.set("k", "v")
        assert cache.get("k") == "v"
        server.stop()
        server.start()  # same port, empty (no persistence)
        assert cache.get("k") is None  # a miss, not CacheUnavailable
        cache.set("k", "again")
        assert cache.get("k") == "again"
    finally:
        server.stop()


def test_a_rate_limit_lock_set_late_by_a_paused_redis_does_not_block_sign_in(
    tmp_path, settings, monkeypatch
):
    """A paused Redis runs the buffered ``SET NX`` of allauth's rate-limit lock when it
    resumes, for a request that already answered 503. The next sign-in must still get the
    lock within allauth's one-second wait, not 429 for the lock's ten seconds."""
    import shutil

    import redis
    from allauth.core.internal.ratelimit import cache_lock

    import inferview.cache

    assert shutil.which("redis-server"), "needs redis-server (apt-get install redis-server)"
    from tests.ops.stack import RedisServer

    monkeypatch.setattr(inferview.cache, "BREAKER_SECONDS", 0.0)
    server = RedisServer(tmp_path)
    server.start()
    raw = redis.Redis.from_url(server.url, socket_timeout=5)
    try:
        settings.CACHES = {
            "default": {"BACKEND": "inferview.cache.FailFastRedisCache", "LOCATION": server.url}
        }
        cache = caches["default"]
        cache.get("warm")  # a pooled connection, as a running web process has
        name = "allauth:rl:allauth.account:login:30/60/ip:127.0.0.1"
        server.pause()
        try:
            with pytest.raises(CacheUnavailable), cache_lock(name):
                pass
        finally:
            server.resume()
        lock_key = cache.make_key(f"{name}:lock")
        raw.ping()
        deadline = time.monotonic() + 5
        while not raw.exists(lock_key):  # Redis serves the buffered socket in its own turn
            assert time.monotonic() < deadline, "Redis never ran the buffered add"
        assert 0 < raw.pttl(lock_key) <= inferview.cache.RATE_LIMIT_LOCK_MS
        with cache_lock(name) as locked:
            assert locked
        # any other add keeps the timeout it was given
        assert cache.add("plain", 1, timeout=60) and raw.ttl(cache.make_key("plain")) > 50
    finally:
        raw.close()
        server.stop()


@pytest.mark.django_db
def test_signed_in_pages_answer_200_and_stay_signed_in_when_the_cache_is_away(
    client_for, free_user, settings
):
    """The session store falls back to the database and does not write to a cache that
    is away (Django's cached_db would, unguarded, and answer 503 on every page)."""
    client = client_for(free_user)  # signed in while the cache was up (locmem)
    settings.CACHES = DEAD_REDIS
    question = QuestionFactory(access="account", answer="Account-level reasoning.")
    response = client.get(question.get_absolute_url())
    assert response.status_code == 200
    assert response.wsgi_request.user == free_user
    assert "Account-level reasoning." in response.content.decode()
    assert client.get("/dashboard/").status_code == 200
