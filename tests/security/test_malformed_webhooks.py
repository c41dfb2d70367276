"""Signed but malformed Stripe events: each answers 400 (not an event we can record: no
usable id or type) or 2xx with a log line (recorded, nothing granted), never a 500, which
Stripe would retry for days. Stripe's guide: acknowledge what you receive with a 2xx,
refuse with a 4xx only what you cannot accept at all.

Run against PostgreSQL as well as SQLite: NUL bytes and over-long ids fail only there."""

import json
import logging

import pytest

from inferview.access.models import Entitlement, Purchase, WebhookEvent
from inferview.access.providers import is_clean_id
from tests.access.test_webhooks import SECRET, URL, completed, refunded, signature
from tests.factories import UserFactory

LONG = "x" * 300


@pytest.fixture(autouse=True)
def stripe_settings(settings):
    settings.STRIPE_SECRET_KEY = "sk_test_dummy"
    settings.STRIPE_WEBHOOK_SECRET = SECRET


def with_object(**changes):
    """A completion for the fixture's session with ``changes`` to its data.object."""
    event = completed()
    obj = event["data"]["object"]
    for key, value in changes.items():
        if value is DELETE:
            obj.pop(key, None)
        else:
            obj[key] = value
    return event


def with_event(**changes):
    event = completed()
    event.update(changes)
    return event


DELETE = object()
UNKNOWN_SESSION = {"id": "cs_unknown_1"}

# (name, event or raw bytes, expected status, a log line expected)
CASES = [
    # Not an event at all: nothing to record, so 400.
    ("event is a list", [completed()], 400, True),
    ("event is a string", "checkout.session.completed", 400, True),
    ("event is null", None, 400, True),
    ("id missing", {k: v for k, v in completed().items() if k != "id"}, 400, True),
    ("id is a number", with_event(id=12345), 400, True),
    ("id is over-long", with_event(id="evt_" + LONG), 400, True),
    ("id holds a NUL", with_event(id="evt_\x00nul"), 400, True),
    ("type is a list", with_event(type=["checkout.session.completed"]), 400, True),
    ("type is a number", with_event(type=7), 400, True),
    ("type is over-long", with_event(type="checkout." + LONG), 400, True),
    ("type holds a NUL", with_event(type="checkout.session.completed\x00"), 400, True),
    (
        "nested 5000 deep",
        b'{"id": "evt_d", "type": "x", "data": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        400,
        True,
    ),
    # An event with a broken body: recorded, acknowledged, nothing granted.
    ("data is null", with_event(data=None), 200, True),
    ("data is a list", with_event(data=[completed()["data"]]), 200, True),
    ("data is a string", with_event(data="object"), 200, True),
    ("object is a string", with_event(data={"object": "checkout.session"}), 200, True),
    ("object is null", with_event(data={"object": None}), 200, True),
    ("object is a list", with_event(data={"object": [completed()["data"]["object"]]}), 200, True),
    ("session id is over-long", with_object(id="cs_" + LONG), 200, True),
    ("session id holds a NUL", with_object(id="cs_test_1\x00"), 200, True),
    ("session id is a number", with_object(id=1), 200, True),
    ("session id is missing", with_object(id=DELETE), 200, True),
    ("amount is a string", with_object(amount_total="2500"), 200, True),
    ("amount is a float", with_object(amount_total=2500.5), 200, True),
    ("amount is true", with_object(amount_total=True), 200, True),
    ("currency has 7 letters", with_object(currency="usdollr"), 200, True),
    ("currency is a number", with_object(currency=840), 200, True),
    ("currency is a list", with_object(currency=["usd"]), 200, True),
    ("payment status is a list", with_object(payment_status=["paid"]), 200, False),
    # A session we have no row for is rebuilt from the client reference, when it is usable.
    ("unknown session, no client reference", with_object(**UNKNOWN_SESSION), 200, True),
    (
        "unknown session, reference not a number",
        with_object(**UNKNOWN_SESSION, client_reference_id="12a"),
        200,
        True,
    ),
    (
        "unknown session, superscript reference",
        with_object(**UNKNOWN_SESSION, client_reference_id="\u00b2"),
        200,
        True,
    ),
    (
        "unknown session, huge reference",
        with_object(**UNKNOWN_SESSION, client_reference_id="9" * 40),
        200,
        True,
    ),
    (
        "unknown session, metadata a list",
        with_object(**UNKNOWN_SESSION, metadata=["user_id"]),
        200,
        True,
    ),
    ("unknown session, negative amount", None, 200, True),  # built in the test: needs a user
    ("unknown session, 7-letter currency", None, 200, True),
    # Refunds and disputes with broken fields change nothing.
    (
        "refund flag is a string",
        dict(refunded(), id="evt_r1")
        | {"data": {"object": {"payment_intent": "pi_test_1", "refunded": "true"}}},
        200,
        False,
    ),
    (
        "refund with a NUL payment intent",
        {**refunded(), "data": {"object": {"payment_intent": "pi\x00", "refunded": True}}},
        200,
        False,
    ),
    (
        "refund with a list payment intent",
        {**refunded(), "data": {"object": {"payment_intent": ["pi_test_1"], "refunded": True}}},
        200,
        False,
    ),
    (
        "refund with an over-long payment intent",
        {**refunded(), "data": {"object": {"payment_intent": "pi_" + LONG, "refunded": True}}},
        200,
        False,
    ),
    ("created is NaN", with_event(created=float("nan"), data={"object": None}), 200, True),
    (
        "object fields hold NULs",
        with_object(status="comp\x00lete", payment_status="unpaid\x00"),
        200,
        False,
    ),
]


