"""Stripe webhook deliveries, signed here with a test secret exactly as Stripe signs them
(``Stripe-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.payload">``)."""

import hashlib
import hmac
import json
import threading
import time

import pytest
from django.db import connection
from django.urls import reverse

from inferview.access import policy
from inferview.access.models import Entitlement, Purchase, WebhookEvent
from tests.factories import UserFactory

SECRET = "whsec_test_0123456789abcdef"
URL = "/payments/webhook/stripe/"


@pytest.fixture(autouse=True)
def stripe_settings(settings):
    settings.STRIPE_SECRET_KEY = "sk_test_dummy"
    settings.STRIPE_WEBHOOK_SECRET = SECRET


def signature(payload: bytes, secret: str = SECRET, timestamp: int | None = None) -> str:
    t = int(time.time()) if timestamp is None else timestamp
    mac = hmac.new(secret.encode(), f"{t}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def deliver(
    client, event: dict, *, secret: str = SECRET, timestamp: int | None = None, header=None
):
    payload = json.dumps(event).encode()
    sig = signature(payload, secret, timestamp) if header is None else header
    return client.post(
        URL, data=payload, content_type="application/json", HTTP_STRIPE_SIGNATURE=sig
    )


def completed(
    session_id="cs_test_1",
    pi="pi_test_1",
    event_id="evt_completed_1",
    *,
    amount=2500,
    currency="usd",
    payment_status="paid",
    kind="checkout.session.completed",
    user=None,
):
    obj = {
        "id": session_id,
        "object": "checkout.session",
        "payment_status": payment_status,
        "payment_intent": pi,
        "amount_total": amount,
        "currency": currency,
    }
    if user is not None:
        obj["client_reference_id"] = str(user.pk)
    return {"id": event_id, "object": "event", "type": kind, "data": {"object": obj}}


def refunded(pi="pi_test_1", event_id="evt_refund_1", full=True):
    return {
        "id": event_id,
        "object": "event",
        "type": "charge.refunded",
        "data": {
            "object": {
                "id": "ch_1",
                "object": "charge",
                "payment_intent": pi,
                "refunded": full,
                "amount_refunded": 2500 if full else 500,
            }
        },
    }


def disputed(pi="pi_test_1", event_id="evt_dispute_1"):
    return {
        "id": event_id,
        "object": "event",
        "type": "charge.dispute.created",
        "data": {
            "object": {"id": "dp_1", "object": "dispute", "payment_intent": pi, "charge": "ch_1"}
        },
    }


@pytest.fixture
def buyer(db):
    return UserFactory()


@pytest.fixture
def purchase(buyer):
    return Purchase.objects.create(
        user=buyer, provider="stripe", checkout_session_id="cs_test_1", currency="USD", amount=2500
    )


def tier_of(user):
    policy.forget_tier(user)
    return policy.viewer_tier(user)


def test_completed_checkout_grants_premium_once(client, purchase, buyer):
    r = deliver(client, completed())
    assert r.status_code == 200
    purchase.refresh_from_db()
    assert purchase.status == "paid" and purchase.payment_intent_id == "pi_test_1"
    assert Entitlement.objects.filter(purchase=purchase, revoked_at__isnull=True).count() == 1
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_duplicate_event_grants_once(client, purchase):
    assert deliver(client, completed()).content == b"processed"
    assert deliver(client, completed()).content == b"duplicate"
    assert deliver(client, completed()).status_code == 200  # acknowledged, so Stripe stops retrying
    assert Entitlement.objects.filter(purchase=purchase).count() == 1
    assert WebhookEvent.objects.filter(event_id="evt_completed_1").count() == 1


def test_two_events_for_one_session_grant_once(client, purchase):
    deliver(client, completed())
    deliver(
        client, completed(event_id="evt_async_1", kind="checkout.session.async_payment_succeeded")
    )
    assert Entitlement.objects.filter(purchase=purchase).count() == 1


def test_stale_replay_is_rejected_and_changes_nothing(client, purchase):
    r = deliver(client, completed(), timestamp=int(time.time()) - 3600)
    assert r.status_code == 400
    purchase.refresh_from_db()
    assert purchase.status == "pending"
    assert not WebhookEvent.objects.exists() and not Entitlement.objects.exists()


