"""Making an author goes through accounts.services.author_make: the accounts app writes
its own users and e-mail addresses; the content app only defines the group."""

import pytest
from allauth.account.models import EmailAddress
from django.core.exceptions import ValidationError
from django.core.management import call_command

from inferview.accounts.services import author_make
from questions.roles import AUTHORS_GROUP
from tests.factories import UserFactory


@pytest.mark.django_db
def test_an_existing_learner_is_promoted_and_keeps_their_password():
    learner = UserFactory(email="ada@example.com")
    user, created = author_make(email="  Ada@Example.com ")
    assert (user.pk, created) == (learner.pk, False)
    user.refresh_from_db()
    assert user.is_staff and not user.is_superuser
    assert user.check_password("correct horse battery staple")
    assert list(user.groups.values_list("name", flat=True)) == [AUTHORS_GROUP]
    address = EmailAddress.objects.get(user=user)
    assert (address.email, address.verified, address.primary) == ("ada@example.com", True, True)


@pytest.mark.django_db
def test_a_new_author_without_a_password_cannot_sign_in_with_one(capsys):
    call_command("add_author", "new@example.com")
    user = EmailAddress.objects.get(email="new@example.com").user
    assert user.is_staff and not user.has_usable_password()
    assert "Forgot password" in capsys.readouterr().out


@pytest.mark.django_db
def test_a_bad_address_is_refused_by_field_and_writes_nothing():
    with pytest.raises(ValidationError) as error:
        author_make(email="not-an-address", password="long enough password 1")
    assert list(error.value.message_dict) == ["email"]
    assert not EmailAddress.objects.exists()
