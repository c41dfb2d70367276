"""Writes for purchases and entitlements.

``fulfil_checkout`` is the one function that turns a paid checkout into premium. The
webhook calls it, and so does the success page, but only with session data it fetched
from the provider itself: a browser arriving at the success URL proves nothing.

Exactly-once is the database's job, not timing's:

* ``WebhookEvent`` is unique on (provider, event id), so a duplicate or replayed delivery
  fails its insert and does nothing; the insert and the event's effects share one
  transaction, so a delivery that fails part-way is retried by the provider in full;
* the purchase row is locked (``select_for_update``) while it changes state, so two
  events for one checkout (or the webhook racing the success page) serialise;
* ``Entitlement.purchase`` is one-to-one, so even a bug above cannot grant twice;
* a refund and a completion of the same payment processed at the same moment cannot see
  each other's rows, so each re-checks after its own commit (``apply_revocations``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from . import policy, pricing
from .models import Entitlement, Purchase, WebhookEvent
from .pricing import Price
from .providers import PaymentProvider, get_provider, is_clean_id

logger = logging.getLogger(__name__)

PREMIUM = "premium"
COMPLETION_EVENTS = {"checkout.session.completed", "checkout.session.async_payment_succeeded"}
REVOKING_EVENTS = {
    "charge.refunded": Purchase.Status.REFUNDED,
    "charge.dispute.created": Purchase.Status.DISPUTED,
}


def start_checkout(
    *, user: Any, price: Price, provider: PaymentProvider, success_url: str, cancel_url: str
) -> tuple[Purchase, str]:
    """Create the provider's checkout session and the pending purchase keyed by its id."""
    session = provider.create_session(
        user=user, price=price, success_url=success_url, cancel_url=cancel_url
    )
    purchase = Purchase.objects.create(
        user=user,
        provider=provider.name,
        checkout_session_id=session.id,
        currency=price.currency,
        amount=price.amount,
        plan=PREMIUM,
    )
    return purchase, session.url


def receive_webhook(*, provider_name: str, payload: bytes, signature: str) -> str:
    """Verify a delivery and apply it. Raises ``InvalidSignature`` before touching anything."""
    event = get_provider(provider_name).verify_delivery(payload=payload, signature=signature)
    return process_event(provider_name=provider_name, event=event)


#: The fields of an event's object we keep. Events carry the buyer's name, email and
#: address; we keep none of it, so deleting an account leaves no personal data here.
RECORDED_FIELDS = (
    "id",
    "object",
    "payment_status",
    "status",
    "payment_intent",
    "amount_total",
    "currency",
    "refunded",
    "amount_refunded",
    "charge",
    "reason",
)


# Signed events are still checked field by field: a malformed one (null or list ``data``,
# a string ``object``, an over-long or NUL id, a string amount, a 7-letter currency) is
# recorded and ignored or refused, never a 500, which Stripe would retry for days.


def _object_of(event: Mapping) -> Mapping:
    """The event's ``data.object``, or an empty mapping when either level is not an object."""
    data = event.get("data")
    obj = data.get("object") if isinstance(data, Mapping) else None
    return obj if isinstance(obj, Mapping) else {}


def _storable(value: Any) -> bool:
    """A scalar that JSON (and PostgreSQL's jsonb: no NUL, no NaN) can hold."""
    if isinstance(value, str):
        return "\x00" not in value and len(value) <= 1000
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, int)


def _recorded_payload(event: Mapping) -> dict:
    obj = _object_of(event)
    kept = {key: obj[key] for key in RECORDED_FIELDS if key in obj and _storable(obj[key])}
    created = event.get("created")
    return {
        "id": event.get("id"),
        "type": event.get("type"),
        "created": created if isinstance(created, int) else None,
        "data": {"object": kept},
    }


def _payment_intent_of(event: Mapping) -> str:
    value = _object_of(event).get("payment_intent") or ""
    if isinstance(value, Mapping):  # an expanded object
        value = value.get("id", "")
    return value if is_clean_id(value) else ""


