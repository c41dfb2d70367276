"""factory_boy factories for content and users."""

import datetime as dt

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from questions.models import (
    Concept,
    Guide,
    GuideItem,
    GuideSection,
    Lesson,
    Part,
    Question,
    Track,
)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.com")
    password = factory.django.Password("correct horse battery staple")

    @factory.post_generation
    def second_factor(obj, create, extracted, **kwargs):
        """Staff get an authenticator app, as the admin requires of them
        (inferview.accounts.security); ``second_factor=False`` makes staff without one."""
        if create and obj.is_staff and extracted is not False:
            from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

            TOTP.activate(obj, generate_totp_secret())


class TrackFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Track

    slug = factory.Sequence(lambda n: f"track-{n}")
    title = factory.Sequence(lambda n: f"Track {n}")
    category = "hardware"
    summary = "A track for tests."
    published = True
    published_at = factory.LazyFunction(lambda: timezone.now() - dt.timedelta(days=200))


class ConceptFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Concept

    slug = factory.Sequence(lambda n: f"concept-{n}")
    title = factory.Sequence(lambda n: f"Concept {n}")
    category = "hardware"
    level = "foundations"
    access = "open"
    summary = "A concept for tests."
    body = factory.Sequence(lambda n: f"Concept body text number {n}.")
    published = True
    published_at = factory.LazyFunction(lambda: timezone.now() - dt.timedelta(days=200))


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Question

    track = factory.SubFactory(TrackFactory)
    number = factory.Sequence(lambda n: n + 1)
    slug = factory.Sequence(lambda n: f"question-{n}")
    title = factory.Sequence(lambda n: f"Why is question {n} hard?")
    summary = "Separates one thing from another."
    body = "The interviewer asks a question."
    answer = factory.Sequence(lambda n: f"The answer text for question {n}, with reasoning.")
    difficulty = "medium"
    kind = "explain"
    access = "open"
    published = True
    published_at = factory.LazyFunction(lambda: timezone.now() - dt.timedelta(days=100))


class GuideFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Guide

    slug = factory.Sequence(lambda n: f"guide-{n}")
    title = factory.Sequence(lambda n: f"Guide {n}")
    summary = "A guide for tests."
    published = True


class GuideSectionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GuideSection

    guide = factory.SubFactory(GuideFactory)
    slug = factory.Sequence(lambda n: f"section-{n}")
    title = factory.Sequence(lambda n: f"Section {n}")


class GuideItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GuideItem

    section = factory.SubFactory(GuideSectionFactory)
    kind = "explain"
    title = factory.Sequence(lambda n: f"Item {n}")
    body = "A short answer."


#: A gradable "check yourself": two choices and one number (kv_cache on Llama 3.1 8B,
#: one 8k sequence: about 1.07 GB).
LESSON_CHECK = [
    {"kind": "choice", "prompt": "Which phase is memory-bound at batch 1?",
     "choices": ["Prefill", "Decode", "Both equally"], "answer": 1,
     "explain": "Decode reads every weight for one token."},
    {"kind": "number", "prompt": "KV cache of one 8k sequence of Llama 3.1 8B, in GB?",
     "calculator": "kv_cache",
     "inputs": {"batch_size": 1, "model": "llama-3.1-8b", "seq_len": 8192},
     "output": "total_gb", "unit": "GB", "tolerance": 0.05,
     "explain": "Keys and values for 32 layers."},
    {"kind": "choice", "prompt": "What grows with context length?",
     "choices": ["The weights", "The KV cache", "The vocabulary"], "answer": 1,
     "explain": "Keys and values are kept per token."},
]  # fmt: skip


class PartFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Part

    number = factory.Sequence(lambda n: n + 1)
    slug = factory.Sequence(lambda n: f"part-{n}")
    title = factory.Sequence(lambda n: f"Part {n}")
    summary = "A part for tests."
    published = True


class LessonFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Lesson

    part = factory.SubFactory(PartFactory)
    number = factory.Sequence(lambda n: n + 1)
    slug = factory.Sequence(lambda n: f"lesson-{n}")
    title = factory.Sequence(lambda n: f"Lesson {n}")
    summary = "After this lesson you can size a decode step."
    access = "open"
    minutes = 9
    body = factory.Sequence(
        lambda n: f"## First idea\n\nLesson body text number {n}.\n\n## Summary\n\n- One point."
    )
    check_items = factory.LazyFunction(lambda: [dict(i) for i in LESSON_CHECK])
    published = True
    published_at = factory.LazyFunction(lambda: timezone.now() - dt.timedelta(days=50))
