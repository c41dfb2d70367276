"""Key points: the points a good answer makes, which the learner ticks after the reveal.

They are part of the answer, so ``key_points_for`` is the one gate every practice surface
(the question page, the key-points API, mock interviews) hands them out through: [] for
a viewer the access policy does not let read the answer. The fraction made becomes an
FSRS rating (``rating_for``)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from inferview.access import policy
from inferview.community.common import require_user, signed_in
from inferview.community.models import KeyPointScore, Rating
from inferview.community.practice import services
from questions.models import Question


def key_points_for(user: Any, question: Question) -> list[str]:
    """The question's key points, or [] when the viewer may not read its answer."""
    return list(question.key_points or []) if policy.can_read(user, question) else []


def rating_for(fraction: float) -> int:
    """Key points made -> FSRS rating: under 40% again, under 70% hard, all easy."""
    if fraction < 0.4:
        return Rating.AGAIN
    if fraction < 0.7:
        return Rating.HARD
    if fraction < 1:
        return Rating.GOOD
    return Rating.EASY


@transaction.atomic
def key_points_score(
    *, user: Any, question: Question, made: Any, rate: bool = True
) -> KeyPointScore:
    """Record which key points the learner's own answer made; feeds FSRS unless ``rate``
    is false (a mock interview rates once at its end, the same way)."""
    require_user(user)
    if not policy.can_read(user, question):
        raise PermissionDenied("Your plan does not include this answer.")
    total = len(question.key_points or [])
    if not total:
        raise ValidationError({"question": "This question has no key points yet."})
    try:
        ticked = sorted({int(m) for m in (made or [])})
    except (TypeError, ValueError) as exc:
        raise ValidationError({"made": "List the numbers of the points you made."}) from exc
    if any(not 1 <= m <= total for m in ticked):
        raise ValidationError({"made": f"Points are numbered 1 to {total}."})
    score = KeyPointScore.objects.create(user=user, question=question, made=ticked, total=total)
    if rate:
        services.review_rate(user=user, question=question, rating=rating_for(score.fraction))
    return score


def last_key_points(*, user: Any, question: Question) -> KeyPointScore | None:
    if not signed_in(user):
        return None
    return KeyPointScore.objects.filter(user=user, question=question).first()
