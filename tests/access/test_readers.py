"""The signed-in reader's row is kept in the cache between requests and forgotten by every
write that changes it (inferview.access.readers)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inferview.access import policy, readers
from inferview.access.models import Entitlement
from inferview.access.policy import Tier
from inferview.access.services import grant_premium, revoke_all_for_user, revoke_entitlement
from inferview.accounts import profile
from inferview.accounts.backends import ReaderBackend
from tests.factories import UserFactory


def _user_queries(queries) -> list[str]:
    """Queries that read user rows (a join to a comment's author does not count)."""
    return [q["sql"] for q in queries if 'FROM "accounts_user"' in q["sql"]]


def _settle(user) -> None:
    """What the cache holds once the tombstone of the user's last write has lapsed."""
    cache.delete(readers.KEY.format(user.pk))


@pytest.mark.django_db
def test_a_signed_in_reader_is_read_from_the_database_once(client_for, free_user):
    client = client_for(free_user)
    _settle(free_user)
    client.get("/__missing__/")  # any request loads the reader and keeps the row
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/dashboard/")
    assert response.status_code == 200 and response.wsgi_request.user == free_user
    assert _user_queries(queries) == []


@pytest.mark.django_db
def test_a_calculator_page_for_a_signed_in_reader_runs_no_query(client_for, free_user):
    client = client_for(free_user)
    _settle(free_user)
    client.get("/calculators/decode_bound/")  # the reader cached, the shared part rendered
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/calculators/decode_bound/").status_code == 200
    assert len(queries) == 0


@pytest.mark.django_db
def test_a_grant_and_a_revocation_show_on_the_next_request(client_for, free_user):
    client = client_for(free_user)
    _settle(free_user)
    assert policy.viewer_tier(client.get("/").wsgi_request.user) == Tier.FREE
    grant_premium(user=free_user, granted_by=None, reason="paid")  # a create: a signal
    assert policy.viewer_tier(client.get("/").wsgi_request.user) == Tier.PREMIUM
    _settle(free_user)
    assert policy.viewer_tier(client.get("/").wsgi_request.user) == Tier.PREMIUM  # cached
    revoke_all_for_user(user=free_user, reason="refund")  # a queryset update
    assert policy.viewer_tier(client.get("/").wsgi_request.user) == Tier.FREE


@pytest.mark.django_db
def test_revoking_one_entitlement_forgets_its_reader(client_for, free_user):
    entitlement = grant_premium(user=free_user, granted_by=None, reason="gift")
    client = client_for(free_user)
    _settle(free_user)
    assert policy.viewer_tier(client.get("/").wsgi_request.user) == Tier.PREMIUM
    assert revoke_entitlement(entitlement=entitlement, revoked_by=None, reason="mistake")
    assert policy.viewer_tier(client.get("/").wsgi_request.user) == Tier.FREE


@pytest.mark.django_db
def test_an_update_of_the_user_rows_forgets_them(client_for, free_user):
    client = client_for(free_user)
    _settle(free_user)
    client.get("/")
    profile.set_theme(user=free_user, theme="dark")  # a queryset update, not a save
    assert client.get("/").wsgi_request.user.theme == "dark"
    _settle(free_user)
    client.get("/")
    get_user_model().objects.filter(pk=free_user.pk).update(is_active=False)
    assert not client.get("/").wsgi_request.user.is_authenticated


@pytest.mark.django_db
def test_a_deactivated_or_deleted_user_is_signed_out_at_once(client_for):
    for end in ("deactivate", "delete"):
        user = UserFactory()
        client = client_for(user)
        _settle(user)
        assert client.get("/").wsgi_request.user.is_authenticated
        if end == "deactivate":
            user.is_active = False
            user.save()
        else:
            user.delete()
        assert not client.get("/").wsgi_request.user.is_authenticated


@pytest.mark.django_db
def test_a_password_change_ends_the_other_sessions(client_for, free_user):
    other = client_for(free_user)
    _settle(free_user)
    assert other.get("/").wsgi_request.user.is_authenticated  # cached with the old hash
    free_user.set_password("a-new-long-passphrase")
    free_user.save()
    assert not other.get("/").wsgi_request.user.is_authenticated


@pytest.mark.django_db
def test_a_row_loaded_before_a_write_cannot_be_put_back(free_user):
    """The race: a request loads the row, the write commits and forgets it, and only then
    does the request store what it loaded. The tombstone refuses that store."""
    _settle(free_user)
    stale = ReaderBackend().get_user(free_user.pk)  # loaded and cached
    assert readers.get(free_user.pk) is not None
    Entitlement.objects.create(user=free_user, plan="premium", source="staff", reason="t")
    readers.put(stale)  # the slow request's store
    assert readers.get(free_user.pk) is None
    assert policy.viewer_tier(ReaderBackend().get_user(free_user.pk)) == Tier.PREMIUM


@pytest.mark.django_db
def test_a_cache_that_is_away_reads_the_database(free_user, monkeypatch):
    def away(*args, **kwargs):
        raise ConnectionError("redis is away")

    monkeypatch.setattr(cache, "get", away)
    monkeypatch.setattr(cache, "add", away)
    with CaptureQueriesContext(connection) as queries:
        assert ReaderBackend().get_user(free_user.pk) == free_user
    assert len(_user_queries(queries)) == 1


def _session_or_reader(key: str) -> bool:
    return "session" in key or key.startswith("reader:")


class _Reads:
    """Counts the cache reads (round trips to Redis in production) that touch a key
    ``counts`` picks (by default a session or a reader's row); a ``get_many`` is one,
    whatever it calls inside (LocMemCache's calls ``get`` per key)."""

    def __init__(self, monkeypatch, counts=_session_or_reader):
        self.calls: list[list[str]] = []
        self.depth = 0
        for name in ("get", "get_many"):
            real = getattr(cache, name)

            def counted(keys, *args, _real=real, **kwargs):
                names = [keys] if isinstance(keys, str) else list(keys)
                if self.depth == 0 and any(counts(k) for k in names):
                    self.calls.append(names)
                self.depth += 1
                try:
                    return _real(keys, *args, **kwargs)
                finally:
                    self.depth -= 1

            monkeypatch.setattr(cache, name, counted)


@pytest.mark.django_db
def test_the_session_and_the_reader_s_row_come_in_one_read(client_for, free_user, monkeypatch):
    client = client_for(free_user)
    _settle(free_user)
    client.get("/")  # this process learns whose session it is, and keeps the row
    reads = _Reads(monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/calculators/decode_bound/")
    assert response.wsgi_request.user == free_user and len(queries) == 0
    assert len(reads.calls) == 1
    session_key = client.cookies["sessionid"].value
    assert reads.calls[0][0].endswith(session_key)
    assert reads.calls[0][1] == readers.KEY.format(free_user.pk)


@pytest.mark.django_db
def test_a_signed_in_revisit_is_one_read_in_all(client_for, free_user, monkeypatch):
    """The reader's page version and their copy of the page come with the session and the
    row: a revisit reads the shared cache once and runs no query."""
    from questions.models import Question
    from tests.factories import QuestionFactory

    question = QuestionFactory(access="open")
    url = Question.objects.get(pk=question.pk).get_absolute_url()
    client = client_for(free_user)
    _settle(free_user)
    client.cookies["csrftoken"] = "a" * 32
    client.get("/")  # the process learns whose session it is
    assert client.get(url).status_code == 200  # the first view stores the copy
    reads = _Reads(monkeypatch, counts=lambda key: True)  # every read of the cache
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response["X-Page-Cache"] == "hit" and len(queries) == 0
    assert len(reads.calls) == 1, reads.calls
    assert any(k.startswith("page:user:") for k in reads.calls[0])


@pytest.mark.django_db
def test_a_copy_read_with_the_session_is_only_used_for_its_own_reader(
    client_for, free_user, monkeypatch
):
    """A copy fetched beside the session under a wrong owner memo is never served: the
    page reads its own key when the prefetched keys are not the ones it needs."""
    from inferview.accounts import sessions
    from tests.factories import QuestionFactory

    question = QuestionFactory(access="open")
    other = UserFactory()
    client = client_for(free_user)
    _settle(free_user)
    client.cookies["csrftoken"] = "b" * 32
    client.get("/")
    session_key = client.cookies["sessionid"].value
    monkeypatch.setitem(sessions._OWNERS, session_key, str(other.pk))  # a wrong memo
    response = client.get(question.get_absolute_url())
    assert response.status_code == 200 and response.wsgi_request.user == free_user
    assert response.wsgi_request.session.prefetched_extra is None


@pytest.mark.django_db
def test_a_session_ended_elsewhere_is_signed_out_whatever_the_process_remembers(
    client_for, free_user
):
    from django.contrib.sessions.models import Session

    from inferview.accounts.sessions import SessionStore

    client = client_for(free_user)
    _settle(free_user)
    assert client.get("/").wsgi_request.user.is_authenticated  # the owner is remembered
    key = client.cookies["sessionid"].value
    SessionStore(key).delete()  # "sign out everywhere": the row and its cached copy
    assert not Session.objects.filter(session_key=key).exists()
    assert not client.get("/").wsgi_request.user.is_authenticated


@pytest.mark.django_db
def test_a_row_read_for_one_user_is_never_given_to_another(free_user):
    other = UserFactory()
    _settle(free_user)
    _settle(other)
    with readers.prefetched((str(other.pk), other)):
        assert readers.get(free_user.pk) is None  # read from the cache: nothing there
        assert readers.get(other.pk) is other
    assert readers.get(other.pk) is None  # outside the block the cache answers


@pytest.mark.django_db
def test_a_failing_prefetch_costs_only_its_keys(client_for, free_user, monkeypatch):
    from inferview.accounts import sessions

    def boom(request, owner):
        raise RuntimeError("a prefetch bug")

    client = client_for(free_user)
    _settle(free_user)
    client.get("/")  # the owner is remembered
    monkeypatch.setattr(sessions, "_PREFETCH", [boom])
    response = client.get("/calculators/decode_bound/")
    assert response.status_code == 200 and response.wsgi_request.user == free_user
    assert response.wsgi_request.session.prefetched_extra is None


@pytest.mark.django_db
def test_a_copy_made_for_staff_is_not_served_once_they_are_not(client_for, staff_user):
    from tests.factories import QuestionFactory

    url = QuestionFactory(access="open").get_absolute_url()
    grant_premium(user=staff_user, granted_by=None, reason="paid")  # the tier stays premium
    client = client_for(staff_user)
    client.cookies["csrftoken"] = "c" * 32
    client.get(url)
    assert client.get(url)["X-Page-Cache"] == "hit"  # their own copy, author tools and all
    staff_user.is_staff = False
    staff_user.save()
    response = client.get(url)
    assert response.status_code == 200 and response.get("X-Page-Cache") != "hit"


@pytest.mark.django_db
def test_pages_with_no_copy_per_reader_read_the_same_keys_in_every_browser(
    client_for, free_user, monkeypatch
):
    """A calculator, guide or search page keeps no copy per reader, so its session read
    names no copy: the same two keys (the session and the reader's row) from any browser,
    which Redis's client tracking then answers in the process (``inferview.cache``). A
    question page, which keeps copies, names this browser's copy too."""
    from questions.models import Question
    from tests.factories import QuestionFactory

    url = Question.objects.get(pk=QuestionFactory(access="open").pk).get_absolute_url()
    client = client_for(free_user)
    _settle(free_user)
    client.get("/")  # the process learns whose session it is
    reads = _Reads(monkeypatch, counts=lambda key: True)
    row = readers.KEY.format(free_user.pk)
    read: dict[str, list[list[str]]] = {}
    for browser in ("c", "d"):
        client.cookies["csrftoken"] = browser * 32
        for path in ("/calculators/decode_bound/", "/search/?q=kv", url):
            reads.calls.clear()
            assert client.get(path).status_code == 200
            read.setdefault(path, []).append(next(c for c in reads.calls if row in c))
    calculator, search, question = read.values()
    assert calculator[0] == calculator[1] == search[0] == search[1]
    assert len(calculator[0]) == 2
    assert question[0] != question[1]
    assert sum(k.startswith("page:user:") for k in question[0]) == 1
