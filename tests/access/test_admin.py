"""Staff grant and revoke premium in admin, with a reason; nothing is deleted."""

import pytest

from inferview.access import policy
from inferview.access.models import Entitlement
from tests.factories import UserFactory


@pytest.fixture
def admin_client(client, db):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def test_grant_needs_a_reason_and_records_it(admin_client, free_user):
    r = admin_client.post("/admin/access/entitlement/add/", {"user": free_user.pk, "reason": ""})
    assert r.status_code == 200 and not Entitlement.objects.exists()
    r = admin_client.post(
        "/admin/access/entitlement/add/", {"user": free_user.pk, "reason": "Conference speaker"}
    )
    assert r.status_code == 302
    e = Entitlement.objects.get(user=free_user)
    assert (e.source, e.reason, e.granted_by.is_superuser) == ("staff", "Conference speaker", True)
    assert policy.viewer_tier(free_user) == policy.Tier.PREMIUM


def test_revoke_action_asks_for_a_reason_and_keeps_the_row(admin_client, premium_user):
    e = Entitlement.objects.get(user=premium_user)
    url = "/admin/access/entitlement/"
    r = admin_client.post(url, {"action": "revoke_selected", "_selected_action": [e.pk]})
    assert r.status_code == 200 and b"Revoke premium" in r.content
    e.refresh_from_db()
    assert e.revoked_at is None
    admin_client.post(
        url,
        {
            "action": "revoke_selected",
            "_selected_action": [e.pk],
            "apply": "1",
            "reason": "Chargeback by phone",
        },
    )
    e.refresh_from_db()
    assert e.revoked_at is not None and e.revoked_reason == "Chargeback by phone"
    policy.forget_tier(premium_user)
    assert policy.viewer_tier(premium_user) == policy.Tier.FREE


def test_entitlements_cannot_be_deleted_in_admin(admin_client, premium_user):
    e = Entitlement.objects.get(user=premium_user)
    assert admin_client.get(f"/admin/access/entitlement/{e.pk}/delete/").status_code in (302, 403)
    assert Entitlement.objects.filter(pk=e.pk).exists()


def test_admin_pages_render(admin_client, premium_user):
    for url in [
        "/admin/access/entitlement/",
        "/admin/access/purchase/",
        "/admin/access/webhookevent/",
        "/admin/access/entitlement/add/",
        f"/admin/accounts/user/{premium_user.pk}/change/",
        "/admin/accounts/user/",
    ]:
        assert admin_client.get(url).status_code == 200, url