def test_replay_of_an_old_event_after_refund_does_not_regrant(client, purchase, buyer):
    deliver(client, completed())
    deliver(client, refunded())
    deliver(client, completed())  # same event id again: deduplicated
    deliver(client, completed(event_id="evt_completed_again"))  # a new id for the same session
    assert Entitlement.objects.filter(purchase=purchase).count() == 1
    assert Entitlement.objects.get(purchase=purchase).revoked_at is not None
    assert tier_of(buyer) == policy.Tier.FREE


@pytest.mark.parametrize(
    "how",
    ["wrong secret", "tampered payload", "missing header", "garbage header", "no v1"],
)
def test_bad_signature_is_400_and_changes_nothing(client, purchase, how):
    event = completed()
    payload = json.dumps(event).encode()
    if how == "wrong secret":
        r = deliver(client, event, secret="whsec_someone_else")
    elif how == "tampered payload":
        sig = signature(payload)
        tampered = payload.replace(b'"amount_total": 2500', b'"amount_total": 1')
        r = client.post(
            URL, data=tampered, content_type="application/json", HTTP_STRIPE_SIGNATURE=sig
        )
    elif how == "missing header":
        r = client.post(URL, data=payload, content_type="application/json")
    elif how == "garbage header":
        r = deliver(client, event, header="nonsense")
    else:
        r = deliver(client, event, header=f"t={int(time.time())}")
    assert r.status_code == 400
    purchase.refresh_from_db()
    assert purchase.status == "pending"
    assert not WebhookEvent.objects.exists()
    assert not Entitlement.objects.exists()


def test_webhook_without_configured_secret_rejects(client, purchase, settings):
    settings.STRIPE_WEBHOOK_SECRET = ""
    assert deliver(client, completed(), secret="").status_code == 400
    assert not Entitlement.objects.exists()


def test_webhook_is_post_only(client, db):
    assert client.get(URL).status_code == 405


def test_refund_revokes_never_deletes(client, purchase, buyer):
    deliver(client, completed())
    r = deliver(client, refunded())
    assert r.status_code == 200
    purchase.refresh_from_db()
    assert purchase.status == "refunded" and purchase.revoked_at is not None
    entitlement = Entitlement.objects.get(purchase=purchase)
    assert entitlement.revoked_at is not None and "charge.refunded" in entitlement.revoked_reason
    assert tier_of(buyer) == policy.Tier.FREE
    assert deliver(client, refunded()).content == b"duplicate"


def test_partial_refund_keeps_premium(client, purchase, buyer):
    deliver(client, completed())
    deliver(client, refunded(full=False))
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_dispute_revokes(client, purchase, buyer):
    deliver(client, completed())
    deliver(client, disputed())
    purchase.refresh_from_db()
    assert purchase.status == "disputed"
    assert tier_of(buyer) == policy.Tier.FREE
    assert Entitlement.objects.filter(purchase=purchase).count() == 1


def test_refund_before_completion_never_grants(client, purchase, buyer):
    """Out of order: the refund is delivered before the checkout completion."""
    deliver(client, refunded())
    deliver(client, completed())
    purchase.refresh_from_db()
    assert purchase.status == "refunded"
    assert not Entitlement.objects.filter(revoked_at__isnull=True).exists()
    assert tier_of(buyer) == policy.Tier.FREE


def test_unpaid_completion_waits_for_async_success(client, purchase, buyer):
    deliver(client, completed(payment_status="unpaid"))
    assert tier_of(buyer) == policy.Tier.FREE
    deliver(
        client, completed(event_id="evt_async", kind="checkout.session.async_payment_succeeded")
    )
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_amount_mismatch_does_not_grant(client, purchase, buyer):
    deliver(client, completed(amount=100))
    assert tier_of(buyer) == policy.Tier.FREE


