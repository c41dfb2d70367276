"""factory_boy factories for community rows (content factories live in tests/factories.py)."""

import factory

from inferview.community.models import Bookmark, Comment, Progress
from questions.markdown import render_untrusted_markdown
from tests.factories import QuestionFactory, UserFactory


class CommentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Comment

    question = factory.SubFactory(QuestionFactory)
    author = factory.SubFactory(UserFactory)
    body = factory.Sequence(lambda n: f"Comment number {n}: I started from **memory bandwidth**.")
    body_html = factory.LazyAttribute(lambda o: str(render_untrusted_markdown(o.body)))


class BookmarkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Bookmark

    user = factory.SubFactory(UserFactory)
    question = factory.SubFactory(QuestionFactory)


class ProgressFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Progress

    user = factory.SubFactory(UserFactory)
    question = factory.SubFactory(QuestionFactory)
    status = "attempted"
