"""Account pages beyond allauth's: the overview (profile, currency, two-factor sign-in,
sessions), the data export, deletion."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_ratelimit.core import is_ratelimited

from inferview.access import policy, pricing, selectors

from . import export, profile, security, services
from .forms import (
    CurrencyForm,
    DeleteAccountForm,
    EmailPreferencesForm,
    ProfileForm,
    TimeZoneForm,
)

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
    zone_form = TimeZoneForm(initial={"time_zone": user.time_zone})
    status = 200
    if request.method == "POST" and request.POST.get("form") == "time_zone":
        zone_form = TimeZoneForm(request.POST)
        if zone_form.is_valid():
            profile.set_time_zone(user=user, **zone_form.cleaned_data)
            messages.success(request, "Saved your time zone.")
            return redirect("accounts:overview")
        status = 400
    elif request.method == "POST" and request.POST.get("form") == "email":
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
            "zone_form": zone_form,
            "remaining": selectors.remaining_answers(user=user),
            "price": pricing.premium_price(pricing.viewer_currency(request)),
            # the receipts page lists what took money: abandoned checkouts are not receipts
            "receipt_count": selectors.receipts_of(user=user).count(),
            "has_second_factor": security.has_second_factor(user),
            "sessions": security.sessions_of(user=user, current_key=request.session.session_key),
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


@login_required
@require_POST
def end_sessions(request: HttpRequest) -> HttpResponse:
    """Sign out one other session (``session`` names it) or, with ``all_others``, every
    session but this one."""
    current = request.session.session_key
    if request.POST.get("all_others"):
        count = security.end_other_sessions(user=request.user, current_key=current)
        messages.success(request, f"Signed out {count} other session{'s' if count != 1 else ''}.")
        return redirect("accounts:overview")
    try:
        session_id = int(request.POST.get("session", ""))
    except ValueError:
        return HttpResponseBadRequest("session: give the number of one of your sessions.")
    if security.end_session(user=request.user, session_id=session_id, current_key=current):
        messages.success(request, "Signed out that session.")
    else:
        messages.error(request, "That session had already ended.")
    return redirect("accounts:overview")


@login_required
@require_GET
@never_cache
def export_download(request: HttpRequest) -> HttpResponse:
    """Everything the site holds about the reader, as a JSON file to keep."""
    response = HttpResponse(
        export.export_json(user=request.user), content_type="application/json; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{export.export_filename()}"'
    return response


@login_required
def two_factor_required(request: HttpRequest) -> HttpResponse:
    """Where the admin sends staff without a second factor (also rendered in its place)."""
    return render(request, "accounts/two_factor_required.html", status=403)
