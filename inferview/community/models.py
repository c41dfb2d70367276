"""Bookmarks, progress and reviews, discussion.

Invariants live here as constraints (one bookmark per user and item, one progress row and
one review card per user and question, one difficulty vote per user and question, a
comment belongs to exactly one of a question or a concept). Writes go through
``services``; nothing here has behaviour beyond validation and display.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from questions.models import Concept, Question


def _one_target_constraint(name: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=(
            Q(question__isnull=False, concept__isnull=True)
            | Q(question__isnull=True, concept__isnull=False)
        ),
        name=name,
    )


class Bookmark(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bookmarks"
    )
    question = models.ForeignKey(
        Question, null=True, blank=True, on_delete=models.CASCADE, related_name="bookmarks"
    )
    concept = models.ForeignKey(
        Concept, null=True, blank=True, on_delete=models.CASCADE, related_name="bookmarks"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            _one_target_constraint("bookmark_one_target"),
            models.UniqueConstraint(
                fields=["user", "question"],
                condition=Q(question__isnull=False),
                name="bookmark_once_per_question",
            ),
            models.UniqueConstraint(
                fields=["user", "concept"],
                condition=Q(concept__isnull=False),
                name="bookmark_once_per_concept",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} → {self.question or self.concept}"

    @property
    def target(self) -> Question | Concept:
        return self.question or self.concept  # type: ignore[return-value]


class ProgressStatus(models.TextChoices):
    # "Not started" is the absence of a row, so a learner's page needs no row per question.
    NOT_STARTED = "not_started", "Not started"
    ATTEMPTED = "attempted", "Attempted"
    CONFIDENT = "confident", "Confident"


class Progress(models.Model):
    """A learner's own work on one question. ``approach`` is private to its author: no
    page, list or API shows it to anyone else (admin included: it is excluded there)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="progress"
    )
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="progress")
    status = models.CharField(
        max_length=16, choices=ProgressStatus.choices, default=ProgressStatus.ATTEMPTED
    )
    approach = models.TextField(blank=True)
    approach_updated_at = models.DateTimeField(null=True, blank=True)
    revealed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "progress"
        constraints = [
            models.UniqueConstraint(fields=["user", "question"], name="progress_once_per_question"),
            models.CheckConstraint(
                condition=~Q(status="not_started"), name="progress_row_is_started"
            ),
        ]
        indexes = [models.Index(fields=["user", "status"])]

    def __str__(self) -> str:
        return f"{self.user} · {self.question_id}: {self.status}"


class Rating(models.IntegerChoices):
    # The values are fsrs.Rating's, so a stored rating converts with ``fsrs.Rating(value)``.
    AGAIN = 1, "Again"
    HARD = 2, "Hard"
    GOOD = 3, "Good"
    EASY = 4, "Easy"


class ReviewCard(models.Model):
    """The FSRS memory state of one learner and one question (``fsrs.Card`` fields)."""

    class State(models.IntegerChoices):
        LEARNING = 1, "Learning"
        REVIEW = 2, "Review"
        RELEARNING = 3, "Relearning"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_cards"
    )
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="review_cards")
    state = models.PositiveSmallIntegerField(choices=State.choices, default=State.LEARNING)
    step = models.PositiveSmallIntegerField(null=True, blank=True, default=0)
    stability = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    due = models.DateTimeField(db_index=True)
    last_review = models.DateTimeField(null=True, blank=True)
    reps = models.PositiveIntegerField(default=0)
    last_rating = models.PositiveSmallIntegerField(choices=Rating.choices, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "question"], name="review_card_once_per_question"
            )
        ]
        indexes = [models.Index(fields=["user", "due"])]

    def __str__(self) -> str:
        return f"{self.user} · {self.question_id} due {self.due:%Y-%m-%d %H:%M}"


class Attempt(models.Model):
    """One rating of one question: the practice history."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts"
    )
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="attempts")
    rating = models.PositiveSmallIntegerField(choices=Rating.choices)
    reviewed_at = models.DateTimeField()
    due_after = models.DateTimeField(help_text="When the rating scheduled the next review.")

    class Meta:
        ordering = ["-reviewed_at", "-id"]
        indexes = [models.Index(fields=["user", "-reviewed_at"])]

    def __str__(self) -> str:
        return f"{self.user} rated {self.question_id} {self.get_rating_display()}"


class Comment(models.Model):
    """A comment on a question or a concept, or a reply to a top-level comment.

    Deleting by the author blanks the body and keeps the row, so replies stay in their
    thread under a "[deleted]" placeholder. Hiding is a moderator's decision, reversible
    in admin; a hidden comment shows as "[hidden by a moderator]" for the same reason.
    ``body_html`` is rendered and sanitised once, at write time.
    """

    question = models.ForeignKey(
        Question, null=True, blank=True, on_delete=models.CASCADE, related_name="comments"
    )
    concept = models.ForeignKey(
        Concept, null=True, blank=True, on_delete=models.CASCADE, related_name="comments"
    )
    # SET_NULL: deleting an account blanks its comments (accounts.services.delete_account)
    # but keeps the rows, so other people's replies stay in their threads.
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="comments"
    )
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies"
    )
    body = models.TextField(max_length=5000)
    body_html = models.TextField(editable=False, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["created_at", "id"]
        # Hiding and restoring is this permission's, not every staff account's: authors
        # are staff too, and write content, not moderate people.
        permissions = [("moderate_comment", "Can hide and restore comments")]
        constraints = [_one_target_constraint("comment_one_target")]
        indexes = [
            models.Index(fields=["question", "parent", "created_at"]),
            models.Index(fields=["concept", "parent", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"Comment {self.pk} by {self.author}"

    def clean(self) -> None:
        if self.parent_id and self.parent and self.parent.parent_id:
            raise ValidationError(
                {"parent": "Replies go one level deep: reply to the top comment."}
            )

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None

    @property
    def is_visible(self) -> bool:
        return self.deleted_at is None and self.hidden_at is None

    @property
    def target(self) -> Question | Concept:
        return self.question or self.concept  # type: ignore[return-value]


class CommentReport(models.Model):
    class Reason(models.TextChoices):
        SPAM = "spam", "Spam or advertising"
        ABUSE = "abuse", "Abusive or harassing"
        SPOILER = "spoiler", "Posts a locked answer"
        OTHER = "other", "Something else"

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="comment_reports"
    )
    reason = models.CharField(max_length=16, choices=Reason.choices)
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["comment", "reporter"], name="report_once_per_comment")
        ]

    def __str__(self) -> str:
        return f"Report on {self.comment_id}: {self.reason}"


class DifficultyFelt(models.TextChoices):
    EASIER = "easier", "Easier"
    AS_LABELLED = "as_labelled", "As labelled"
    HARDER = "harder", "Harder"


class DifficultyVote(models.Model):
    """How hard a question felt to a learner; a separate thing from any quality vote."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="difficulty_votes"
    )
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="difficulty_votes"
    )
    felt = models.CharField(max_length=16, choices=DifficultyFelt.choices)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "question"], name="difficulty_vote_once")
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.question_id} felt {self.felt}"


