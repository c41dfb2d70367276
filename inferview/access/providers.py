"""Payment providers: Stripe Checkout, and a local stand-in for development.

A provider creates a checkout session, verifies a webhook delivery's signature and turns
it into an event dict, and (Stripe only) retrieves a session's state for the success
page. Everything after verification, fulfilment included, is shared code in
``services``, so the local provider exercises the same path as Stripe from the webhook on.

Both providers sign deliveries the same way (Stripe's ``t=...,v1=HMAC-SHA256`` header);
the local provider's secret is derived from ``SECRET_KEY`` and never leaves the server.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

import stripe
from django.conf import settings
from django.urls import reverse

from .pricing import Price

logger = logging.getLogger(__name__)

#: Stripe's default: a delivery signed more than five minutes ago is a replay.
SIGNATURE_TOLERANCE_SECONDS = 300


class InvalidSignature(Exception):
    """The delivery is not from the provider (or is a stale replay). Nothing may change."""


class MalformedEvent(InvalidSignature):
    """Signed, but not an event we can record: no usable id or type. Answered 400 like a bad
    signature (nothing is recorded); anything past the envelope is the services' to judge."""


class PaymentsUnavailable(Exception):
    """No provider is configured for this deployment."""


@dataclass(frozen=True)
class CheckoutSession:
    id: str
    url: str


class PaymentProvider(Protocol):
    name: str

    def create_session(
        self, *, user: Any, price: Price, success_url: str, cancel_url: str
    ) -> CheckoutSession: ...

    def verify_delivery(self, *, payload: bytes, signature: str) -> dict: ...

    def retrieve_session(self, session_id: str) -> dict | None: ...


def _verify_stripe_style(payload: bytes, signature: str, secret: str) -> dict:
    if not secret:
        raise InvalidSignature("no webhook secret configured")
    try:
        stripe.WebhookSignature.verify_header(
            payload.decode("utf-8"), signature, secret, SIGNATURE_TOLERANCE_SECONDS
        )
        event = json.loads(payload)
    except (stripe.SignatureVerificationError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidSignature(str(exc)) from exc
    except RecursionError:
        problem = "nested too deeply"
    else:
        problem = _envelope_problem(event)
    if problem:
        # Signed by the provider, so worth a look; refused (400) because it cannot be
        # recorded, and recording comes before any effect.
        logger.warning("signed webhook delivery refused: %s", problem)
        raise MalformedEvent(problem)
    return event


def _envelope_problem(event: object) -> str:
    if not isinstance(event, dict):
        return "not an event object"
    for key, limit in (("id", ID_MAX_LENGTH), ("type", TYPE_MAX_LENGTH)):
        if not is_clean_id(event.get(key), limit):
            return f"event {key} is not a usable string"
    return ""


#: Column widths of WebhookEvent.event_id and .type: longer ids cannot be recorded.
ID_MAX_LENGTH = 255
TYPE_MAX_LENGTH = 100


def is_clean_id(value: object, limit: int = ID_MAX_LENGTH) -> TypeGuard[str]:
    """A provider id we can store and look up: a non-empty string that fits its column and
    holds no NUL (PostgreSQL text cannot)."""
    return isinstance(value, str) and 0 < len(value) <= limit and "\x00" not in value


def sign_payload(payload: bytes, secret: str, *, timestamp: int | None = None) -> str:
    """A Stripe-format signature header for ``payload`` (the local provider and tests)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    signed = f"{timestamp}.".encode() + payload
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


class StripeProvider:
    name = "stripe"

    def _client(self) -> stripe.StripeClient:
        if not settings.STRIPE_SECRET_KEY:
            raise PaymentsUnavailable("STRIPE_SECRET_KEY is not set")
        return stripe.StripeClient(settings.STRIPE_SECRET_KEY)

    def create_session(
        self, *, user: Any, price: Price, success_url: str, cancel_url: str
    ) -> CheckoutSession:
        params: Any = {
            "mode": "payment",
            "line_items": [
                {
                    "quantity": 1,
                    "price_data": {
                        "currency": price.currency.lower(),
                        "unit_amount": price.amount,
                        "product_data": {"name": f"{settings.SITE_NAME} Premium"},
                    },
                }
            ],
            "client_reference_id": str(user.pk),
            "metadata": {"user_id": str(user.pk), "plan": "premium"},
            "success_url": success_url + "?session_id={CHECKOUT_SESSION_ID}",
            "cancel_url": cancel_url,
        }
        if user.email:
            params["customer_email"] = user.email
        session = self._client().v1.checkout.sessions.create(params=params)
        return CheckoutSession(id=session.id, url=session.url or "")

    def verify_delivery(self, *, payload: bytes, signature: str) -> dict:
        return _verify_stripe_style(payload, signature, settings.STRIPE_WEBHOOK_SECRET)

    def retrieve_session(self, session_id: str) -> dict | None:
        session = self._client().v1.checkout.sessions.retrieve(session_id)
        return session.to_dict()


def local_provider_enabled() -> bool:
    """The local provider grants premium without money: development only, never without DEBUG."""
    return bool(settings.DEBUG and settings.PAYMENTS_LOCAL_PROVIDER)


class LocalProvider:
    """Completes a checkout on a page of this site instead of Stripe's.

    Submitting that page builds the ``checkout.session.completed`` event Stripe would send,
    signs it, and hands it to the same ``services.receive_webhook`` the webhook view uses.
    """

    name = "local"

    @staticmethod
    def secret() -> str:
        return (
            "whsec_local_"
            + hmac.new(
                settings.SECRET_KEY.encode(), b"inferview.access.local-provider", hashlib.sha256
            ).hexdigest()
        )

    def create_session(
        self, *, user: Any, price: Price, success_url: str, cancel_url: str
    ) -> CheckoutSession:
        session_id = "cs_local_" + secrets.token_urlsafe(18)
        return CheckoutSession(
            id=session_id, url=reverse("access:local-checkout", args=[session_id])
        )

    def verify_delivery(self, *, payload: bytes, signature: str) -> dict:
        if not local_provider_enabled():
            raise InvalidSignature("the local provider is disabled")
        return _verify_stripe_style(payload, signature, self.secret())

    def retrieve_session(self, session_id: str) -> dict | None:
        # No remote state: a local session is only ever completed by its signed event.
        return None

    def completed_event(self, purchase: Any) -> tuple[bytes, str]:
        """The signed delivery Stripe would send when this checkout is paid."""
        event = {
            "id": "evt_local_" + secrets.token_urlsafe(18),
            "object": "event",
            "type": "checkout.session.completed",
            "created": int(time.time()),
            "data": {
                "object": {
                    "id": purchase.checkout_session_id,
                    "object": "checkout.session",
                    "payment_status": "paid",
                    "status": "complete",
                    "payment_intent": "pi_local_" + secrets.token_urlsafe(12),
                    "amount_total": purchase.amount,
                    "currency": purchase.currency.lower(),
                    "client_reference_id": str(purchase.user_id),
                    "metadata": {"user_id": str(purchase.user_id), "plan": purchase.plan},
                }
            },
        }
        payload = json.dumps(event).encode()
        return payload, sign_payload(payload, self.secret())


def get_provider(name: str) -> PaymentProvider:
    if name == "stripe":
        return StripeProvider()
    if name == "local":
        return LocalProvider()
    raise PaymentsUnavailable(name)


def checkout_provider() -> PaymentProvider | None:
    """The provider new checkouts use: Stripe when it has keys, else the local one in DEBUG."""
    if settings.STRIPE_SECRET_KEY:
        return StripeProvider()
    if local_provider_enabled():
        return LocalProvider()
    return None
