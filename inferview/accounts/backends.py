"""Authentication backends that load the signed-in reader together with their tier.

Every signed-in request loads its user, and nearly every page then asks the access policy
for the reader's tier: two queries. Here the user row comes with an ``EXISTS`` over their
active premium entitlements (``policy.has_premium_expression``) and the tier is memoised
on it (``policy.remember_tier``), so it is one query, read fresh on every request like
the user itself (a purchase or refund shows on the next page).
"""

from __future__ import annotations

from typing import Any

from allauth.account.auth_backends import AuthenticationBackend as AllauthBackend
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from inferview.access import policy


class _LoadsTier:
    def get_user(self, user_id: Any) -> Any:
        model = get_user_model()
        try:
            user = model._default_manager.annotate(
                _has_premium=policy.has_premium_expression()
            ).get(pk=user_id)
        except model.DoesNotExist:
            return None
        policy.remember_tier(user, has_premium=user._has_premium)
        return user if self.user_can_authenticate(user) else None  # type: ignore[attr-defined]


class ReaderBackend(_LoadsTier, ModelBackend):
    """Django's username-and-password backend (the admin signs in with it)."""


class AllauthReaderBackend(_LoadsTier, AllauthBackend):
    """allauth's backend (email sign-in on the site)."""
