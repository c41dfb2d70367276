"""The email a reporter gets when an author fixes or declines their report, with the
author's change note.

``correction_decide`` queues ``community.notify_correction`` with the correction's id once
its transaction commits; the task decides again from the rows as they are then (the report
may have been reopened meanwhile) and emails each reporter separately (no reporter learns
who else reported). The preference is the user's ``email_replies`` field, the one email
switch on the account page ("replies to my comments and what became of my reports").
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string

from inferview.community.corrections.models import Correction, CorrectionState

logger = logging.getLogger(__name__)


def _recipients(correction: Correction) -> list[Any]:
    return [
        r.user
        for r in correction.reports.select_related("user")
        if r.user.is_active and r.user.email and r.user.email_replies
    ]


def send_decision_emails(correction_id: int) -> int:
    """Email each reporter who wants it; returns how many emails were sent."""
    correction = (
        Correction.objects.select_related(
            "question__track", "concept", "guide_item__section__guide"
        )
        .filter(pk=correction_id, state__in=[CorrectionState.FIXED, CorrectionState.DECLINED])
        .first()
    )
    if correction is None:
        return 0
    from inferview.community.corrections.selectors import target_url

    protocol = getattr(settings, "ACCOUNT_DEFAULT_HTTP_PROTOCOL", "http")
    site = f"{protocol}://{settings.SITE_DOMAIN}"
    target = correction.target
    title = target.section.guide.title if hasattr(target, "section") else target.title  # type: ignore[union-attr]
    sent = 0
    for to in _recipients(correction):
        context = {
            "recipient": to,
            "fixed": correction.state == CorrectionState.FIXED,
            "title": str(title),
            "quote": correction.quote,
            "change_note": correction.change_note,
            "link": f"{site}{target_url(correction)}",
            "dashboard": f"{site}/dashboard/",
            "preferences": f"{site}/account/",
            "site_name": settings.SITE_NAME,
        }
        subject = " ".join(
            render_to_string("community/email/correction_subject.txt", context).split()
        )
        body = render_to_string("community/email/correction_message.txt", context)
        send_mail(subject, body, None, [to.email])
        sent += 1
    logger.info("emailed %s reporter(s) of correction %s", sent, correction.pk)
    return sent


@shared_task(name="community.notify_correction", acks_late=True)
def notify_correction(correction_id: int) -> int:
    return send_decision_emails(correction_id)


def schedule_decision_emails(correction: Correction) -> None:
    """Queue the emails once the decision commits. Nothing here may raise: the decision is
    saved, and a broker that is away costs the emails, not the admin page."""
    pk = correction.pk

    def enqueue() -> None:
        try:
            notify_correction.delay(pk)
        except Exception:
            logger.exception("could not queue community.notify_correction for %s", pk)

    transaction.on_commit(enqueue)
