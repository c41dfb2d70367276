"""One row of every kind a reader can own, for the export test and the restore drill."""

from __future__ import annotations

import datetime as dt
from typing import Any

from allauth.account.models import EmailAddress
from django.utils import timezone

from calculators.models import CalculationRun
from inferview.access.models import Entitlement, Purchase
from inferview.community.corrections.models import Correction, CorrectionReporter
from inferview.community.models import (
    Attempt,
    Bookmark,
    Comment,
    CommentReport,
    CramItem,
    CramPlan,
    DifficultyVote,
    Draw,
    KeyPointScore,
    MockItem,
    MockSession,
    NumericAnswer,
    Progress,
    ReviewCard,
)


def fill_reader(user: Any, question: Any, concept: Any, *, tag: str) -> dict[str, Any]:
    """Give ``user`` one row of each kind, each carrying ``tag`` where it holds free text,
    so a test can tell one reader's rows from another's. Returns the rows by kind."""
    now = timezone.now()
    EmailAddress.objects.get_or_create(
        user=user, email=user.email, defaults={"verified": True, "primary": True}
    )
    purchase = Purchase.objects.create(
        user=user,
        provider="local",
        checkout_session_id=f"cs_{tag}",
        currency="USD",
        amount=2500,
        status="paid",
        paid_at=now,
    )
    rows: dict[str, Any] = {"purchase": purchase}
    rows["entitlement"] = Entitlement.objects.create(
        user=user, plan="premium", source="purchase", purchase=purchase, reason=f"bought {tag}"
    )
    rows["bookmark"] = Bookmark.objects.create(user=user, question=question)
    rows["progress"] = Progress.objects.create(
        user=user, question=question, approach=f"My approach {tag}", approach_updated_at=now
    )
    rows["review_card"] = ReviewCard.objects.create(user=user, question=question, due=now)
    rows["attempt"] = Attempt.objects.create(
        user=user,
        question=question,
        rating=3,
        reviewed_at=now,
        due_after=now + dt.timedelta(days=3),
    )
    rows["vote"] = DifficultyVote.objects.create(user=user, question=question, felt="harder")
    draw = Draw.objects.create(user=user, question=question, number=1, seed=7, variant={"tag": tag})
    rows["draw"] = draw
    rows["numeric"] = NumericAnswer.objects.create(
        draw=draw, value=42.0, unit="GB", answer=42.0, expected=42.0, correct=True
    )
    rows["key_points"] = KeyPointScore.objects.create(
        user=user, question=question, made=[0, 2], total=3
    )
    mock = MockSession.objects.create(user=user, filters={"tag": tag})
    rows["mock"] = mock
    rows["mock_item"] = MockItem.objects.create(
        session=mock, position=1, question=question, response=f"Mock answer {tag}"
    )
    plan = CramPlan.objects.create(user=user, interview_on=now.date() + dt.timedelta(days=9))
    rows["cram"] = plan
    rows["cram_item"] = CramItem.objects.create(
        plan=plan, question=question, day=now.date(), reason=f"cram {tag}"
    )
    comment = Comment.objects.create(question=question, author=user, body=f"Comment {tag}")
    rows["comment"] = comment
    rows["comment_report"] = CommentReport.objects.create(
        comment=comment, reporter=user, reason="spam", note=f"report {tag}"
    )
    correction = Correction.objects.create(concept=concept, quote=f"Quote {tag}", kind="wrong")
    rows["correction"] = correction
    rows["correction_reporter"] = CorrectionReporter.objects.create(
        correction=correction, user=user, note=f"Correction note {tag}"
    )
    rows["run"] = CalculationRun.objects.create(
        calculator="kv_cache", inputs={"tag": tag}, inputs_hash=f"h-{tag}", requested_by=user
    )
    return rows
