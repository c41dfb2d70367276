"""Account pages beyond allauth's: the overview, the currency choice, deletion."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from django_ratelimit.core import is_ratelimited

from inferview.access import policy, pricing, selectors

from . import services
from .forms import CurrencyForm, DeleteAccountForm

#: Deleting checks the password, so unthrottled it is a password oracle for anyone holding
#: a session (a shared computer, a stolen cookie). allauth throttles password changes the
#: same way.
DELETE_RATE = "5/15m"


@login_required
def overview(request: HttpRequest) -> HttpResponse:
    user = request.user
    if request.method == "POST":
        form = CurrencyForm(request.POST)
        if form.is_valid():
            pricing.set_viewer_currency(request, form.cleaned_data["currency"])
            messages.success(request, "Saved your currency.")
            return redirect("accounts:overview")
    else:
        form = CurrencyForm(initial={"currency": pricing.viewer_currency(request)})
    return render(
        request,
        "accounts/overview.html",
        {
            "tier": policy.viewer_tier(user).name.lower(),
            "emails": EmailAddress.objects.filter(user=user).order_by("-primary", "email"),
            "currency_form": form,
            "remaining": selectors.remaining_answers(user=user),
            "price": pricing.premium_price(pricing.viewer_currency(request)),
            "purchase_count": selectors.purchases_of(user=user).count(),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def delete_account(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        throttled = is_ratelimited(
            request, group="accounts.delete", key="user", rate=DELETE_RATE, increment=True
        )
        form = DeleteAccountForm(request.POST, user=request.user, throttled=throttled)
        if throttled:
            form.is_valid()  # reports the throttle; the password is not checked
            return render(request, "accounts/delete.html", {"form": form}, status=429)
        if form.is_valid():
            user = request.user
            logout(request)
            services.delete_account(user=user)
            messages.success(request, "Your account and its personal data have been deleted.")
            return redirect("questions:home")
    else:
        form = DeleteAccountForm(user=request.user)
    return render(request, "accounts/delete.html", {"form": form})
