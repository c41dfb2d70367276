"""Account pages beyond allauth's: the overview (profile, currency), deletion."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from django_ratelimit.core import is_ratelimited

from inferview.access import policy, pricing, selectors

from . import profile, services
from .forms import CurrencyForm, DeleteAccountForm, EmailPreferencesForm, ProfileForm

#: Deleting checks the password, so unthrottled it is a password oracle for anyone holding
#: a session (a shared computer, a stolen cookie). allauth throttles password changes the
#: same way.
DELETE_RATE = "5/15m"


@login_required
def overview(request: HttpRequest) -> HttpResponse:
    """The learner's own settings in one place: display name and theme, currency, emails,
    plan and security. Each form posts here with ``form`` naming it (currency by default)."""
    user = request.user
    form = CurrencyForm(initial={"currency": pricing.viewer_currency(request)})
    profile_form = ProfileForm(
        initial={"display_name": user.display_name, "theme": user.theme}, user=user
    )
    email_form = EmailPreferencesForm(initial={"email_replies": user.email_replies})
    status = 200
    if request.method == "POST" and request.POST.get("form") == "email":
        email_form = EmailPreferencesForm(request.POST)
        if email_form.is_valid():
            profile.set_email_preferences(user=user, **email_form.cleaned_data)
            messages.success(request, "Saved your email preferences.")
            return redirect("accounts:overview")
        status = 400
    elif request.method == "POST" and request.POST.get("form") == "profile":
        profile_form = ProfileForm(request.POST, user=user)
        if profile_form.is_valid():
            try:
                profile.update_profile(user=user, **profile_form.cleaned_data)
            except ValidationError as exc:  # a race for the same name since the form's check
                for field, reasons in exc.message_dict.items():
                    for reason in reasons:
                        profile_form.add_error(field, reason)
            else:
                messages.success(request, "Saved your profile.")
                return redirect("accounts:overview")
        status = 400
    elif request.method == "POST":
        form = CurrencyForm(request.POST)
        if form.is_valid():
            pricing.set_viewer_currency(request, form.cleaned_data["currency"])
            messages.success(request, "Saved your currency.")
            return redirect("accounts:overview")
        status = 400
    return render(
        request,
        "accounts/overview.html",
        {
            "tier": policy.viewer_tier(user).name.lower(),
            "emails": EmailAddress.objects.filter(user=user).order_by("-primary", "email"),
            "currency_form": form,
            "profile_form": profile_form,
            "email_form": email_form,
            "remaining": selectors.remaining_answers(user=user),
            "price": pricing.premium_price(pricing.viewer_currency(request)),
            "purchase_count": selectors.purchases_of(user=user).count(),
        },
        status=status,
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
