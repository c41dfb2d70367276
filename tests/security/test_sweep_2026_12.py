"""Regression tests for the December 2026 security sweep (issue 33), one section per item.

Each test failed on the code the sweep ran against: premium granted for another product's
checkout, lookalike display names accepted, the anonymous page cache keyed without the
host's port, two 500s, and the four informational items decided here.
"""

import hashlib
import hmac
import html
import json
import time

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from inferview.access import policy
from inferview.access.models import Entitlement, Purchase
from inferview.accounts import profile
from inferview.accounts.services import author_make
from inferview.community.discussion import services as discussion
from inferview.community.models import Progress
from tests.community.factories import CommentFactory
from tests.factories import QuestionFactory, TrackFactory, UserFactory

pytestmark = pytest.mark.django_db

SECRET = "whsec_sweep_0123456789abcdef"
WEBHOOK = "/payments/webhook/stripe/"


# --- 1. a paid checkout the site never created ----------------------------------------------


@pytest.fixture
def stripe_keys(settings):
    settings.STRIPE_SECRET_KEY = "sk_test_dummy"
    settings.STRIPE_WEBHOOK_SECRET = SECRET


def deliver(client, session: dict, event_id: str = "evt_sweep_1"):
    event = {"id": event_id, "type": "checkout.session.completed", "data": {"object": session}}
    payload = json.dumps(event).encode()
    t = int(time.time())
    mac = hmac.new(SECRET.encode(), f"{t}.".encode() + payload, hashlib.sha256).hexdigest()
    return client.post(
        WEBHOOK,
        data=payload,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=f"t={t},v1={mac}",
    )


def unknown_session(user, *, amount=100, currency="usd", plan="tip-jar", session_id="cs_unknown"):
    session = {
        "id": session_id,
        "object": "checkout.session",
        "payment_status": "paid",
        "payment_intent": f"pi_{session_id}",
        "amount_total": amount,
        "currency": currency,
        "client_reference_id": str(user.pk),
    }
    if plan is not None:
        session["metadata"] = {"plan": plan}
    return session


def tier_of(user):
    policy.forget_tier(user)
    return policy.viewer_tier(user)


def test_the_repro_another_products_one_dollar_checkout_grants_nothing(client, stripe_keys):
    buyer = UserFactory()
    response = deliver(client, unknown_session(buyer))
    assert response.status_code == 200 and response.content == b"refused"
    assert tier_of(buyer) == policy.Tier.FREE
    assert not Entitlement.objects.exists()
    purchase = Purchase.objects.get(checkout_session_id="cs_unknown")
    assert (purchase.status, purchase.plan, purchase.amount, purchase.user) == (
        Purchase.Status.REFUSED,
        "tip-jar",
        100,
        buyer,
    )
    assert purchase.note == "is another plan ('tip-jar')"


@pytest.mark.parametrize(
    "amount,currency,plan",
    [
        (0, "usd", "premium"),
        (100, "usd", "premium"),
        (2499, "usd", "premium"),
        (2501, "usd", "premium"),
        (200000, "usd", "premium"),  # INR's price in USD
        (2500, "inr", "premium"),  # USD's price in INR
        (2500, "eur", "premium"),  # a currency premium is not sold in
        (2500, "usd", "tip-jar"),  # the right amount for another product
        (2500, "usd", "Premium"),
        (2500, "usd", None),  # no plan at all (a Payment Link)
    ],
)
def test_an_unknown_session_that_is_not_our_product_at_our_price_grants_nothing_and_is_shown_in_the_admin(
    client, stripe_keys, admin_client, amount, currency, plan
):
    buyer = UserFactory()
    assert deliver(client, unknown_session(buyer, amount=amount, currency=currency, plan=plan))
    assert tier_of(buyer) == policy.Tier.FREE
    assert not Entitlement.objects.exists()
    refused = Purchase.objects.get(checkout_session_id="cs_unknown")
    assert refused.status == Purchase.Status.REFUSED and refused.note
    page = admin_client.get("/admin/access/purchase/", {"status__exact": "refused"})
    assert page.status_code == 200
    assert "cs_unknown" in page.content.decode()
    assert html.escape(refused.note) in page.content.decode()
    # not a receipt of the site's: it took money for something else
    buyer_client = client
    buyer_client.force_login(buyer)
    assert "cs_unknown" not in buyer_client.get("/account/receipts/").content.decode()


@pytest.mark.parametrize("amount,currency", [(2500, "usd"), (200000, "inr")])
def test_a_lost_checkout_of_our_product_at_our_price_is_still_rebuilt_and_granted(
    client, stripe_keys, amount, currency
):
    buyer = UserFactory()
    session = unknown_session(buyer, amount=amount, currency=currency, plan="premium")
    assert deliver(client, session).content == b"processed"
    assert tier_of(buyer) == policy.Tier.PREMIUM
    assert Purchase.objects.get().status == Purchase.Status.PAID


def test_a_refused_session_stays_refused_when_delivered_again(client, stripe_keys):
    buyer = UserFactory()
    deliver(client, unknown_session(buyer), event_id="evt_a")
    deliver(client, unknown_session(buyer, amount=2500, plan="premium"), event_id="evt_b")
    assert Purchase.objects.get().status == Purchase.Status.REFUSED
    assert tier_of(buyer) == policy.Tier.FREE


# --- 2. lookalike display names -----------------------------------------------------------


@pytest.mark.parametrize(
    "lookalike",
    [
        "\uff21\uff4c\uff49\uff43\uff45",  # fullwidth Alice
        "\u0410lice",  # Cyrillic A
        "Alic\u0435",  # Cyrillic e
        "ALICE",
    ],
)
def test_a_name_that_looks_like_another_learners_is_taken(lookalike):
    UserFactory(display_name="Alice")
    with pytest.raises(ValidationError) as exc:
        profile.update_profile(user=UserFactory(), display_name=lookalike, theme="system")
    assert list(exc.value.message_dict) == ["display_name"]


