"""The account overview, the currency preference and deleting an account with its data."""

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from inferview.access import services
from inferview.access.models import Entitlement, Purchase
from tests.conftest import PASSWORD


def test_overview_shows_plan_and_currency(client, verified_user):
    client.force_login(verified_user)
    html = client.get("/account/").content.decode()
    assert verified_user.email in html and "Free account" in html and "Get Premium" in html
    r = client.post("/account/", {"currency": "INR"})
    assert r.status_code == 302
    verified_user.refresh_from_db()
    assert verified_user.preferred_currency == "INR"


def test_overview_needs_sign_in(client, db):
    r = client.get("/account/")
    assert r.status_code == 302 and "/accounts/login/" in r["Location"]


def test_delete_needs_the_password(client, verified_user):
    client.force_login(verified_user)
    r = client.post("/account/delete/", {"password": "wrong", "confirm": "on"})
    assert r.status_code == 200 and "not your current password" in r.content.decode()
    assert get_user_model().objects.filter(pk=verified_user.pk).exists()


def test_delete_removes_personal_data_and_keeps_financial_records(client, verified_user):
    purchase = Purchase.objects.create(
        user=verified_user,
        provider="stripe",
        checkout_session_id="cs_del",
        currency="USD",
        amount=2500,
        status="paid",
    )
    Entitlement.objects.create(user=verified_user, source="purchase", purchase=purchase)
    services.grant_premium(user=verified_user, granted_by=None, reason="gift")
    client.force_login(verified_user)
    r = client.post("/account/delete/", {"password": PASSWORD, "confirm": "on"})
    assert r.status_code == 302
    assert not get_user_model().objects.filter(pk=verified_user.pk).exists()
    assert not EmailAddress.objects.filter(email=verified_user.email).exists()
    assert "_auth_user_id" not in client.session
    purchase.refresh_from_db()
    assert purchase.user_id is None  # kept for refunds and accounting, without the person
    assert Entitlement.objects.count() == 2
    assert all(e.user_id is None and e.revoked_at is not None for e in Entitlement.objects.all())