def _session_id_of(session: Mapping) -> str:
    value = session.get("id")
    return value if is_clean_id(value) else ""


#: The largest amount ``Purchase.amount`` (a PositiveIntegerField) holds on every database.
MAX_AMOUNT = 2_147_483_647


def _amount_of(session: Mapping) -> int | None:
    """``amount_total`` in minor units, or None when it is not a whole number that fits."""
    value = session.get("amount_total")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_AMOUNT:
        return None
    return value


def _currency_of(session: Mapping) -> str:
    """The ISO 4217 code, upper case, or "" when it is not three letters."""
    value = session.get("currency")
    if isinstance(value, str) and len(value) == 3 and value.isascii() and value.isalpha():
        return value.upper()
    return ""


@transaction.atomic
def process_event(*, provider_name: str, event: Mapping) -> str:
    """Apply one verified event once. Returns "duplicate", "ignored", "refused" (a checkout
    that is not the site's product: recorded, nothing granted) or "processed"."""
    try:
        with transaction.atomic():
            WebhookEvent.objects.create(
                provider=provider_name,
                event_id=str(event["id"]),
                type=str(event["type"]),
                payment_intent_id=_payment_intent_of(event),
                payload=_recorded_payload(event),
            )
    except IntegrityError:
        return "duplicate"

    kind = event["type"]
    obj = _object_of(event)
    if not obj and (kind in COMPLETION_EVENTS or kind in REVOKING_EVENTS):
        logger.warning("webhook %s (%s) has no data.object; ignored", event["id"], kind)
        return "ignored"
    if kind in COMPLETION_EVENTS:
        purchase = fulfil_checkout(provider_name=provider_name, session=obj)
        if purchase is not None and purchase.status == Purchase.Status.REFUSED:
            return "refused"  # recorded for a human; a 2xx all the same, or Stripe retries
        return "processed"
    if kind == "checkout.session.expired":
        Purchase.objects.filter(
            provider=provider_name,
            checkout_session_id=_session_id_of(obj) or None,
            status=Purchase.Status.PENDING,
        ).update(status=Purchase.Status.EXPIRED)
        return "processed"
    if kind in REVOKING_EVENTS:
        # A partial refund leaves the purchase standing; only a full refund revokes.
        if kind == "charge.refunded" and obj.get("refunded") is not True:
            return "ignored"
        revoke_purchase(
            provider_name=provider_name,
            payment_intent_id=_payment_intent_of(event),
            status=REVOKING_EVENTS[kind],
            reason=f"{kind} ({event['id']})",
        )
        return "processed"
    return "ignored"


def _user_for_session(session: Mapping) -> Any | None:
    metadata = session.get("metadata")
    ref = session.get("client_reference_id") or (
        metadata.get("user_id") if isinstance(metadata, Mapping) else None
    )
    # isdecimal, not isdigit: "²" is a digit int() cannot read. 18 digits fit a bigint.
    if not isinstance(ref, str | int) or isinstance(ref, bool):
        return None
    ref = str(ref)
    if not ref.isascii() or not ref.isdecimal() or len(ref) > 18:
        return None
    return get_user_model().objects.filter(pk=int(ref)).first()


def _plan_of(session: Mapping) -> str:
    """``metadata.plan`` as the session carries it ("" when absent or not text)."""
    metadata = session.get("metadata")
    plan = metadata.get("plan") if isinstance(metadata, Mapping) else None
    return plan.replace("\x00", "") if isinstance(plan, str) else ""


def _not_our_product(plan: str, currency: str, amount: int | None) -> str:
    """Why a session is not the site's own product at the site's price, or "".

    Checked against the price list, never against the session: another product on the
    same Stripe account (a tip jar, a Payment Link whose buyer set ``client_reference_id``)
    is signed by Stripe just the same."""
    if plan != PREMIUM:
        return f"is another plan ({plan[:40]!r})"
    if not currency or amount is None:
        return "has no usable amount or currency"
    if not pricing.is_supported(currency):
        return f"is in {currency}, a currency premium is not sold in"
    price = pricing.premium_price(currency)
    if amount != price.amount:
        return f"paid {amount} {currency} where the price is {price.amount} {currency}"
    return ""


