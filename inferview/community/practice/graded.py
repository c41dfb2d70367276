"""Graded practice: variants of parametric questions and numeric answers (key points are
``practice.key_points``).

The maths is ``calculators.grading`` (pure, no Django); this module decides who the
learner is (a user, or an anonymous visitor's session), which attempt they are on,
what is stored, and what the access policy lets them see:

- anyone who can see a published question may try its variants and learn whether they
  are right and which mistake they made;
- the expected number and the worked steps are part of the answer, so they follow the
  access policy like the answer text;
- signed-in learners' draws and answers are stored; the first answer to an attempt
  feeds the FSRS review (wrong is "again", right is "good") when they may read it.
- try first: a wrong answer gets a hint (the named slip, or how far off and in which
  direction), never the right number; the number and the worked steps appear after a
  right answer, "Show answer" or the third miss (``MISSES_BEFORE_SHOWN``). An answer typed
  after that is stored with ``after_shown`` and counts nowhere: not in the stats, the FSRS
  schedule or the dashboard's first-try accuracy.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max, Min

from calculators import grading
from calculators.errors import CalculatorInputError
from calculators.formatting import number
from inferview.access import policy
from inferview.community.common import signed_in
from inferview.community.models import Draw, KeyPointScore, NumericAnswer, Rating
from inferview.community.practice import services
from questions.models import Question

SESSION_KEY = "graded_practice"  # anonymous visitors: {"learner": token, "draws": {key: n}}
MAX_ATTEMPTS = 10_000
MAX_ABS_VALUE = 1e30
MISSES_BEFORE_SHOWN = 3  # the third miss shows the answer


@dataclass(frozen=True)
class Variant:
    """What the learner is asked on one attempt (and, with ``follow_up``, one follow-up)."""

    question: Question
    spec: grading.PracticeSpec
    number: int
    seed: int
    values: dict[str, Any]
    follow_up: int | None = None

    @property
    def prompt(self) -> str:
        return grading.prompt_for(self.spec, self.values, self.follow_up)

    @property
    def base_prompt(self) -> str:
        return grading.prompt_for(self.spec, self.values)

    @property
    def follow_ups(self) -> list[tuple[int, str]]:
        return [
            (i, grading.prompt_for(self.spec, self.values, i))
            for i in range(1, len(self.spec.follow_ups) + 1)
        ]


@dataclass(frozen=True)
class GradedAnswer:
    variant: Variant
    grade: grading.Grade
    may_read: bool  # whether the policy lets this reader see the expected value and steps
    saved: NumericAnswer | None
    misses: int = 0  # wrong answers to this part so far, this one included
    after_shown: bool = False  # typed after the answer was shown: counts nowhere
    shown: bool = False  # the answer is shown now (right, Show answer, or third miss)

    @property
    def counts(self) -> bool:
        return not self.after_shown

    @property
    def correct(self) -> bool:
        """Right, and it counts (an answer after the answer was shown never does)."""
        return self.grade.correct and not self.after_shown

    @property
    def reveals(self) -> bool:
        """Whether the right number and the worked steps go with this grade."""
        return self.may_read and (self.grade.correct or self.shown)

    @property
    def mistake(self) -> grading.Mistake | None:
        return grading.MISTAKES.get(self.grade.mistake or "")

    @property
    def hint(self) -> str:
        """For a wrong answer with no named slip: the first worked step whose factor the
        answer is off by, or how far off it is (``grading.step_hint``)."""
        if self.grade.correct or self.mistake is not None:
            return ""
        v = self.variant
        return grading.step_hint(v.spec, v.values, self.grade.answer, v.follow_up)

    @property
    def expected_text(self) -> str:
        return f"{number(self.grade.expected)} {self.variant.spec.unit}"


def spec_of(question: Question) -> grading.PracticeSpec:
    spec = question.practice_spec
    if spec is None:
        raise ValidationError({"question": "This question has no graded practice."})
    return spec


def _learner(user: Any, session: Any) -> str:
    if signed_in(user):
        return f"user:{user.pk}"
    if session is None:
        raise PermissionDenied("Practice needs a session or an account.")
    state = session.setdefault(SESSION_KEY, {})
    if "learner" not in state:
        state["learner"] = secrets.token_hex(8)
        session.modified = True
    return f"anon:{state['learner']}"


def current_number(*, user: Any, session: Any, question: Question) -> int:
    """The attempt the learner is on: their latest draw, or 1."""
    if signed_in(user):
        latest = Draw.objects.filter(user=user, question=question).aggregate(n=Max("number"))
        return latest["n"] or 1
    if session is None:
        return 1
    return int((session.get(SESSION_KEY) or {}).get("draws", {}).get(question.key, 1))


def variant(
    *,
    user: Any,
    session: Any,
    question: Question,
    number: int | None = None,
    follow_up: int | None = None,
) -> Variant:
    """The variant of attempt ``number`` (default: the current one); same learner, question
    and number always give the same values."""
    spec = spec_of(question)
    current = current_number(user=user, session=session, question=question)
    number = current if number is None else number
    if not 1 <= number <= current:
        raise ValidationError({"attempt": f"Choose an attempt from 1 to {current}."})
    if follow_up is not None and not 1 <= follow_up <= len(spec.follow_ups):
        raise ValidationError(
            {"follow_up": f"This question has {len(spec.follow_ups)} follow-up(s)."}
        )
    stored = (
        Draw.objects.filter(user=user, question=question, number=number).first()
        if signed_in(user)
        else None
    )
    if stored is not None:
        values, seed = stored.variant, stored.seed
    else:
        seed = grading.seed_for(_learner(user, session), question.key, number)
        values = grading.draw(spec, seed)
    return Variant(question, spec, number, seed, values, follow_up)


@transaction.atomic
def new_attempt(*, user: Any, session: Any, question: Question) -> Variant:
    """Draw new numbers: the next attempt number, stored for a signed-in learner."""
    spec = spec_of(question)
    number = current_number(user=user, session=session, question=question) + 1
    if number > MAX_ATTEMPTS:
        raise ValidationError({"attempt": "That is enough attempts at this question."})
    seed = grading.seed_for(_learner(user, session), question.key, number)
    values = grading.draw(spec, seed)
    if signed_in(user):
        if number == 2 and not Draw.objects.filter(user=user, question=question).exists():
            _store_draw(user, question, 1, spec, session)
        Draw.objects.get_or_create(
            user=user, question=question, number=number, defaults={"seed": seed, "variant": values}
        )
    else:
        state = session.setdefault(SESSION_KEY, {})
        state.setdefault("draws", {})[question.key] = number
        session.modified = True
    return Variant(question, spec, number, seed, values)


def _store_draw(
    user: Any, question: Question, number: int, spec: grading.PracticeSpec, session: Any
) -> Draw:
    seed = grading.seed_for(_learner(user, session), question.key, number)
    draw, _ = Draw.objects.get_or_create(
        user=user,
        question=question,
        number=number,
        defaults={"seed": seed, "variant": grading.draw(spec, seed)},
    )
    return draw


def _clean_value(value: Any, unit: Any, spec: grading.PracticeSpec) -> tuple[float, str]:
    errors: dict[str, str] = {}
    number: float | None = None
    try:
        number = float(str(value).replace(",", "").strip())
    except (TypeError, ValueError):
        errors["value"] = "Enter a number, such as 42 or 1.5e3."
    else:
        if not math.isfinite(number) or abs(number) > MAX_ABS_VALUE:
            errors["value"] = "Enter a finite number."
    unit = str(unit or "").strip()
    if unit not in spec.units:
        errors["unit"] = f"Choose one of: {', '.join(spec.units)}."
    if errors:
        raise ValidationError(errors)
    assert number is not None
    return number, unit


@transaction.atomic
def answer(
    *,
    user: Any,
    session: Any,
    question: Question,
    value: Any,
    unit: Any,
    number: int | None = None,
    follow_up: int | None = None,
) -> GradedAnswer:
    """Grade a numeric answer to an attempt (or one of its follow-ups); store it for a
    signed-in learner; the first answer to an attempt feeds FSRS."""
    if not question.published or not question.track.published:
        raise PermissionDenied("This question is not published.")
    spec = spec_of(question)
    value, unit = _clean_value(value, unit, spec)
    asked = variant(
        user=user, session=session, question=question, number=number, follow_up=follow_up
    )
    try:
        result = grading.grade(spec, asked.values, value, unit, follow_up)
    except (CalculatorInputError, ValueError) as exc:  # a spec edited under a stored draw
        raise ValidationError({"question": f"This variant cannot be graded: {exc}"}) from exc
    may_read = policy.can_read(user, question)
    saved = None
    part = follow_up or 0
    if signed_in(user):
        draw = Draw.objects.select_for_update().get(
            pk=_store_draw(user, question, asked.number, spec, session).pk
        )
        earlier = draw.answers.filter(follow_up=follow_up)
        first = follow_up is None and not earlier.exists()
        after_shown = part in draw.shown_for
        misses = earlier.filter(correct=False, after_shown=False).count()
        saved = NumericAnswer.objects.create(
            draw=draw,
            follow_up=follow_up,
            value=value,
            unit=unit,
            answer=result.answer,
            expected=result.expected,
            correct=result.correct and not after_shown,
            mistake=result.mistake or "",
            after_shown=after_shown,
        )
        if not result.correct and not after_shown:
            misses += 1
            if misses >= MISSES_BEFORE_SHOWN:
                draw.shown_for = sorted({*draw.shown_for, part})
                draw.save(update_fields=["shown_for"])
        if first and may_read and not after_shown:
            services.review_rate(
                user=user,
                question=question,
                rating=Rating.GOOD if result.correct else Rating.AGAIN,
            )
    else:
        tries = _session_tries(session, question, asked.number, part)
        after_shown = bool(tries["shown"])
        if not result.correct and not after_shown:
            tries["misses"] += 1
            tries["shown"] = tries["misses"] >= MISSES_BEFORE_SHOWN
        misses = tries["misses"]
        session.modified = True
    return GradedAnswer(
        asked,
        result,
        may_read,
        saved,
        misses=misses,
        after_shown=after_shown,
        shown=after_shown or misses >= MISSES_BEFORE_SHOWN,
    )


def _session_tries(session: Any, question: Question, number: int, part: int) -> dict:
    """An anonymous visitor's misses and "shown" flag for one part of one attempt."""
    if session is None:
        raise PermissionDenied("Practice needs a session or an account.")
    state = session.setdefault(SESSION_KEY, {})
    return state.setdefault("tries", {}).setdefault(
        f"{question.key}|{number}|{part}", {"misses": 0, "shown": False}
    )


