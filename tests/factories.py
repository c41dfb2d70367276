"""factory_boy factories for content and users."""

import datetime as dt

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from questions.models import Concept, Guide, GuideItem, GuideSection, Question, Track


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