def test_unknown_session_is_rebuilt_from_the_client_reference(client, buyer):
    event = completed(session_id="cs_lost", user=buyer)
    event["data"]["object"]["metadata"] = {"plan": "premium"}
    deliver(client, event)
    p = Purchase.objects.get(checkout_session_id="cs_lost")
    assert p.user == buyer and p.status == "paid"
    assert tier_of(buyer) == policy.Tier.PREMIUM


def test_unrelated_events_are_recorded_and_ignored(client, purchase):
    r = deliver(client, {"id": "evt_x", "type": "customer.created", "data": {"object": {}}})
    assert r.content == b"ignored"
    assert Entitlement.objects.count() == 0


def test_expired_session_marks_purchase(client, purchase):
    deliver(
        client,
        {
            "id": "evt_exp",
            "type": "checkout.session.expired",
            "data": {"object": {"id": "cs_test_1", "payment_status": "unpaid"}},
        },
    )
    purchase.refresh_from_db()
    assert purchase.status == "expired"


def _concurrently(n, fn):
    barrier = threading.Barrier(n)
    results, errors = [], []

    def run():
        from django.test import Client

        try:
            barrier.wait()
            results.append(fn(Client()))
        except Exception as exc:  # pragma: no cover - surfaced by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results, errors


@pytest.mark.django_db(transaction=True)
def test_concurrent_deliveries_of_one_event_grant_exactly_once(purchase):
    payload_event = completed()
    results, errors = _concurrently(4, lambda c: deliver(c, payload_event).status_code)
    assert not errors
    assert results.count(200) >= 1
    if connection.vendor == "postgresql":
        # Row locks and the unique index make the losers wait, then see the winner's row.
        assert results == [200] * 4
    # On SQLite a delivery that cannot get the lock is refused with a 503 (nothing
    # committed); Stripe retries those, so the test retries them too.
    assert set(results) <= {200, 503}
    from django.test import Client

    for _ in range(len(results) - results.count(200)):
        assert deliver(Client(), payload_event).status_code == 200
    assert Entitlement.objects.filter(purchase=purchase).count() == 1
    assert WebhookEvent.objects.filter(event_id="evt_completed_1").count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_distinct_events_for_one_session_grant_exactly_once(purchase):
    events = iter([completed(event_id=f"evt_c_{i}") for i in range(4)])
    lock = threading.Lock()

    def one(c):
        with lock:
            event = next(events)
        return deliver(c, event).status_code

    results, errors = _concurrently(4, one)
    assert not errors
    assert Entitlement.objects.filter(purchase=purchase).count() == 1


# --- the success page -----------------------------------------------------------------


class FakeSessions:
    def __init__(self, state):
        self.state = state
        self.created = []

    def retrieve(self, session_id):
        return FakeSession({"id": session_id, **self.state})

    def create(self, params):
        self.created.append(params)
        return FakeSession(
            {"id": "cs_test_new", "url": "https://checkout.stripe.com/c/pay/cs_test_new"}
        )


class FakeSession(dict):
    def __getattr__(self, name):
        return self[name]

    def to_dict(self):
        return dict(self)


class FakeClient:
    def __init__(self, sessions):
        class V1:
            class checkout:
                pass

        self.v1 = V1()
        self.v1.checkout.sessions = sessions


@pytest.fixture
def fake_stripe(monkeypatch):
    from inferview.access import providers

    sessions = FakeSessions({"payment_status": "unpaid"})
    monkeypatch.setattr(providers.StripeProvider, "_client", lambda self: FakeClient(sessions))
    return sessions


def success_url(session_id="cs_test_1"):
    return reverse("access:checkout-success") + f"?session_id={session_id}"


def test_success_page_alone_never_grants(client, purchase, buyer, fake_stripe):
    client.force_login(buyer)
    r = client.get(success_url())
    assert r.status_code == 200
    assert b"Confirming your payment" in r.content
    assert tier_of(buyer) == policy.Tier.FREE
    purchase.refresh_from_db()
    assert purchase.status == "pending"