@transaction.atomic
def show_answer(
    *,
    user: Any,
    session: Any,
    question: Question,
    number: int | None = None,
    follow_up: int | None = None,
) -> Variant:
    """ "Show answer": from now on this part's answers are recorded as after the answer
    was shown and never count. Needs read access, as the number is part of the answer."""
    if not policy.can_read(user, question):
        raise PermissionDenied("Your plan does not include this answer.")
    asked = variant(
        user=user, session=session, question=question, number=number, follow_up=follow_up
    )
    part = follow_up or 0
    if signed_in(user):
        draw = Draw.objects.select_for_update().get(
            pk=_store_draw(user, question, asked.number, asked.spec, session).pk
        )
        if part not in draw.shown_for:
            draw.shown_for = sorted({*draw.shown_for, part})
            draw.save(update_fields=["shown_for"])
    else:
        _session_tries(session, question, asked.number, part)["shown"] = True
        session.modified = True
    return asked


def counts_as_review(*, user: Any, asked: Variant) -> bool:
    """Whether the next answer to ``asked`` rates the question in the reader's reviews, as
    ``answer`` decides: the first answer to an attempt's own numbers (not a follow-up), by a
    signed-in reader who may read the answer, before the answer was shown."""
    if not signed_in(user) or asked.follow_up is not None:
        return False
    if not policy.can_read(user, asked.question):
        return False
    draw = Draw.objects.filter(user=user, question=asked.question, number=asked.number).first()
    if draw is None:
        return True
    return 0 not in draw.shown_for and not draw.answers.filter(follow_up=None).exists()