# --------------------------------------------------------------------- graded practice


class Draw(models.Model):
    """One attempt at a parametric question: the numbers its seed drew for this learner.

    The variant is stored beside the seed, so an attempt keeps its numbers even if an
    author later edits the question's variables."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField(help_text="The learner's attempt number, from 1.")
    seed = models.BigIntegerField()
    variant = models.JSONField()
    shown_for = models.JSONField(
        default=list,
        blank=True,
        help_text="Which parts had their answer shown (Show answer or a third miss): "
        "0 for the question, n for follow-up n. Answers after that never count.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "question", "number"], name="one_draw_per_attempt"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.question_id} attempt {self.number}"


class NumericAnswer(models.Model):
    """A numeric answer to a draw (or to one of its follow-ups) and its grade."""

    draw = models.ForeignKey(Draw, on_delete=models.CASCADE, related_name="answers")
    follow_up = models.PositiveSmallIntegerField(null=True, blank=True)
    value = models.FloatField()
    unit = models.CharField(max_length=24)
    answer = models.FloatField(help_text="The value in the question's unit.")
    expected = models.FloatField()
    correct = models.BooleanField(help_text="The grade; never counts once the answer was shown.")
    mistake = models.CharField(max_length=32, blank=True)
    after_shown = models.BooleanField(
        default=False,
        help_text="Typed after the answer was shown: kept, but counts nowhere "
        "(stats, FSRS, dashboard).",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.value_text}: {'right' if self.correct else 'wrong'}"

    @property
    def value_text(self) -> str:
        return f"{self.value:,.6g} {self.unit}"


class KeyPointScore(models.Model):
    """The key points a learner said their own answer made (ticked after the reveal)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    made = models.JSONField(help_text="1-based numbers of the points ticked.")
    total = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.user} made {len(self.made)}/{self.total} on {self.question_id}"

    @property
    def fraction(self) -> float:
        return len(self.made) / self.total if self.total else 0.0


class MockSession(models.Model):
    """A timed mock interview: N questions, one at a time, then a summary kept in history."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    filters = models.JSONField(default=dict, help_text="track, difficulty, kind as chosen.")
    minutes_per_question = models.PositiveSmallIntegerField(default=10)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.user} mock {self.started_at:%Y-%m-%d %H:%M}"


class MockItem(models.Model):
    session = models.ForeignKey(MockSession, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    response = models.TextField(blank=True)
    draw = models.ForeignKey(Draw, on_delete=models.SET_NULL, null=True, blank=True)
    numeric = models.ForeignKey(NumericAnswer, on_delete=models.SET_NULL, null=True, blank=True)
    key_points = models.ForeignKey(KeyPointScore, on_delete=models.SET_NULL, null=True, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="one_item_per_position")
        ]

    def __str__(self) -> str:
        return f"mock {self.session_id} #{self.position}"

    @property
    def seconds(self) -> int | None:
        if self.started_at and self.answered_at:
            return int((self.answered_at - self.started_at).total_seconds())
        return None


class CramPlan(models.Model):
    """Study ahead for an interview date: a day-by-day list that never reschedules FSRS."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    interview_on = models.DateField()
    track_slugs = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.user} cram to {self.interview_on}"


class CramItem(models.Model):
    plan = models.ForeignKey(CramPlan, on_delete=models.CASCADE, related_name="items")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    reason = models.CharField(max_length=16)  # due | weak | new
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["day", "id"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "question"], name="one_cram_item_per_question")
        ]

    def __str__(self) -> str:
        return f"{self.question_id} on {self.day}"


# Corrections live in their own package; imported here so Django registers the models.
from inferview.community.corrections.models import (  # noqa: E402, F401
    Correction as Correction,
)
from inferview.community.corrections.models import (  # noqa: E402, F401
    CorrectionReporter as CorrectionReporter,
)
