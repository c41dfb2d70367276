"""The one email the discussion sends: a reply, to the author of the comment it answers.

``comment_create`` queues ``community.notify_reply`` with the reply's id once its
transaction commits; the task calls ``send_reply_email``, which decides again from the
rows as they are then (the reply may have been deleted or hidden meanwhile, the parent's
author may have turned replies off or deleted their account) and sends at most one
email. The preference is the user's ``email_replies`` field (the profile page sets it);
it is read off the author row, as the access app reads the user's currency.
"""

from __future__ import annotations

import logging
import re

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string

from inferview.community.models import Comment
from questions.markdown import plain_text

logger = logging.getLogger(__name__)

#: How much of the reply the email quotes; the link leads to the rest.
QUOTE_CHARS = 600


def _recipient(reply: Comment):
    """The parent's author, if they are to hear of this reply; else None."""
    parent = reply.parent
    if parent is None or not reply.is_visible or not parent.is_visible:
        return None
    to = parent.author
    if to is None or not to.is_active or not to.email or to.pk == reply.author_id:
        return None
    if not to.email_replies:
        return None
    return to


def site_origin(site: str | None) -> str:
    """The origin e-mails link to: the one the request came in on when the caller knows
    it (a validated host: ``request.build_absolute_uri``), else ``SITE_DOMAIN``."""
    if site and re.fullmatch(r"https?://[A-Za-z0-9.\-\[\]:]{1,253}", site):
        return site
    protocol = getattr(settings, "ACCOUNT_DEFAULT_HTTP_PROTOCOL", "http")
    return f"{protocol}://{settings.SITE_DOMAIN}"


def send_reply_email(comment_id: int, site: str | None = None) -> bool:
    """Email the author of the comment ``comment_id`` replies to; True if one was sent."""
    reply = (
        Comment.objects.select_related("author", "parent__author", "question__track", "concept")
        .filter(pk=comment_id)
        .first()
    )
    if reply is None:
        return False
    to = _recipient(reply)
    if to is None:
        return False
    site = site_origin(site)
    context = {
        "recipient": to,
        "replier": reply.author.public_name if reply.author else "Someone",
        "title": str(reply.target.title),
        "quote": plain_text(reply.body, limit=QUOTE_CHARS),
        "link": f"{site}{reply.target.get_absolute_url()}#comment-{reply.pk}",
        "preferences": f"{site}/account/",
        "site_name": settings.SITE_NAME,
    }
    subject = " ".join(render_to_string("community/email/reply_subject.txt", context).split())
    body = render_to_string("community/email/reply_message.txt", context)
    send_mail(subject, body, None, [to.email])
    logger.info("emailed reply %s to user %s", reply.pk, to.pk)
    return True


@shared_task(name="community.notify_reply", acks_late=True)
def notify_reply(comment_id: int, site: str | None = None) -> bool:
    return send_reply_email(comment_id, site)


def schedule_reply_email(reply: Comment, *, site: str | None = None) -> None:
    """Queue the email once the reply's transaction commits, if it would be sent as things
    stand (the task asks again). Nothing here may raise: the reply is saved, and a broker
    that is away costs the email, not the page."""
    if _recipient(reply) is None:  # as things stand now: no task for a reply to oneself
        return

    def enqueue() -> None:
        try:
            notify_reply.delay(reply.pk, site)
        except Exception:
            logger.exception("could not queue community.notify_reply for %s", reply.pk)

    transaction.on_commit(enqueue)
