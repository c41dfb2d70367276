"""The allauth adapter: how failed sign-ins are counted.

allauth counts failed sign-ins per email address. That lets anyone lock a learner out
by typing their address with wrong passwords from anywhere. We count per (client IP,
email) instead, plus a looser per-IP cap against one machine trying many addresses, so
an attacker throttles only themselves and the owner can still sign in from elsewhere.

The key is built the same way whether or not an account with that email exists, and
the refusal message is the same too, so throttling never reveals which emails are
registered. (allauth also runs the password hasher for unknown emails.)
"""

from __future__ import annotations

import hashlib
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest

THROTTLED_MESSAGE = (
    "Too many failed sign-in attempts from this network. For your security, sign-in for "
    "this email address is paused here for 15 minutes. You can still reset your password, "
    "or sign in from another network."
)


#: Wrong codes at the second step count per account, not per network (allauth.mfa keys them
#: on the user: whoever is typing them already has the password).
CODE_THROTTLED_MESSAGE = (
    "Too many failed sign-in attempts with a code for this account. For your security, "
    "codes are refused for 15 minutes, wherever they are typed."
)
CODE_STEPS = {"mfa_authenticate", "mfa_reauthenticate"}


class AccountAdapter(DefaultAccountAdapter):
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": THROTTLED_MESSAGE,
    }

    def validation_error(self, code: str, *args: Any) -> Any:
        request = getattr(self, "request", None) or context.request
        match = getattr(request, "resolver_match", None)
        if code == "too_many_login_attempts" and match and match.url_name in CODE_STEPS:
            return ValidationError(CODE_THROTTLED_MESSAGE, code=code)
        return super().validation_error(code, *args)

    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        login = str(credentials.get("email", credentials.get("username", ""))).strip().lower()
        ip = self.get_client_ip(request)
        # Hashed so neither the address nor the IP sits in the cache in the clear.
        return hashlib.sha256(f"{ip}|{login}".encode()).hexdigest()

    def populate_username(self, request: HttpRequest, user: Any) -> None:
        """Give a new account a neutral public handle.

        The username is shown beside every comment, in HTML and the API. allauth's default
        derives it from the email address ("jane.doe@corp.example" becomes "jane.doe"),
        which would publish part of every commenter's email; a random handle does not.
        """
        from allauth.account.utils import user_username

        from . import profile

        if user_username(user):
            return
        user_username(user, profile.new_handle())

    def save_user(self, request: HttpRequest, user: Any, form: Any, commit: bool = True) -> Any:
        """Sign-up's public name and the handle its page showed (``forms.SignupForm``).

        Both are set before the account's one save. A name someone took between the form's
        check and this save (the unique skeleton index refuses it) is dropped rather than
        failing the sign-up: the account shows its handle and the learner is told so."""
        data = getattr(form, "cleaned_data", {})
        user = super().save_user(request, user, form, commit=False)
        if data.get("handle"):  # after allauth's, which draws a handle of its own
            user.username = data["handle"]
        user.display_name = data.get("display_name", "")
        if not commit:
            return user
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:
            if not user.display_name:
                raise
            user.display_name = ""
            with transaction.atomic():
                user.save()
            messages.warning(
                request,
                "Someone took that public name a moment ago, so you show as your handle. "
                "Choose another name on your account page.",
            )
        return user