def test_success_page_fulfils_from_the_providers_session_then_webhook_is_a_no_op(
    client, purchase, buyer, fake_stripe
):
    fake_stripe.state = {
        "payment_status": "paid",
        "payment_intent": "pi_test_1",
        "amount_total": 2500,
        "currency": "usd",
    }
    client.force_login(buyer)
    r = client.get(success_url())
    assert b"You have Premium" in r.content
    deliver(client, completed())
    assert Entitlement.objects.filter(purchase=purchase).count() == 1


def test_success_page_for_someone_elses_session_is_404(client, purchase, fake_stripe):
    client.force_login(UserFactory())
    assert client.get(success_url()).status_code == 404


def test_checkout_creates_a_stripe_session_in_the_chosen_currency(client, buyer, fake_stripe):
    client.force_login(buyer)
    r = client.post(reverse("access:checkout"), {"currency": "INR"})
    assert r.status_code == 302 and r["Location"].startswith("https://checkout.stripe.com/")
    params = fake_stripe.created[0]
    assert params["mode"] == "payment"
    assert params["line_items"][0]["price_data"]["currency"] == "inr"
    assert params["line_items"][0]["price_data"]["unit_amount"] == 200000
    assert params["client_reference_id"] == str(buyer.pk)
    assert "{CHECKOUT_SESSION_ID}" in params["success_url"]
    p = Purchase.objects.get(checkout_session_id="cs_test_new")
    assert (p.user, p.currency, p.amount, p.status) == (buyer, "INR", 200000, "pending")
    buyer.refresh_from_db()
    assert buyer.preferred_currency == "INR"


def test_checkout_needs_an_account(client, db):
    r = client.post(reverse("access:checkout"), {"currency": "USD"})
    assert r.status_code == 302 and "/accounts/login/" in r["Location"]
    assert not Purchase.objects.exists()


def test_prices_come_from_settings(client, buyer, fake_stripe, settings):
    settings.PREMIUM_PRICES = {**settings.PREMIUM_PRICES, "USD": {"amount": 3100, "symbol": "$"}}
    client.force_login(buyer)
    client.post(reverse("access:checkout"), {"currency": "USD"})
    assert fake_stripe.created[0]["line_items"][0]["price_data"]["unit_amount"] == 3100


def test_recorded_events_keep_no_personal_data(client, purchase):
    event = completed()
    event["data"]["object"]["customer_details"] = {"email": "buyer@example.com", "name": "A Buyer"}
    event["data"]["object"]["customer_email"] = "buyer@example.com"
    deliver(client, event)
    recorded = WebhookEvent.objects.get(event_id="evt_completed_1")
    assert "buyer@example.com" not in json.dumps(recorded.payload)
    assert recorded.payload["data"]["object"]["payment_intent"] == "pi_test_1"


def test_refund_racing_the_completion_is_applied_after_commit(
    client, purchase, buyer, django_capture_on_commit_callbacks
):
    """The refund is processed while the completion is uncommitted: it finds no purchase
    with its payment intent, and the completion does not see the refund. The refund's
    post-commit check applies it once both have committed."""
    with django_capture_on_commit_callbacks(execute=False) as refund_callbacks:
        deliver(client, refunded())
    # Meanwhile the completion committed without seeing the refund (simulated directly).
    purchase.status, purchase.payment_intent_id = "paid", "pi_test_1"
    purchase.save()
    Entitlement.objects.create(user=buyer, source="purchase", purchase=purchase)
    assert tier_of(buyer) == policy.Tier.PREMIUM
    assert refund_callbacks, "the refund scheduled a post-commit check"
    for callback in refund_callbacks:
        callback()
    purchase.refresh_from_db()
    assert purchase.status == "refunded"
    assert tier_of(buyer) == policy.Tier.FREE


def test_completion_rechecks_for_refunds_after_commit(
    client, purchase, buyer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as completion_callbacks:
        deliver(client, completed())
    # A refund committed just after the completion's own check (simulated directly).
    WebhookEvent.objects.create(
        provider="stripe",
        event_id="evt_late_refund",
        type="charge.refunded",
        payment_intent_id="pi_test_1",
        payload=refunded(),
    )
    for callback in completion_callbacks:
        callback()
    assert tier_of(buyer) == policy.Tier.FREE
    assert Entitlement.objects.get(purchase=purchase).revoked_at is not None
