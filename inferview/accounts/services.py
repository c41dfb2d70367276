"""Account writes that are ours rather than allauth's."""

from __future__ import annotations

import logging
from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from inferview.access import services as access_services
from inferview.community.discussion import services as discussion_services
from questions.roles import ensure_authors_group

logger = logging.getLogger(__name__)


@transaction.atomic
def delete_account(*, user: Any) -> None:
    """Delete a learner and their personal data.

    The user row goes, and with it (by CASCADE) their email addresses, sessions' owner,
    bookmarks, progress and practice history. Their comments are blanked and
    detached (shown as "[deleted]") so that other people's replies keep their thread. Purchases and entitlements are
    financial records the provider also holds: they are kept without the person
    (``user`` becomes NULL) so a later refund or dispute still matches its payment, and
    active entitlements are revoked first, with the reason, rather than deleted.
    """
    access_services.revoke_all_for_user(user=user, reason="account deleted by its owner")
    # Comments lose their text and author but keep their place, so replies survive.
    discussion_services.comments_detach_author(user=user)
    user_id = user.pk
    user.delete()
    logger.info("deleted account %s", user_id)


@transaction.atomic
def author_make(*, email: str, password: str | None = None) -> tuple[Any, bool]:
    """Make ``email`` an author: staff in the "authors" group (content in admin, nothing
    else). An existing account is promoted; a new one is created, without a usable
    password unless one is given. Returns the user and whether it was created.

    The operator vouches for the address, so it is stored verified and primary: sign-in
    does not wait for a verification e-mail (allauth's mandatory verification is for
    self-service sign-up). A bad address raises ``ValidationError`` keyed by "email".
    """
    email = email.strip().lower()
    try:
        validate_email(email)
    except ValidationError:
        raise ValidationError({"email": f"{email!r} is not a valid address"}) from None
    User = get_user_model()
    user = User.objects.filter(email__iexact=email).first()
    created = user is None
    if created:
        user = User(email=email, username=email)
        if not password:
            user.set_unusable_password()
    if password:
        user.set_password(password)
    user.is_staff = True
    user.save()
    user.groups.add(ensure_authors_group())
    EmailAddress.objects.update_or_create(
        user=user, email=email, defaults={"verified": True, "primary": True}
    )
    return user, created
