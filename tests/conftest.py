"""Shared fixtures. Apps append their own fixtures below their section header."""

import os

import pytest

from tests.factories import ConceptFactory, QuestionFactory, TrackFactory, UserFactory

os.environ.setdefault(
    "DJANGO_ALLOW_ASYNC_UNSAFE", "true"
)  # Playwright's sync API runs an event loop

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(autouse=True)
def _clear_cache():
    from django.core.cache import caches

    for alias in ("default", "local"):
        caches[alias].clear()
    yield
    for alias in ("default", "local"):
        caches[alias].clear()


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright; never a downloaded browser."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP)
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture
def artifacts_dir():
    from django.conf import settings

    path = settings.TEST_ARTIFACTS_DIR
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def track(db):
    return TrackFactory()


@pytest.fixture
def concept(db):
    return ConceptFactory()


@pytest.fixture
def make_track(db):
    """A published track with ``n`` questions cycling through open/account/premium."""

    def make(n: int, **kwargs):
        t = TrackFactory(**kwargs)
        concepts = ConceptFactory.create_batch(3)
        levels = ["open", "account", "premium"]
        for i in range(1, n + 1):
            q = QuestionFactory(track=t, number=i, access=levels[(i - 1) % 3])
            q.concepts.set(concepts[: 1 + i % 3])
        return t

    return make


# --- accounts & access fixtures ----------------------------------------------------------

PASSWORD = "correct horse battery staple"  # UserFactory's password


@pytest.fixture
def anonymous():
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser()


@pytest.fixture
def free_user(db):
    return UserFactory()


@pytest.fixture
def premium_user(db):
    from inferview.access.services import grant_premium

    u = UserFactory()
    grant_premium(user=u, granted_by=None, reason="test fixture")
    return u


@pytest.fixture
def staff_user(db):
    return UserFactory(is_staff=True)


@pytest.fixture
def admin_user(admin_user):
    """pytest-django's superuser, with the authenticator app the admin requires of staff
    (inferview.accounts.security)."""
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

    TOTP.activate(admin_user, generate_totp_secret())
    return admin_user


@pytest.fixture
def moderator(db):
    """Staff with the one permission moderation needs (``community.moderate_comment``)."""
    from django.contrib.auth.models import Permission

    u = UserFactory(is_staff=True)
    u.user_permissions.add(Permission.objects.get(codename="moderate_comment"))
    return type(u).objects.get(pk=u.pk)  # a fresh permission cache


@pytest.fixture
def verified_user(db):
    """A free user who can sign in with email and password (allauth needs a verified address)."""
    from allauth.account.models import EmailAddress

    u = UserFactory()
    EmailAddress.objects.create(user=u, email=u.email, verified=True, primary=True)
    return u


@pytest.fixture
def client_for(db):
    """``client_for(user)``: a test client signed in as ``user`` (or anonymous for None)."""
    from django.test import Client

    def make(user=None, **kwargs):
        c = Client(**kwargs)
        if user is not None and getattr(user, "is_authenticated", False):
            c.force_login(user)
        return c

    return make


# --- community fixtures ------------------------------------------------------------------


@pytest.fixture
def fsrs_exact(settings):
    """FSRS without interval fuzzing, so tests can check exact due dates."""
    settings.FSRS_ENABLE_FUZZING = False


@pytest.fixture
def signed_in_page(live_server):
    """``signed_in_page(page, user)``: put ``user``'s session cookie into a Playwright page."""
    from django.conf import settings as dj_settings
    from django.test import Client

    def sign_in(pg, user):
        c = Client()
        c.force_login(user)
        cookie = c.cookies[dj_settings.SESSION_COOKIE_NAME]
        pg.context.add_cookies(
            [
                {
                    "name": dj_settings.SESSION_COOKIE_NAME,
                    "value": cookie.value,
                    "url": live_server.url,
                }
            ]
        )
        return pg

    return sign_in
