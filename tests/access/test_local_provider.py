"""The local provider: development only, no network, and the same path as Stripe from
the webhook on (a signed event handed to ``services.receive_webhook``)."""

import pytest
from django.urls import reverse

from inferview.access import policy, services
from inferview.access.models import Entitlement, Purchase, WebhookEvent
from inferview.access.providers import InvalidSignature, LocalProvider


@pytest.fixture
def dev(settings):
    settings.DEBUG = True
    settings.PAYMENTS_LOCAL_PROVIDER = True
    settings.STRIPE_SECRET_KEY = ""


def test_local_purchase_end_to_end(client, free_user, dev, monkeypatch):
    calls = []
    real = services.receive_webhook
    monkeypatch.setattr(services, "receive_webhook", lambda **kw: calls.append(kw) or real(**kw))
    client.force_login(free_user)
    r = client.post(reverse("access:checkout"), {"currency": "USD"})
    purchase = Purchase.objects.get(user=free_user)
    assert r["Location"] == reverse("access:local-checkout", args=[purchase.checkout_session_id])
    assert b"Pay $25" in client.get(r["Location"]).content
    r = client.post(r["Location"])
    assert r.status_code == 302 and "session_id=" in r["Location"]
    assert b"You have Premium" in client.get(r["Location"]).content
    purchase.refresh_from_db()
    assert purchase.status == "paid" and purchase.provider == "local"
    assert calls and calls[0]["provider_name"] == "local"
    assert (
        WebhookEvent.objects.filter(provider="local", type="checkout.session.completed").count()
        == 1
    )
    assert Entitlement.objects.filter(purchase=purchase, revoked_at__isnull=True).count() == 1
    policy.forget_tier(free_user)
    assert policy.viewer_tier(free_user) == policy.Tier.PREMIUM
    # Paying the same checkout again does nothing.
    client.post(reverse("access:local-checkout", args=[purchase.checkout_session_id]))
    assert Entitlement.objects.count() == 1


def test_local_provider_is_off_without_debug(client, free_user, settings):
    settings.DEBUG = False
    settings.PAYMENTS_LOCAL_PROVIDER = True
    settings.STRIPE_SECRET_KEY = ""
    client.force_login(free_user)
    r = client.post(reverse("access:checkout"), {"currency": "USD"})
    assert r["Location"] == reverse("access:premium")
    assert not Purchase.objects.exists()
    p = Purchase.objects.create(
        user=free_user,
        provider="local",
        checkout_session_id="cs_local_x",
        currency="USD",
        amount=2500,
    )
    assert client.post(reverse("access:local-checkout", args=["cs_local_x"])).status_code == 404
    # Even a correctly signed local event is refused without DEBUG.
    payload, sig = LocalProvider().completed_event(p)
    with pytest.raises(InvalidSignature):
        services.receive_webhook(provider_name="local", payload=payload, signature=sig)
    assert not Entitlement.objects.exists()


def test_production_settings_disable_the_local_provider():
    import ast
    from pathlib import Path

    source = Path("inferview/settings/production.py").read_text()
    assigned = {
        node.targets[0].id: node.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    assert assigned["DEBUG"].value is False and assigned["PAYMENTS_LOCAL_PROVIDER"].value is False


def test_local_checkout_of_someone_else_is_404(client, free_user, dev):
    from tests.factories import UserFactory

    other = UserFactory()
    Purchase.objects.create(
        user=other, provider="local", checkout_session_id="cs_local_o", currency="USD", amount=2500
    )
    client.force_login(free_user)
    assert client.post(reverse("access:local-checkout", args=["cs_local_o"])).status_code == 404
    assert not Entitlement.objects.exists()


def test_already_premium_cannot_buy_again(client, premium_user, dev):
    client.force_login(premium_user)
    r = client.post(reverse("access:checkout"), {"currency": "USD"})
    assert r["Location"] == reverse("access:receipts")
    assert not Purchase.objects.exists()