def is_shown(*, user: Any, session: Any, asked: Variant) -> bool:
    """Whether this part's answer was already shown (so it may be shown again)."""
    part = asked.follow_up or 0
    if signed_in(user):
        draw = Draw.objects.filter(user=user, question=asked.question, number=asked.number).first()
        return draw is not None and part in draw.shown_for
    state = (session or {}).get(SESSION_KEY) or {}
    key = f"{asked.question.key}|{asked.number}|{part}"
    return bool(state.get("tries", {}).get(key, {}).get("shown"))


def shown_steps(*, user: Any, asked: Variant) -> dict | None:
    """The worked steps of a part whose answer was shown, for a reader of the answer."""
    if not policy.can_read(user, asked.question):
        return None
    return grading.worked(asked.spec, asked.values, asked.follow_up)


def expected_text(asked: Variant) -> str:
    """The right number of a part, with its unit (only for a reader shown the answer)."""
    value = grading.expected(asked.spec, asked.values, asked.follow_up)
    return f"{number(value)} {asked.spec.unit}"


def worked_steps(graded: GradedAnswer) -> dict | None:
    """The calculator's worked steps for the variant, or None when the answer is locked
    or not shown yet (a wrong answer before Show answer or the third miss)."""
    if not graded.reveals:
        return None
    v = graded.variant
    return grading.worked(v.spec, v.values, v.follow_up)


