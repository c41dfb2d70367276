"""Account pages beyond allauth's: the overview, the currency choice, deletion."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from inferview.access import policy, pricing, selectors

from . import services
from .forms import CurrencyForm, DeleteAccountForm


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
        form = DeleteAccountForm(request.POST, user=request.user)
        if form.is_valid():
            user = request.user
            logout(request)
            services.delete_account(user=user)
            messages.success(request, "Your account and its personal data have been deleted.")
            return redirect("questions:home")
    else:
        form = DeleteAccountForm(user=request.user)
    return render(request, "accounts/delete.html", {"form": form})
