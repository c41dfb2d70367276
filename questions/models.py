"""Content: tracks of numbered questions, concepts and guides.

``updated_at`` on content models is not ``auto_now``: it moves only when the content
itself changes (see ``questions.services.save_content``), so re-saving, re-ordering or
re-importing unchanged content leaves the "Updated" month alone.
"""

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone

from .checked import as_month, validate_checked
from .lesson_text import headings
from .practice import key_point_problems, practice_problems, practice_spec


class Category(models.TextChoices):
    SERVING = "serving", "Inference and serving"
    HARDWARE = "hardware", "GPUs and accelerators"
    KERNELS = "kernels", "Kernels and compilers"
    SYSTEMS = "systems", "Systems design"
    TRAINING = "training", "Distributed training"


class AccessLevel(models.TextChoices):
    """What a question's answer or a concept's body asks of its reader: the one definition.

    Content only labels itself; who may read each level is the access policy's decision
    (``inferview.access.policy``), which sits on the floor above and imports this.
    """

    OPEN = "open", "Open"
    ACCOUNT = "account", "Free account"
    PREMIUM = "premium", "Premium"


class Difficulty(models.TextChoices):
    EASY = "easy", "Easy"
    MEDIUM = "medium", "Medium"
    HARD = "hard", "Hard"


class Kind(models.TextChoices):
    EXPLAIN = "explain", "Explain"
    CALCULATION = "calculation", "Calculation"
    SPOT_THE_MISTAKE = "spot-the-mistake", "Spot the mistake"
    DESIGN = "design", "Design"
    DIAGNOSE = "diagnose", "Diagnose"


class Level(models.TextChoices):
    FOUNDATIONS = "foundations", "Foundations"
    INTERMEDIATE = "intermediate", "Intermediate"
    ADVANCED = "advanced", "Advanced"


class PublishedQuerySet(models.QuerySet):
    def published(self):
        return self.filter(published=True)


