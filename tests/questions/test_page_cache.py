"""Anonymous pages are cached whole and retired by any content change or comment; a
cached page is never served to a signed-in reader, so it can never carry (or withhold)
another tier's answer."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inferview.community.discussion import services as discussion_services
from questions import services
from tests.factories import QuestionFactory


def get(client, url):
    response = client.get(url)
    assert response.status_code == 200
    return response, response.content.decode()


@pytest.mark.django_db
def test_a_second_anonymous_visit_is_served_from_the_cache(client):
    q = QuestionFactory(access="open", answer="The open answer.")
    first, _ = get(client, q.get_absolute_url())
    assert first.get("X-Page-Cache") is None
    with CaptureQueriesContext(connection) as queries:
        second, html = get(client, q.get_absolute_url())
    assert second["X-Page-Cache"] == "hit" and "The open answer." in html
    assert len(queries) == 0  # the locmem test cache: no database at all


@pytest.mark.django_db
def test_an_edit_or_a_comment_retires_the_cached_page(client, free_user):
    q = QuestionFactory(access="open", title="Old title?")
    get(client, q.get_absolute_url())
    q.title = "New title?"
    services.save_content(q)
    response, html = get(client, q.get_absolute_url())
    assert response.get("X-Page-Cache") is None and "New title?" in html

    get(client, q.get_absolute_url())  # cached again
    discussion_services.comment_create(user=free_user, question=q, body="A first approach here.")
    response, html = get(client, q.get_absolute_url())
    assert response.get("X-Page-Cache") is None and "A first approach here." in html


@pytest.mark.django_db
def test_hiding_or_deleting_a_comment_retires_cached_pages(
    client, client_for, free_user, moderator
):
    """Hide and account deletion write with a queryset update (no post_save): they must
    still retire the cached page and the cached discussion page, for every reader."""
    from inferview.accounts.services import delete_account

    q = QuestionFactory(access="open")
    comment = discussion_services.comment_create(
        user=free_user, question=q, body="Spam that a moderator will hide."
    )
    signed_in = client_for(free_user)
    for c in (client, signed_in):
        get(c, q.get_absolute_url())
        _, html = get(c, q.get_absolute_url())
        assert "Spam that a moderator will hide." in html
    discussion_services.comment_hide(moderator=moderator, comment=comment)
    for c in (client, signed_in):
        _, html = get(c, q.get_absolute_url())
        assert "Spam that a moderator will hide." not in html

    other = discussion_services.comment_create(
        user=free_user, question=q, body="Words their author will take back."
    )
    assert other.pk
    get(client, q.get_absolute_url())
    delete_account(user=free_user)
    _, html = get(client, q.get_absolute_url())
    assert "Words their author will take back." not in html


@pytest.mark.django_db
def test_cached_anonymous_pages_never_reach_signed_in_readers(
    client, client_for, premium_user, free_user
):
    locked = QuestionFactory(access="premium", answer="The premium reasoning.")
    url = locked.get_absolute_url()
    get(client, url)
    _, anonymous_html = get(client, url)
    assert "The premium reasoning." not in anonymous_html and 'class="paywall"' in anonymous_html

    premium_response, premium_html = get(client_for(premium_user), url)
    assert premium_response.get("X-Page-Cache") != "hit"
    assert "The premium reasoning." in premium_html

    free_response, free_html = get(client_for(free_user), url)
    assert free_response.get("X-Page-Cache") != "hit" and "The premium reasoning." not in free_html

    # And the premium reader's page was not stored for the next anonymous visitor.
    _, again = get(client, url)
    assert "The premium reasoning." not in again


@pytest.mark.django_db
def test_a_tier_change_is_never_hidden_by_the_cache(client, free_user):
    """A visitor who signs in stops getting anonymous pages at once."""
    q = QuestionFactory(access="account", answer="Account-level reasoning.")
    get(client, q.get_absolute_url())
    get(client, q.get_absolute_url())
    client.force_login(free_user)
    response, html = get(client, q.get_absolute_url())
    assert response.get("X-Page-Cache") != "hit" and "Account-level reasoning." in html


@pytest.mark.django_db
def test_a_page_with_a_csrf_token_is_not_stored(client, rf):
    from django.http import HttpResponse
    from django.middleware.csrf import get_token

    from inferview.pages.cache import anonymous_page

    calls = []

    @anonymous_page
    def view(request):
        calls.append(1)
        return HttpResponse(f"<form>{get_token(request)}</form>")

    from django.contrib.auth.models import AnonymousUser

    for _ in range(2):
        request = rf.get("/with-a-form/")
        request.user = AnonymousUser()
        view(request)
    assert len(calls) == 2


# --- signed-in readers: one copy per reader ---------------------------------------------


def personal_client(client_for, user):
    """A signed-in browser that already holds its CSRF cookie (as after any first page)."""
    c = client_for(user)
    c.get("/")
    return c


@pytest.mark.django_db
def test_a_signed_in_reader_s_second_visit_is_their_own_cached_copy(client_for, free_user):
    q = QuestionFactory(access="account", answer="Account-level reasoning.")
    c = personal_client(client_for, free_user)
    first, _ = get(c, q.get_absolute_url())
    assert first.get("X-Page-Cache") != "hit"
    with CaptureQueriesContext(connection) as queries:
        second, html = get(c, q.get_absolute_url())
    assert second["X-Page-Cache"] == "hit" and "Account-level reasoning." in html
    # the user with their tier (the session comes from the cache): nothing of the page
    assert len(queries) == 1, [x["sql"] for x in queries]
    # the form tokens in the cached copy are valid for this browser
    token = html.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    c_check = c.post(
        f"/community/questions/{q.pk}/difficulty/",
        {"felt": "harder", "csrfmiddlewaretoken": token},
        enforce_csrf_checks=True,
    )
    assert c_check.status_code == 302


@pytest.mark.django_db
def test_the_reader_s_own_write_retires_their_copy(client_for, free_user):
    q = QuestionFactory(access="open")
    c = personal_client(client_for, free_user)
    get(c, q.get_absolute_url())
    _, before = get(c, q.get_absolute_url())
    assert "bookmark-button is-on" not in before
    c.post("/community/bookmarks/toggle/", {"question": q.pk})
    response, html = get(c, q.get_absolute_url())
    assert response.get("X-Page-Cache") != "hit"
    assert "bookmark-button is-on" in html


@pytest.mark.django_db
def test_a_copy_is_never_served_to_another_reader_or_after_a_tier_change(
    client_for, free_user, verified_user
):
    from inferview.access.services import grant_premium

    q = QuestionFactory(access="premium", answer="The premium reasoning.")
    c = personal_client(client_for, free_user)
    get(c, q.get_absolute_url())
    _, cached = get(c, q.get_absolute_url())
    assert "The premium reasoning." not in cached
    other = personal_client(client_for, verified_user)
    response, _ = get(other, q.get_absolute_url())
    assert response.get("X-Page-Cache") != "hit"  # someone else's copy is not theirs
    grant_premium(user=free_user, granted_by=None, reason="cache test")  # not a request of theirs
    response, html = get(c, q.get_absolute_url())
    assert response.get("X-Page-Cache") != "hit" and "The premium reasoning." in html


@pytest.mark.django_db
def test_a_content_change_or_a_new_login_retires_the_copy(client_for, free_user, client):
    q = QuestionFactory(access="open", title="Old title?")
    c = personal_client(client_for, free_user)
    get(c, q.get_absolute_url())
    get(c, q.get_absolute_url())
    q.title = "New title?"
    services.save_content(q)
    response, html = get(c, q.get_absolute_url())
    assert response.get("X-Page-Cache") != "hit" and "New title?" in html
    get(c, q.get_absolute_url())
    # a browser with another CSRF cookie (another device, or after a login) gets its own
    fresh = personal_client(client_for, free_user)
    response, _ = get(fresh, q.get_absolute_url())
    assert response.get("X-Page-Cache") != "hit"


@pytest.mark.django_db
def test_a_waiting_flash_message_is_never_cached_away(client_for, free_user):
    q = QuestionFactory(access="open")
    c = personal_client(client_for, free_user)
    get(c, q.get_absolute_url())
    get(c, q.get_absolute_url())
    c.post(f"/community/questions/{q.pk}/key-points/", {"made": ["9"]})  # sets a message
    _, html = get(c, q.get_absolute_url())
    assert "no key points yet" in html


@pytest.mark.django_db
def test_a_write_outside_the_reader_s_requests_also_retires_their_copy(client_for, free_user):
    from inferview.community.bookmarks import services as bookmark_services

    q = QuestionFactory(access="open")
    c = personal_client(client_for, free_user)
    get(c, q.get_absolute_url())
    get(c, q.get_absolute_url())
    bookmark_services.bookmark_toggle(user=free_user, question=q)  # e.g. from a task or the shell
    response, html = get(c, q.get_absolute_url())
    assert response.get("X-Page-Cache") != "hit" and "bookmark-button is-on" in html


class _Counting:
    """Wraps the shared cache's reads, to see whether a hit reached it at all."""

    def __init__(self, monkeypatch):
        from django.core.cache import cache

        self.reads = 0
        for name in ("get", "get_many"):
            real = getattr(cache, name)

            def counted(*args, _real=real, **kwargs):
                self.reads += 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(cache, name, counted)


