"""A premium member granted by staff sees that on the receipts page, not "no purchases"."""

import pytest

from inferview.access.services import grant_premium
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_receipts_page_lists_staff_grants(client):
    member, staff = UserFactory(), UserFactory(is_staff=True)
    grant_premium(user=member, granted_by=staff, reason="Conference speaker")
    client.force_login(member)
    html = client.get("/account/receipts/").content.decode()
    assert "Premium granted by" in html and "active" in html
    assert "No purchases yet" not in html
    assert "Conference speaker" not in html  # the staff's reason is internal


def test_receipts_page_without_anything_says_so(client):
    client.force_login(UserFactory())
    assert "No purchases yet" in client.get("/account/receipts/").content.decode()