class ContentMixin(models.Model):
    """Fields every authored item has: publishing state and a content-driven update time."""

    published = models.BooleanField(default=False, db_index=True)
    published_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)
    content_hash = models.CharField(max_length=64, blank=True, editable=False)
    # content_hash when the item was last imported from, or exported to, a file: when the
    # two differ, the item was edited in admin since, and an import must not overwrite it.
    synced_hash = models.CharField(max_length=64, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Scheduled publishing (``questions.scheduling``, run by Celery beat): the item goes
    # live, or back to draft, at the first run at or after these times; both are cleared
    # once done, so a second run does nothing. ``scheduled_by`` names who set them.
    publish_at = models.DateTimeField(
        null=True, blank=True, help_text="Publish automatically at this time (server time zone)."
    )
    unpublish_at = models.DateTimeField(
        null=True, blank=True, help_text="Move back to draft automatically at this time."
    )
    scheduled_by = models.CharField(max_length=254, blank=True, editable=False)

    objects = PublishedQuerySet.as_manager()

    class Meta:
        abstract = True


class CheckedMixin(models.Model):
    """The month an item's facts (products, versions, defaults, prices, figures) were last
    verified against primary sources: the files' ``checked: YYYY-MM``, shown on the page
    beside "Updated". Optional in the database; ``check_content`` asks for it in the files."""

    checked = models.CharField(
        max_length=7,
        blank=True,
        default="",
        validators=[validate_checked],
        help_text="YYYY-MM: the month every product, version, figure and price here was last "
        "checked against a primary source.",
    )

    class Meta:
        abstract = True

    @property
    def checked_month(self):
        """The checked month as a date (its first day), for the pages; None when unset."""
        return as_month(self.checked)


class Track(ContentMixin):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    category = models.CharField(max_length=16, choices=Category.choices)
    icon = models.CharField(max_length=32, default="serving")
    order = models.PositiveIntegerField(default=0)
    summary = models.CharField(max_length=300)
    description = models.TextField(blank=True, help_text="Markdown")

    class Meta:
        ordering = ["order", "title"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("questions:track", args=[self.slug])


class Concept(CheckedMixin, ContentMixin):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    category = models.CharField(max_length=16, choices=Category.choices)
    level = models.CharField(max_length=16, choices=Level.choices, default=Level.FOUNDATIONS)
    access = models.CharField(max_length=16, choices=AccessLevel.choices, default=AccessLevel.OPEN)
    summary = models.CharField(max_length=300, help_text="Two lines at most, shown on cards.")
    body = models.TextField(help_text="Markdown")
    references = models.JSONField(
        default=list,
        blank=True,
        help_text="Further reading: a list of {title, publisher, year, url}.",
    )

    class Meta:
        ordering = ["category", "title"]

    def __str__(self) -> str:
        # Admin's autocomplete lists concepts by str(): mark drafts, which readers never see.
        return self.title if self.published else f"{self.title} (draft)"

    def get_absolute_url(self) -> str:
        return reverse("questions:concept", args=[self.slug])


def new_question_key() -> str:
    return uuid.uuid4().hex[:12]


class Question(CheckedMixin, ContentMixin):
    # The question's identity: it survives renumbering and slug changes, and is written to
    # the content file (``key:``), so the importer matches a file to its row by it.
    key = models.CharField(max_length=40, unique=True, default=new_question_key, editable=False)
    track = models.ForeignKey(Track, on_delete=models.PROTECT, related_name="questions")
    number = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    slug = models.SlugField(max_length=120)
    title = models.CharField(max_length=300, help_text="The interview question itself.")
    summary = models.CharField(
        max_length=300, help_text="One line: what a good answer separates or traces."
    )
    body = models.TextField(blank=True, help_text="Markdown: the scenario as posed.")
    answer = models.TextField(help_text="Markdown: the full answer.")
    references = models.JSONField(
        default=list,
        blank=True,
        help_text="Further reading: a list of {title, publisher, year, url}, shown with the answer.",
    )
    difficulty = models.CharField(max_length=8, choices=Difficulty.choices)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    access = models.CharField(max_length=16, choices=AccessLevel.choices, default=AccessLevel.OPEN)
    concepts = models.ManyToManyField(Concept, blank=True, related_name="questions")
    key_points = models.JSONField(
        default=list,
        blank=True,
        help_text="3-6 points a good answer must make (a list of sentences); gated with the "
        "answer. Learners tick the ones they made.",
    )
    practice = models.JSONField(
        default=dict,
        blank=True,
        help_text="Graded practice for a calculation question: {target, variables, tolerance, "
        "mistakes, follow_ups} as in content/README.md. Saving runs the author check.",
    )

    class Meta:
        ordering = ["track__order", "number"]
        constraints = [
            models.UniqueConstraint(fields=["track", "number"], name="question_number_per_track"),
            models.UniqueConstraint(fields=["track", "slug"], name="question_slug_per_track"),
        ]
        indexes = [models.Index(fields=["track", "published", "number"])]

    def __str__(self) -> str:
        return f"{self.track.title} / {self.number}: {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("questions:detail", args=[self.track.slug, self.number, self.slug])

    def clean(self) -> None:
        errors = {}
        if problems := key_point_problems(self.key_points):
            errors["key_points"] = problems
        if problems := practice_problems(self.practice):
            errors["practice"] = problems
        if errors:
            raise ValidationError(errors)

    @property
    def practice_spec(self):
        """The parsed practice spec (``calculators.grading.PracticeSpec``), or None."""
        return practice_spec(self.practice)

    def is_new(self, now=None) -> bool:
        from django.conf import settings

        if not self.published_at:
            return False
        now = now or timezone.now()
        return (now - self.published_at).days < settings.NEW_BADGE_DAYS


class QuestionSlugHistory(models.Model):
    """A slug a question had before, so its old URLs redirect to it (never to another)."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="old_slugs")
    track = models.ForeignKey(Track, on_delete=models.CASCADE, related_name="+")
    slug = models.SlugField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["track", "slug"], name="old_slug_per_track")]
        verbose_name_plural = "question slug history"

    def __str__(self) -> str:
        return f"{self.slug} → {self.question_id}"


class CalculatorEmbed(models.Model):
    """A calculator shown under "Work through the numbers", preset to the question's case."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="calculator_embeds"
    )
    order = models.PositiveIntegerField(default=0)
    calculator = models.CharField(max_length=40)
    preset = models.CharField(max_length=40, blank=True)
    inputs = models.JSONField(default=dict, blank=True)
    label = models.CharField(max_length=120, blank=True)

    class Meta:
        ordering = ["order", "id"]

    def __str__(self) -> str:
        return f"{self.calculator} ({self.preset or 'no preset'})"

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        from calculators.errors import CalculatorInputError
        from calculators.validation import validate

        try:
            validate(self.calculator, self.inputs or {}, self.preset or None)
        except CalculatorInputError as exc:
            raise ValidationError(
                "; ".join(f"{name}: {', '.join(reasons)}" for name, reasons in exc.fields.items())
            ) from exc


class Guide(CheckedMixin, ContentMixin):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    summary = models.CharField(max_length=300)
    intro = models.TextField(blank=True, help_text="Markdown")

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("questions:guide", args=[self.slug])


class GuideSection(CheckedMixin, models.Model):
    guide = models.ForeignKey(Guide, on_delete=models.CASCADE, related_name="sections")
    order = models.PositiveIntegerField(default=0)
    slug = models.SlugField(max_length=80)
    title = models.CharField(max_length=200)
    intro = models.TextField(blank=True, help_text="Markdown")
    concepts = models.ManyToManyField(Concept, blank=True, related_name="guide_sections")

    class Meta:
        ordering = ["order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["guide", "slug"], name="section_slug_per_guide")
        ]

    def __str__(self) -> str:
        return self.title


class ItemKind(models.TextChoices):
    CALCULATION = "calculation", "Calculation"
    SPOT_THE_MISTAKE = "spot-the-mistake", "Spot the mistake"
    DESIGN = "design", "Design question"
    FOLLOW_UP = "follow-up", "Follow-up"
    EXPLAIN = "explain", "Explain"


class GuideItem(models.Model):
    section = models.ForeignKey(GuideSection, on_delete=models.CASCADE, related_name="items")
    order = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=20, choices=ItemKind.choices)
    title = models.CharField(max_length=300)
    body = models.TextField(help_text="Markdown: the short answer.")

    class Meta:
        ordering = ["order", "id"]

    def __str__(self) -> str:
        return self.title


