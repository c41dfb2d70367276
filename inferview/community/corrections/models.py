"""A reported mistake and the readers who reported it.

One ``Correction`` per passage while it is open: a second reader quoting the same passage
of the same item joins it as another ``CorrectionReporter`` (with their own note), so the
authors' queue counts readers rather than listing duplicates. The quote and the notes are
private to the reporters and the authors; only the author's ``change_note`` of a fixed
correction is ever shown on the page ("What changed").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from questions.models import Concept, GuideItem, Question

QUOTE_MAX_LENGTH = 1000
NOTE_MAX_LENGTH = 2000
CHANGE_NOTE_MAX_LENGTH = 2000


class CorrectionKind(models.TextChoices):
    WRONG = "wrong", "Wrong number or fact"
    OUTDATED = "outdated", "Outdated"
    UNCLEAR = "unclear", "Unclear"
    TYPO = "typo", "Typo"
    BROKEN = "broken", "Broken link or diagram"


class CorrectionState(models.TextChoices):
    OPEN = "open", "Open"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"
    FIXED = "fixed", "Fixed"


#: States in which a report is still being worked on: a new report of its passage joins it.
OPEN_STATES = (CorrectionState.OPEN, CorrectionState.ACCEPTED)


class TargetType(models.TextChoices):
    QUESTION = "question", "Question"
    CONCEPT = "concept", "Concept"
    GUIDE_ITEM = "guide_item", "Guide item"


class Correction(models.Model):
    question = models.ForeignKey(
        Question, null=True, blank=True, on_delete=models.CASCADE, related_name="corrections"
    )
    concept = models.ForeignKey(
        Concept, null=True, blank=True, on_delete=models.CASCADE, related_name="corrections"
    )
    guide_item = models.ForeignKey(
        GuideItem, null=True, blank=True, on_delete=models.CASCADE, related_name="corrections"
    )
    # Whitespace collapsed, as matched against the reader's text (``text.normalise``).
    quote = models.TextField(max_length=QUOTE_MAX_LENGTH)
    kind = models.CharField(max_length=16, choices=CorrectionKind.choices)
    state = models.CharField(
        max_length=16, choices=CorrectionState.choices, default=CorrectionState.OPEN, db_index=True
    )
    reporters: models.ManyToManyField = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="CorrectionReporter",
        related_name="corrections_reported",
    )
    change_note = models.TextField(
        max_length=CHANGE_NOTE_MAX_LENGTH,
        blank=True,
        help_text="For readers: what was wrong and what changed. Shown under “What changed” "
        "when fixed, and emailed to the reporters when fixed or declined.",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The target's latest django-reversion Version when it was marked fixed: the revision
    # that holds the fix (None when the item has no recorded revision).
    fixed_version = models.ForeignKey(
        "reversion.Version", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(question__isnull=False, concept__isnull=True, guide_item__isnull=True)
                    | Q(question__isnull=True, concept__isnull=False, guide_item__isnull=True)
                    | Q(question__isnull=True, concept__isnull=True, guide_item__isnull=False)
                ),
                name="correction_one_target",
            ),
            models.CheckConstraint(
                condition=~Q(state__in=["fixed", "declined"]) | ~Q(change_note=""),
                name="correction_decision_has_note",
            ),
        ]
        indexes = [
            models.Index(fields=["question", "state"]),
            models.Index(fields=["concept", "state"]),
            models.Index(fields=["guide_item", "state"]),
        ]

    def __str__(self) -> str:
        return f"Correction {self.pk} ({self.get_kind_display()}, {self.get_state_display()})"

    @property
    def target(self) -> Question | Concept | GuideItem:
        return self.question or self.concept or self.guide_item  # type: ignore[return-value]

    @property
    def target_type(self) -> str:
        if self.question_id:
            return TargetType.QUESTION
        if self.concept_id:
            return TargetType.CONCEPT
        return TargetType.GUIDE_ITEM

    @property
    def target_id(self) -> int:
        return self.question_id or self.concept_id or self.guide_item_id  # type: ignore[return-value]


class CorrectionReporter(models.Model):
    """One reader's report of a correction's passage, with their own note."""

    correction = models.ForeignKey(Correction, on_delete=models.CASCADE, related_name="reports")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="correction_reports"
    )
    note = models.TextField(max_length=NOTE_MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["correction", "user"], name="correction_report_once")
        ]

    def __str__(self) -> str:
        return f"Report of correction {self.correction_id} by {self.user_id}"
