"""Premium pages: the offer, checkout, the provider's return pages, the webhook, receipts.

These views only adapt HTTP to ``services``; none of them decides who gets premium.
"""

from __future__ import annotations

import logging

import stripe
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from . import policy, pricing, selectors, services
from .models import Purchase
from .providers import (
    InvalidSignature,
    LocalProvider,
    PaymentsUnavailable,
    checkout_provider,
    get_provider,
    local_provider_enabled,
)

logger = logging.getLogger(__name__)


def _safe_next(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


def premium(request: HttpRequest) -> HttpResponse:
    currency = pricing.viewer_currency(request)
    return render(
        request,
        "access/premium.html",
        {
            "tier": policy.viewer_tier(request.user).name.lower(),
            "price": pricing.premium_price(currency),
            "prices": pricing.all_prices(),
            "remaining": selectors.remaining_answers(user=request.user),
            "reads": selectors.reads_per_track(),
            "payments_available": checkout_provider() is not None,
        },
    )


@require_POST
def set_currency(request: HttpRequest) -> HttpResponse:
    currency = request.POST.get("currency", "")
    if pricing.is_supported(currency):
        pricing.set_viewer_currency(request, currency)
    return redirect(_safe_next(request, reverse("access:premium")))


@login_required
@require_POST
def checkout(request: HttpRequest) -> HttpResponse:
    if policy.viewer_tier(request.user) >= policy.Tier.PREMIUM:
        messages.info(request, "You already have Premium: every answer is open to you.")
        return redirect("access:receipts")
    provider = checkout_provider()
    if provider is None:
        messages.error(request, "Payments are not available on this site right now.")
        return redirect("access:premium")
    currency = request.POST.get("currency") or pricing.viewer_currency(request)
    if not pricing.is_supported(currency):
        return HttpResponseBadRequest("Unsupported currency.")
    pricing.set_viewer_currency(request, currency)
    try:
        _purchase, url = services.start_checkout(
            user=request.user,
            price=pricing.premium_price(currency),
            provider=provider,
            success_url=request.build_absolute_uri(reverse("access:checkout-success")),
            cancel_url=request.build_absolute_uri(reverse("access:checkout-cancelled")),
        )
    except stripe.StripeError:
        logger.exception("could not create a Stripe checkout session")
        messages.error(request, "We could not reach the payment provider. Please try again.")
        return redirect("access:premium")
    return redirect(url)


@login_required
def checkout_success(request: HttpRequest) -> HttpResponse:
    """Where the provider sends the buyer back. It shows the purchase's state; it grants
    only through ``fulfil_checkout`` with the session as the *provider* reports it."""
    session_id = request.GET.get("session_id", "")
    if "\x00" in session_id:  # no provider issues one; PostgreSQL would refuse it (a 500)
        raise Http404
    purchase = get_object_or_404(
        selectors.purchases_of(user=request.user), checkout_session_id=session_id
    )
    unavailable = False
    if purchase.status == Purchase.Status.PENDING:
        try:
            session = get_provider(purchase.provider).retrieve_session(purchase.checkout_session_id)
        except stripe.StripeError:
            logger.warning("could not retrieve checkout %s", purchase.checkout_session_id)
            session = None
        except PaymentsUnavailable:
            # This deployment has no keys for the purchase's provider (a Stripe purchase on
            # a site since switched off): the webhook may still complete it, but this page
            # cannot ask, so it says so instead of refreshing for ever.
            logger.warning("checkout %s: its provider is not configured", purchase.provider)
            session, unavailable = None, True
        if session is not None:
            services.fulfil_checkout(provider_name=purchase.provider, session=session)
            purchase.refresh_from_db()
    policy.forget_tier(request.user)
    return render(
        request,
        "access/checkout_success.html",
        {
            "purchase": purchase,
            "is_premium": policy.viewer_tier(request.user) >= policy.Tier.PREMIUM,
            "unavailable": unavailable,
        },
    )


def checkout_cancelled(request: HttpRequest) -> HttpResponse:
    return render(request, "access/checkout_cancelled.html")


@login_required
def local_checkout(request: HttpRequest, session_id: str) -> HttpResponse:
    """The local provider's stand-in for Stripe's hosted page (DEBUG only)."""
    if not local_provider_enabled() or "\x00" in session_id:
        raise Http404
    purchase = get_object_or_404(
        selectors.purchases_of(user=request.user),
        provider=Purchase.Provider.LOCAL,
        checkout_session_id=session_id,
    )
    if request.method == "POST" and purchase.status == Purchase.Status.PENDING:
        payload, signature = LocalProvider().completed_event(purchase)
        # From here on this is exactly what the Stripe webhook view does.
        services.receive_webhook(provider_name="local", payload=payload, signature=signature)
        return redirect(
            reverse("access:checkout-success") + f"?session_id={purchase.checkout_session_id}"
        )
    return render(request, "access/local_checkout.html", {"purchase": purchase})


@csrf_exempt  # Stripe cannot send our CSRF token; the signature authenticates instead.
@require_POST
def stripe_webhook(request: HttpRequest) -> HttpResponse:
    try:
        outcome = services.receive_webhook(
            provider_name="stripe",
            payload=request.body,
            signature=request.headers.get("Stripe-Signature", ""),
        )
    except InvalidSignature:
        return HttpResponseBadRequest("Invalid signature.")
    except OperationalError:
        # The database could not give us the lock in time (SQLite under concurrent
        # deliveries, or the database is down). Nothing was committed; Stripe retries any
        # non-2xx delivery, and the retry is deduplicated like any other.
        logger.warning("webhook delivery deferred: database busy", exc_info=True)
        return HttpResponse(
            "busy", status=503, headers={"Retry-After": "5"}, content_type="text/plain"
        )
    return HttpResponse(outcome, content_type="text/plain")


@login_required
def receipts(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "access/receipts.html",
        {
            "purchases": selectors.receipts_of(user=request.user).select_related("entitlement"),
            "staff_grants": selectors.staff_grants_of(user=request.user),
        },
    )


@login_required
def receipt_detail(request: HttpRequest, pk: int) -> HttpResponse:
    purchase = get_object_or_404(selectors.purchases_of(user=request.user), pk=pk)
    return render(request, "access/receipt_detail.html", {"purchase": purchase})
