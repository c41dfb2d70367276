"""A reply emails the author of the comment it answers, if they want replies (the
"Email me replies to my comments" setting on /account/, on by default), once the reply
is committed, through the ``community.notify_reply`` task."""

import pytest
from django.core import mail

from inferview.celery import app as celery_app
from inferview.community.discussion import notifications
from inferview.community.discussion import services as discussion_services
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager():
    """Queued tasks run in the test's process, as a worker would run them."""
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before


@pytest.fixture
def thread(db):
    question = QuestionFactory(access="open", title="Why is decode memory-bound?")
    author = UserFactory(display_name="Ada")
    top = discussion_services.comment_create(
        user=author, question=question, body="Bandwidth, not FLOPs."
    )
    return question, author, top


def _reply(client_for, question, top, replier, body, capture):
    with capture(execute=True):
        r = client_for(replier).post(
            f"/community/question/{question.pk}/comments/", {"body": body, "parent": top.pk}
        )
    assert r.status_code in (200, 302)


def test_a_reply_emails_the_parent_author_when_on(
    client_for, thread, eager, django_capture_on_commit_callbacks
):
    question, author, top = thread
    assert author.email_replies is True  # the default
    replier = UserFactory(display_name="Grace")
    _reply(
        client_for,
        question,
        top,
        replier,
        "And the **KV cache** reads grow with context.",
        django_capture_on_commit_callbacks,
    )
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [author.email]
    assert message.subject == (
        "[Inferview] Grace replied to your comment on “Why is decode memory-bound?”"
    )
    reply = top.replies.get()
    assert "And the KV cache reads grow with context." in message.body  # plain text
    assert f"http://testserver{question.get_absolute_url()}#comment-{reply.pk}" in message.body
    assert "http://testserver/account/" in message.body


def test_no_email_when_the_parent_author_turned_replies_off(
    client_for, thread, eager, django_capture_on_commit_callbacks
):
    question, author, top = thread
    client_for(author).post("/account/", {"form": "email"})  # the box left unticked
    author.refresh_from_db()
    assert author.email_replies is False
    _reply(
        client_for,
        question,
        top,
        UserFactory(),
        "A reply nobody is told about.",
        django_capture_on_commit_callbacks,
    )
    assert top.replies.count() == 1 and mail.outbox == []


def test_no_email_for_a_reply_to_oneself_and_no_task_either(
    client_for, thread, django_capture_on_commit_callbacks
):
    question, author, top = thread
    with django_capture_on_commit_callbacks() as callbacks:
        discussion_services.comment_create(
            user=author, question=question, body="Adding to my own point.", parent=top
        )
    # nothing queued, but the author's page version moved again once the comment commits
    # (inferview.pages.cache._bump_owner)
    assert [c.__qualname__ for c in callbacks] == ["_bump_owner.<locals>.<lambda>"]
    assert mail.outbox == []


def test_the_task_asks_again_when_it_runs(thread):
    """Between the reply and the worker, the reply may be deleted or the author may turn
    replies off: the task sends nothing then."""
    question, author, top = thread
    replier = UserFactory()
    reply = discussion_services.comment_create(
        user=replier, question=question, body="Second thoughts.", parent=top
    )
    assert notifications.send_reply_email(reply.pk) is True
    author.email_replies = False
    author.save(update_fields=["email_replies"])
    assert notifications.send_reply_email(reply.pk) is False
    author.email_replies = True
    author.save(update_fields=["email_replies"])
    discussion_services.comment_delete(user=replier, comment=reply)
    assert notifications.send_reply_email(reply.pk) is False
    assert notifications.send_reply_email(10**9) is False  # gone altogether
    assert len(mail.outbox) == 1


def test_a_broker_that_is_away_costs_the_email_not_the_reply(
    thread, monkeypatch, django_capture_on_commit_callbacks
):
    question, _, top = thread

    def refuse(*args, **kwargs):
        raise ConnectionError("broker away")

    monkeypatch.setattr(notifications.notify_reply, "delay", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        reply = discussion_services.comment_create(
            user=UserFactory(), question=question, body="Still posted.", parent=top
        )
    assert reply.pk and mail.outbox == []


def test_the_reply_email_links_to_the_host_the_site_is_served_on(
    client_for, thread, eager, django_capture_on_commit_callbacks, settings
):
    """`make run` serves 127.0.0.1:8000; SITE_DOMAIN says localhost:8000 (another host,
    so a cookie set on one is not sent to the other and the reader lands signed out)."""
    settings.SITE_DOMAIN = "localhost:8000"
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
    question, author, top = thread
    replier = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        client_for(replier).post(
            f"/community/question/{question.pk}/comments/",
            {"body": "Also the KV cache.", "parent": top.pk},
            HTTP_HOST="127.0.0.1:8000",
        )
    (message,) = mail.outbox
    assert f"http://127.0.0.1:8000{question.get_absolute_url()}#comment-" in message.body
    assert "localhost:8000" not in message.body


def test_a_reply_made_without_a_request_links_to_site_domain(thread, eager, settings):
    assert notifications.site_origin(None) == f"http://{settings.SITE_DOMAIN}"
    assert notifications.site_origin("javascript:alert(1)") == f"http://{settings.SITE_DOMAIN}"