@pytest.fixture
def buyer(db):
    return UserFactory()


@pytest.fixture
def purchase(buyer):
    return Purchase.objects.create(
        user=buyer, provider="stripe", checkout_session_id="cs_test_1", currency="USD", amount=2500
    )


def post(client, body):
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(
        URL,
        data=payload,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=signature(payload),
    )


@pytest.mark.parametrize("name,event,expected,logged", CASES, ids=[c[0] for c in CASES])
def test_malformed_signed_event(name, event, expected, logged, client, purchase, buyer, caplog):
    if name == "unknown session, negative amount":
        event = with_object(**UNKNOWN_SESSION, client_reference_id=str(buyer.pk), amount_total=-1)
    elif name == "unknown session, 7-letter currency":
        event = with_object(
            **UNKNOWN_SESSION, client_reference_id=str(buyer.pk), currency="usdollr"
        )
    grant = (
        Entitlement.objects.create(user=buyer, plan="premium", source="purchase", purchase=purchase)
        if name.startswith("refund")
        else None
    )
    with caplog.at_level(logging.WARNING, logger="inferview.access"):
        r = post(client, event)
    assert r.status_code == expected, (r.status_code, r.content[:200])
    # Nothing changed hands: the pending purchase still pends, no grant came or went.
    purchase.refresh_from_db()
    if grant is None:
        assert purchase.status == "pending"
        assert not Entitlement.objects.exists()
    else:
        grant.refresh_from_db()
        assert grant.revoked_at is None
    # No purchase rebuilt from a broken session: an unknown one is kept as refused, for a
    # human to look at, and grants nothing.
    assert Purchase.objects.exclude(status=Purchase.Status.REFUSED).count() == 1
    assert Purchase.objects.count() == (2 if name.startswith("unknown session") else 1)
    assert WebhookEvent.objects.count() == (1 if expected == 200 else 0)
    if logged:
        assert any(rec.name.startswith("inferview.access") for rec in caplog.records), name


def test_a_recorded_malformed_event_is_a_duplicate_when_redelivered(client, purchase):
    event = with_event(data=None)
    assert post(client, event).content == b"ignored"
    assert post(client, event).content == b"duplicate"


def test_a_well_formed_event_after_malformed_ones_still_grants(client, purchase, buyer):
    # Each with an event id of its own, so none is dismissed as a duplicate.
    for i, (_, event, *_) in enumerate(CASES):
        if isinstance(event, dict) and is_clean_id(event.get("id")):
            event = {**event, "id": f"evt_malformed_{i}"}
        if event is not None:
            post(client, event)
    r = post(client, completed(event_id="evt_good"))
    assert r.status_code == 200 and r.content == b"processed"
    assert Entitlement.objects.filter(user=buyer, revoked_at__isnull=True).count() == 1