def test_a_lookalike_of_a_generated_handle_is_kept_for_handles():
    UserFactory(username="learner-ab12cd34")
    with pytest.raises(ValidationError, match="kept for handles"):
        profile.update_profile(
            user=UserFactory(), display_name="l\u0435arner-ab12cd34", theme="system"
        )


def test_a_mixed_script_name_is_refused_even_when_nobody_has_its_lookalike():
    with pytest.raises(ValidationError, match="one script"):
        profile.update_profile(user=UserFactory(), display_name="P\u0430ypal", theme="system")


def test_case_beyond_ascii_is_compared_the_same_on_every_database():
    """SQLite's lower() folds ASCII only, so ZOË passed beside Zoë there."""
    UserFactory(display_name="Zoë")
    with pytest.raises(ValidationError, match="taken"):
        profile.update_profile(user=UserFactory(), display_name="ZOË", theme="system")


def test_the_database_refuses_a_lookalike_the_check_missed():
    UserFactory(display_name="Alice")
    with pytest.raises(IntegrityError), transaction.atomic():
        UserFactory(display_name="\u0410lice")


def test_fullwidth_names_are_stored_as_the_letters_they_stand_for():
    user = UserFactory()
    profile.update_profile(user=user, display_name="\uff21\uff44\uff41", theme="system")
    user.refresh_from_db()
    assert user.display_name == "Ada"


# --- 3. the page cache and the Host header's port ------------------------------------------


def test_a_page_requested_with_another_port_is_not_served_to_other_readers(client):
    question = QuestionFactory(access="open")
    url = question.get_absolute_url()
    poisoned = client.get(url, HTTP_HOST="testserver:6666")
    assert poisoned.status_code == 200 and "testserver:6666" in poisoned.content.decode()
    for _ in range(2):  # the first may store the page, the second is served from the cache
        page = client.get(url)
        assert page.status_code == 200
        assert ":6666" not in page.content.decode()
    assert page["X-Page-Cache"] == "hit"


# --- 4. two 500s ---------------------------------------------------------------------------


@pytest.mark.parametrize("item", ["abc", "1.5", "-3", "9" * 30])
def test_ticking_a_cram_item_that_is_not_an_id_is_a_clear_400(client, item):
    client.force_login(UserFactory())
    response = client.post("/practice/cram/", {"item": item})
    assert response.status_code == 400
    assert response.content.decode().startswith("item: ")


def test_the_success_page_says_so_when_stripe_is_not_configured(client, settings):
    settings.STRIPE_SECRET_KEY = ""
    buyer = UserFactory()
    Purchase.objects.create(
        user=buyer, provider="stripe", checkout_session_id="cs_own", currency="USD", amount=2500
    )
    client.force_login(buyer)
    response = client.get("/premium/checkout/success/", {"session_id": "cs_own"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "We cannot confirm this payment right now" in html
    assert 'http-equiv="refresh"' not in html  # it would refresh for ever
    assert Purchase.objects.get().status == Purchase.Status.PENDING


# --- 5. the informational items, decided ---------------------------------------------------


def test_a_reply_under_a_deleted_comment_is_refused(client):
    top = CommentFactory()
    discussion.comment_delete(user=top.author, comment=top)
    replier = UserFactory()
    with pytest.raises(ValidationError) as exc:
        discussion.comment_create(
            user=replier, body="Late reply", question=top.question, parent=top
        )
    assert list(exc.value.message_dict) == ["parent"]
    client.force_login(replier)
    response = client.post(
        f"/api/v1/questions/{top.question.pk}/comments/",
        {"body": "Late reply", "parent": top.pk},
        content_type="application/json",
    )
    assert response.status_code == 400 and "parent" in response.json()["error"]["fields"]


def test_an_author_is_staff_but_not_a_moderator():
    comment = CommentFactory()
    author, _ = author_make(email="writer@example.com")
    assert author.is_staff
    with pytest.raises(PermissionDenied):
        discussion.comment_hide(moderator=author, comment=comment)
    with pytest.raises(PermissionDenied):
        discussion.comment_restore(moderator=author, comment=comment)
    moderator = UserFactory()
    moderator.user_permissions.add(Permission.objects.get(codename="moderate_comment"))
    moderator = type(moderator).objects.get(pk=moderator.pk)  # a fresh permission cache
    assert discussion.comment_hide(moderator=moderator, comment=comment).is_hidden


def test_the_progress_list_leaves_out_questions_of_an_unpublished_track(client):
    learner = UserFactory()
    hidden_track = TrackFactory(published=False)
    Progress.objects.create(
        user=learner, question=QuestionFactory(track=hidden_track), status="attempted"
    )
    shown = QuestionFactory()
    Progress.objects.create(user=learner, question=shown, status="attempted")
    client.force_login(learner)
    rows = client.get("/api/v1/progress/").json()
    assert [row["question"]["id"] for row in rows] == [shown.pk]


def test_adding_addresses_is_limited_to_five_an_hour_per_account(client, verified_user):
    """Enumeration prevention stays on (the form never says an address has an account), so
    the confirmation also reaches an address someone else owns; the limit keeps one account
    from flooding a stranger with mail they did not ask for."""
    client.force_login(verified_user)
    codes = [
        client.post(
            "/accounts/email/", {"action_add": "", "email": f"other{i}@example.com"}
        ).status_code
        for i in range(6)
    ]
    assert codes[:5] == [302] * 5 and codes[5] == 429, codes