@pytest.mark.django_db
def test_a_hit_in_the_same_process_costs_no_shared_cache_read(client, monkeypatch):
    q = QuestionFactory(access="open", answer="The open answer.")
    get(client, q.get_absolute_url())
    shared = _Counting(monkeypatch)
    response, html = get(client, q.get_absolute_url())
    assert response["X-Page-Cache"] == "hit" and "The open answer." in html
    assert shared.reads == 0


@pytest.mark.django_db
def test_another_process_s_change_is_seen_within_a_second(client, monkeypatch):
    """A bump this process did not make (the shared number moved under it) may be missed
    for LOCAL_SECONDS, never longer; one this process made is seen at once."""
    import time as time_module

    from django.core.cache import cache

    from questions import content_version

    q = QuestionFactory(access="open", title="Before the change?")
    get(client, q.get_absolute_url())
    type(q).objects.filter(pk=q.pk).update(title="After the change?")  # no signal here
    cache.incr(content_version.KEY)  # what another process's save does to the shared number
    response, html = get(client, q.get_absolute_url())
    assert response["X-Page-Cache"] == "hit" and "Before the change?" in html

    later = time_module.time() + content_version.LOCAL_SECONDS + 0.01
    monkeypatch.setattr(time_module, "time", lambda: later)
    response, html = get(client, q.get_absolute_url())
    assert response.get("X-Page-Cache") is None and "After the change?" in html


@pytest.mark.django_db
def test_a_bump_in_this_process_reaches_the_local_copy_at_once(client):
    from questions import content_version

    q = QuestionFactory(access="open", title="Before the change?")
    get(client, q.get_absolute_url())
    type(q).objects.filter(pk=q.pk).update(title="After the change?")
    content_version.bump()
    response, html = get(client, q.get_absolute_url())
    assert response.get("X-Page-Cache") is None and "After the change?" in html