def _locked_purchase(provider_name: str, session: Mapping) -> Purchase | None:
    session_id = _session_id_of(session)
    if not session_id:
        logger.warning("checkout event without a usable session id; ignored")
        return None
    purchase = (
        Purchase.objects.select_for_update()
        .filter(provider=provider_name, checkout_session_id=session_id)
        .first()
    )
    if purchase is not None:
        return purchase
    # A session we have no row for: our insert was lost, or it is not our checkout at all.
    # It is rebuilt only as the site's own product at the site's price for a user we know;
    # anything else is recorded as refused for a human, and grants nothing.
    user = _user_for_session(session)
    plan, currency, amount = _plan_of(session), _currency_of(session), _amount_of(session)
    problem = "has no user we know" if user is None else _not_our_product(plan, currency, amount)
    if problem:
        logger.error("checkout %s %s; not granting", session_id, problem)
    try:
        with transaction.atomic():
            Purchase.objects.create(
                user=user,
                provider=provider_name,
                checkout_session_id=session_id,
                currency=currency,
                amount=amount or 0,
                plan=plan[:32] if problem else PREMIUM,
                status=Purchase.Status.REFUSED if problem else Purchase.Status.PENDING,
                note=problem[:255],
            )
    except IntegrityError:
        pass
    return Purchase.objects.select_for_update().get(
        provider=provider_name, checkout_session_id=session_id
    )


@transaction.atomic
def fulfil_checkout(*, provider_name: str, session: Mapping) -> Purchase | None:
    """Grant premium for a paid checkout session, once. Safe to call any number of times.

    ``session`` is the provider's checkout session object, from a verified webhook event
    or fetched from the provider's API: never from the browser.
    """
    purchase = _locked_purchase(provider_name, session)
    if purchase is None or purchase.status != Purchase.Status.PENDING:
        return purchase  # unknown, or already paid, refunded, disputed or expired
    if session.get("payment_status") != "paid":
        return purchase  # e.g. a bank transfer still clearing: a later event completes it
    currency, amount = _currency_of(session), _amount_of(session)
    if currency != purchase.currency or amount != purchase.amount:
        logger.error(
            "checkout %s paid %s %s, expected %s %s; not granting",
            purchase.checkout_session_id,
            amount,
            currency,
            purchase.amount,
            purchase.currency,
        )
        return purchase

    now = timezone.now()
    purchase.payment_intent_id = _payment_intent_of({"data": {"object": session}})
    purchase.paid_at = now
    # A refund or dispute may have been delivered before the completion (providers do
    # not promise order); if so the purchase is born revoked and grants nothing.
    earlier = _revoking_event_for(provider_name, purchase.payment_intent_id)
    if earlier is not None:
        purchase.status = REVOKING_EVENTS[earlier.type]
        purchase.revoked_at = now
        purchase.save(update_fields=["payment_intent_id", "paid_at", "status", "revoked_at"])
        return purchase

    purchase.status = Purchase.Status.PAID
    purchase.save(update_fields=["payment_intent_id", "paid_at", "status"])
    if purchase.user_id is not None:
        Entitlement.objects.create(
            user_id=purchase.user_id,
            plan=purchase.plan,
            source=Entitlement.Source.PURCHASE,
            purchase=purchase,
            reason=f"{purchase.get_provider_display()} checkout {purchase.checkout_session_id}",
        )
    # A refund racing this completion could have committed after our check above; look
    # again once we have committed (see apply_revocations).
    _apply_revocations_on_commit(provider_name, purchase.payment_intent_id)
    return purchase