class ContentDraft(models.Model):
    """Unpublished edits of a live item (a question, concept, guide or guide item).

    The live row stays what learners see (pages, API, search, sitemap, export all read
    it); the draft holds the edited fields as JSON until "Publish draft" copies them onto
    the row in one transaction (``questions.drafts``). One draft per item.
    """

    content_type = models.ForeignKey("contenttypes.ContentType", on_delete=models.CASCADE)
    object_id = models.PositiveIntegerField()
    data = models.JSONField(default=dict)
    publish_at = models.DateTimeField(
        null=True, blank=True, help_text="Publish this draft automatically at this time."
    )
    scheduled_by = models.CharField(max_length=254, blank=True)
    edited_by = models.CharField(max_length=254, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["content_type", "object_id"], name="one_draft_per_item")
        ]

    def __str__(self) -> str:
        return f"Draft of {self.content_type.model} {self.object_id}"


class QuestionSimilarity(models.Model):
    """A question's nearest published neighbours by TF-IDF cosine, precomputed.

    Rows are rewritten together by the ``questions.recompute_similarity`` task after a
    content change (``questions.similarity``); a page view only reads its one row.
    ``neighbours`` is ``[[question_id, cosine], ...]``, best first.
    """

    question = models.OneToOneField(
        Question, on_delete=models.CASCADE, primary_key=True, related_name="similarity"
    )
    neighbours = models.JSONField(default=list)
    computed_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "question similarities"

    def __str__(self) -> str:
        return f"Neighbours of {self.question_id}"


