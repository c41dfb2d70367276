"""The signed-in reader is loaded with their tier in one query (inferview.accounts.backends)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inferview.access import policy
from inferview.access.policy import Tier
from inferview.access.services import grant_premium, revoke_all_for_user
from inferview.accounts.backends import AllauthReaderBackend, ReaderBackend
from tests.factories import UserFactory

BACKENDS = [ReaderBackend, AllauthReaderBackend]


@pytest.mark.django_db
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("setup", "tier"),
    [
        ("free", Tier.FREE),
        ("premium", Tier.PREMIUM),
        ("revoked", Tier.FREE),
        ("staff", Tier.PREMIUM),
    ],
)
def test_the_tier_comes_with_the_user_and_matches_the_policy(backend, setup, tier):
    user = UserFactory(is_staff=setup == "staff")
    if setup in ("premium", "revoked"):
        grant_premium(user=user, granted_by=None, reason="test")
    if setup == "revoked":
        revoke_all_for_user(user=user, reason="refund")
    with CaptureQueriesContext(connection) as queries:
        loaded = backend().get_user(user.pk)
        assert policy.viewer_tier(loaded) == tier
    assert len(queries) == 1
    fresh = type(user).objects.get(pk=user.pk)  # the policy's own query agrees
    assert policy.viewer_tier(fresh) == tier


@pytest.mark.django_db
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unknown_or_inactive_user_is_nobody(backend):
    assert backend().get_user(987654) is None
    assert backend().get_user(UserFactory(is_active=False).pk) is None


@pytest.mark.django_db
def test_a_purchase_shows_on_the_reader_s_next_request(client_for, free_user):
    client = client_for(free_user)
    assert policy.viewer_tier(client.get("/").wsgi_request.user) == Tier.FREE
    grant_premium(user=free_user, granted_by=None, reason="paid")
    assert policy.viewer_tier(client.get("/").wsgi_request.user) == Tier.PREMIUM


@pytest.mark.django_db
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_id_of_the_wrong_kind_is_nobody(backend):
    assert backend().get_user("not-a-number") is None


@pytest.mark.django_db
def test_each_reader_gets_their_own_row_from_the_compiled_query():
    """The query is compiled once; the id bound on each call must be that call's."""
    first, second = UserFactory(), UserFactory(is_staff=True)
    grant_premium(user=first, granted_by=None, reason="test")
    for _ in range(2):
        assert ReaderBackend().get_user(first.pk).pk == first.pk
        assert ReaderBackend().get_user(second.pk).pk == second.pk
    assert policy.viewer_tier(ReaderBackend().get_user(first.pk)) == Tier.PREMIUM


@pytest.mark.django_db
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_loaded_reader_is_the_row_the_orm_loads(backend):
    """Every field as a queryset converts it (SQLite returns datetimes as text), and a
    saved row, so a later ``save()`` updates it."""
    from django.utils import timezone

    user = UserFactory(last_login=timezone.now(), first_name="Ada")
    loaded = backend().get_user(user.pk)
    fresh = type(user).objects.get(pk=user.pk)
    for field in type(user)._meta.concrete_fields:
        assert getattr(loaded, field.attname) == getattr(fresh, field.attname), field.name
    assert loaded.last_login.tzinfo is not None
    assert not loaded._state.adding and loaded._state.db == "default"
    loaded.first_name = "Grace"
    loaded.save(update_fields=["first_name"])
    assert type(user).objects.get(pk=user.pk).first_name == "Grace"