def answers_of(*, user: Any, question: Question, limit: int = 20) -> list[NumericAnswer]:
    if not signed_in(user):
        return []
    return list(
        NumericAnswer.objects.filter(draw__user=user, draw__question=question)
        .select_related("draw")
        .order_by("-created_at", "-id")[:limit]
    )


@dataclass(frozen=True)
class PracticeStats:
    answers: int
    right: int
    top_mistakes: list[tuple[str, int]]  # (label, count), most frequent first
    key_point_scores: int
    key_point_percent: int | None

    @property
    def right_percent(self) -> int | None:
        return round(100 * self.right / self.answers) if self.answers else None


def stats(user: Any) -> PracticeStats:
    """Numeric answers (right and the mistakes named) and key-point scores, for the dashboard."""
    if not signed_in(user):
        return PracticeStats(0, 0, [], 0, None)
    # First tries only: the first answer to each attempt's question (not its follow-ups),
    # unless the answer was shown before it. Later tries and answers after the answer was
    # shown are practice, not a measure of what the learner knew.
    firsts = (
        NumericAnswer.objects.filter(draw__user=user, follow_up=None)
        .values("draw_id")
        .annotate(first=Min("id"))
        .values("first")
    )
    answers = NumericAnswer.objects.filter(pk__in=firsts, after_shown=False)
    counts: dict[str, int] = {}
    counting = NumericAnswer.objects.filter(draw__user=user, after_shown=False)
    for slug in counting.exclude(mistake="").values_list("mistake", flat=True):
        counts[slug] = counts.get(slug, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    scores = list(KeyPointScore.objects.filter(user=user).values_list("made", "total"))
    made = sum(len(m) for m, _ in scores)
    total = sum(t for _, t in scores)
    return PracticeStats(
        answers=answers.count(),
        right=answers.filter(correct=True).count(),
        top_mistakes=[
            (grading.MISTAKES[s].label if s in grading.MISTAKES else s, n) for s, n in top
        ],
        key_point_scores=len(scores),
        key_point_percent=round(100 * made / total) if total else None,
    )
