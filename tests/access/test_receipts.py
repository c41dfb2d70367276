"""Receipts and purchases are their owner's alone: anyone else gets a 404, never a 403
that would confirm the id exists."""

import re

import pytest

from inferview.access.models import Purchase
from tests.factories import UserFactory


@pytest.fixture
def alice_purchase(db):
    alice = UserFactory()
    return Purchase.objects.create(
        user=alice,
        provider="stripe",
        checkout_session_id="cs_alice",
        currency="INR",
        amount=200000,
        status="paid",
    )


def test_owner_sees_receipts_in_html_and_api(client, alice_purchase):
    client.force_login(alice_purchase.user)
    html = client.get("/account/receipts/").content.decode()
    assert "₹2,000" in html and f"/account/receipts/{alice_purchase.pk}/" in html
    assert "cs_alice" in client.get(f"/account/receipts/{alice_purchase.pk}/").content.decode()
    listing = client.get("/api/v1/purchases/").json()
    assert [p["id"] for p in listing["results"]] == [alice_purchase.pk]
    detail = client.get(f"/api/v1/purchases/{alice_purchase.pk}/").json()
    assert detail["amount_display"] == "₹2,000" and detail["status"] == "paid"


def test_another_user_gets_404_everywhere(client, alice_purchase):
    bob = UserFactory()
    client.force_login(bob)
    pk = alice_purchase.pk
    assert client.get(f"/account/receipts/{pk}/").status_code == 404
    r = client.get(f"/api/v1/purchases/{pk}/")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    assert client.get("/api/v1/purchases/").json()["results"] == []
    html = client.get("/account/receipts/").content.decode()
    assert "cs_alice" not in html and "₹2,000" not in html
    assert client.get("/premium/checkout/success/?session_id=cs_alice").status_code == 404
    # A missing id looks exactly the same as someone else's.
    assert client.get(f"/account/receipts/{pk + 1000}/").status_code == 404


def test_anonymous_is_sent_to_sign_in_or_refused(client, alice_purchase):
    r = client.get(f"/account/receipts/{alice_purchase.pk}/")
    assert r.status_code == 302 and "/accounts/login/" in r["Location"]
    assert client.get(f"/api/v1/purchases/{alice_purchase.pk}/").status_code in (401, 403)
    assert client.get("/api/v1/purchases/").status_code in (401, 403)


def test_staff_use_admin_not_the_receipts_page(client, alice_purchase):
    client.force_login(UserFactory(is_staff=True))
    assert client.get(f"/account/receipts/{alice_purchase.pk}/").status_code == 404


def test_abandoned_checkouts_are_not_receipts(client, alice_purchase):
    Purchase.objects.create(
        user=alice_purchase.user,
        provider="stripe",
        checkout_session_id="cs_abandoned",
        currency="USD",
        amount=2500,
    )
    client.force_login(alice_purchase.user)
    html = client.get("/account/receipts/").content.decode()
    assert re.findall(r'href="/account/receipts/(\d+)/"', html) == [str(alice_purchase.pk)]
    assert "Awaiting payment" not in html


def test_the_account_page_counts_the_receipts_the_receipts_page_lists(client, alice_purchase):
    """An abandoned checkout (pending) or an expired one is not a receipt: the account page's
    "Receipts (N)" counts what /account/receipts/ lists, not every checkout started."""
    for n, status in enumerate(("pending", "expired")):
        Purchase.objects.create(
            user=alice_purchase.user,
            provider="local",
            checkout_session_id=f"cs_abandoned_{n}",
            currency="USD",
            amount=2500,
            status=status,
        )
    client.force_login(alice_purchase.user)
    html = client.get("/account/").content.decode()
    assert "Receipts</a> (1)" in html
