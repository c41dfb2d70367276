"""Account writes that are ours rather than allauth's."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from inferview.access import services as access_services
from inferview.community.discussion import services as discussion_services

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