class PracticeCheck(models.Model):
    """The author check of a question's practice spec (run by a Celery task on save)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DONE = "done"
        FAILED = "failed"

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="checks")
    spec = models.JSONField(help_text="The spec as it was when checked.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    ok = models.BooleanField(null=True)
    report = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"check of {self.question_id}: {self.status}"


# ---------------------------------------------------------------------------- the course


class Part(ContentMixin):
    """One part of the course (``content/lessons/<NN>-<slug>/_part.md``), in order."""

    number = models.PositiveIntegerField(unique=True, validators=[MinValueValidator(1)])
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    summary = models.CharField(max_length=300)
    intro = models.TextField(blank=True, help_text="Markdown")

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"{self.number}. {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("questions:course") + f"#part-{self.slug}"


def new_lesson_key() -> str:
    return uuid.uuid4().hex[:12]


class Lesson(CheckedMixin, ContentMixin):
    """A lesson: teaching in order, with worked numbers and diagrams; its ``access`` guards
    the body and the check items' answers, as a question's guards its answer."""

    # identity, as a question's: survives renumbering, moving part and slug changes
    key = models.CharField(max_length=40, unique=True, default=new_lesson_key, editable=False)
    part = models.ForeignKey(Part, on_delete=models.PROTECT, related_name="lessons")
    number = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    slug = models.SlugField(max_length=120, unique=True)
    title = models.CharField(max_length=300)
    summary = models.CharField(
        max_length=400, help_text="One or two sentences: what the reader can do afterwards."
    )
    level = models.CharField(max_length=16, choices=Level.choices, default=Level.FOUNDATIONS)
    access = models.CharField(max_length=16, choices=AccessLevel.choices, default=AccessLevel.OPEN)
    minutes = models.PositiveIntegerField(default=1, help_text="Minutes to read (words / 200).")
    prerequisites = models.ManyToManyField(
        "self", symmetrical=False, blank=True, related_name="unlocks"
    )
    concepts = models.ManyToManyField(Concept, blank=True, related_name="lessons")
    questions = models.ManyToManyField(Question, blank=True, related_name="lessons")
    references = models.JSONField(
        default=list, blank=True, help_text="A list of {title, publisher, year, url}."
    )
    body = models.TextField(help_text="Markdown: ## sections form the table of contents.")
    # The ## headings, one a line: the table of contents, which is public (a locked lesson
    # shows it), kept beside the body for search (public text; the body is guarded).
    contents = models.TextField(blank=True, editable=False)
    check_items = models.JSONField(
        default=list,
        blank=True,
        help_text='"Check yourself": 3-5 items, each {kind: choice, prompt, choices, answer, '
        "explain} or {kind: number, prompt, calculator, preset, inputs, output, unit, "
        "tolerance, explain}; gated with the body.",
    )

    class Meta:
        ordering = ["part__number", "number"]
        constraints = [
            models.UniqueConstraint(fields=["part", "number"], name="lesson_number_per_part"),
        ]

    def __str__(self) -> str:
        return f"{self.part.number}.{self.number} {self.title}"

    def save(self, *args, **kwargs) -> None:
        self.contents = "\n".join(headings(self.body))
        if kwargs.get("update_fields") is not None and "body" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "contents"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("questions:lesson", args=[self.part.slug, self.slug])

    def clean(self) -> None:
        from .lesson_checks import check_item_problems

        if problems := check_item_problems(self.check_items):
            raise ValidationError({"check_items": problems})


class LessonProgress(models.Model):
    """A learner's progress in one lesson: marked done, and/or passed its check.

    It lives in the content app beside ``Lesson`` (its only foreign key upward is the user
    model, reached through ``settings.AUTH_USER_MODEL`` like every lower floor); it is
    written by ``questions.lessons.mark_done`` / ``record_check`` only."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lesson_progress"
    )
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="progress")
    done_at = models.DateTimeField(null=True, blank=True)
    check_passed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "lesson"], name="lesson_progress_per_user")
        ]
        verbose_name_plural = "lesson progress"

    def __str__(self) -> str:
        return f"{self.user_id} in {self.lesson_id}"

    @property
    def finished(self) -> bool:
        return bool(self.done_at or self.check_passed_at)