def _revoking_event_for(provider_name: str, payment_intent_id: str) -> WebhookEvent | None:
    """The first full refund or dispute recorded for this payment, if any."""
    if not payment_intent_id:
        return None
    for event in WebhookEvent.objects.filter(
        provider=provider_name, payment_intent_id=payment_intent_id, type__in=list(REVOKING_EVENTS)
    ).order_by("received_at", "id"):
        refund = event.payload.get("data", {}).get("object", {})
        if event.type != "charge.refunded" or refund.get("refunded") is True:
            return event
    return None


def apply_revocations(*, provider_name: str, payment_intent_id: str) -> Purchase | None:
    """Apply a recorded refund or dispute to its purchase, if both exist by now.

    A refund and the completion of the same payment can be processed at the same moment:
    the refund finds no purchase with that payment intent yet, and the completion does not
    see the refund's uncommitted event. Each side therefore calls this after its own
    commit; whichever commits second sees the other's row, so the revocation is applied.
    """
    event = _revoking_event_for(provider_name, payment_intent_id)
    if event is None:
        return None
    return revoke_purchase(
        provider_name=provider_name,
        payment_intent_id=payment_intent_id,
        status=REVOKING_EVENTS[event.type],
        reason=f"{event.type} ({event.event_id})",
        schedule_retry=False,
    )


def _apply_revocations_on_commit(provider_name: str, payment_intent_id: str) -> None:
    if payment_intent_id:
        transaction.on_commit(
            lambda: apply_revocations(
                provider_name=provider_name, payment_intent_id=payment_intent_id
            )
        )


@transaction.atomic
def revoke_purchase(
    *,
    provider_name: str,
    payment_intent_id: str,
    status: str,
    reason: str,
    schedule_retry: bool = True,
) -> Purchase | None:
    """Mark a refunded or disputed purchase and revoke (never delete) its entitlement."""
    if not payment_intent_id:
        return None
    purchase = (
        Purchase.objects.select_for_update()
        .filter(provider=provider_name, payment_intent_id=payment_intent_id)
        .first()
    )
    if purchase is None:
        # Completion not seen yet: fulfil_checkout will find this event, and if the two
        # are racing, one of the post-commit checks applies it.
        if schedule_retry:
            _apply_revocations_on_commit(provider_name, payment_intent_id)
        return None
    if purchase.status in (Purchase.Status.REFUNDED, Purchase.Status.DISPUTED):
        return purchase
    now = timezone.now()
    purchase.status = status
    purchase.revoked_at = now
    purchase.save(update_fields=["status", "revoked_at"])
    Entitlement.objects.filter(purchase=purchase, revoked_at__isnull=True).update(
        revoked_at=now, revoked_reason=reason
    )
    return purchase


def grant_premium(*, user: Any, granted_by: Any, reason: str) -> Entitlement:
    """Staff grant (support, gifts, press). A reason is required and kept."""
    if not reason.strip():
        raise ValueError("a reason is required to grant premium")
    entitlement = Entitlement.objects.create(
        user=user,
        plan=PREMIUM,
        source=Entitlement.Source.STAFF,
        granted_by=granted_by,
        reason=reason,
    )
    policy.forget_tier(user)
    return entitlement


def revoke_entitlement(*, entitlement: Entitlement, revoked_by: Any, reason: str) -> bool:
    """Revoke one entitlement with a reason. Returns False if it was already revoked."""
    if not reason.strip():
        raise ValueError("a reason is required to revoke premium")
    changed = Entitlement.objects.filter(pk=entitlement.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_reason=reason, revoked_by=revoked_by
    )
    entitlement.refresh_from_db()
    if entitlement.user is not None:
        policy.forget_tier(entitlement.user)
    return bool(changed)


@transaction.atomic
def revoke_all_for_user(*, user: Any, reason: str) -> int:
    """Revoke every active entitlement of ``user`` with ``reason`` (account deletion).

    The rows stay, as financial records the provider also holds; returns how many changed.
    """
    if not reason.strip():
        raise ValueError("a reason is required to revoke premium")
    changed = Entitlement.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_reason=reason
    )
    policy.forget_tier(user)
    return changed
