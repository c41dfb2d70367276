"""A learner chooses the name shown beside their comments (issue 15: comments showed only
the random ``learner-…`` handle)."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from inferview.accounts import profile
from tests.community.factories import CommentFactory
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "name",
    ["Ada", "Ada Lovelace", "grace.hopper", "k-means_fan", "Zoë", "李小龙", "x" * 30],
)
def test_accepts_names_of_letters_digits_and_single_separators(name):
    user = UserFactory()
    profile.update_profile(user=user, display_name=name, theme="system")
    user.refresh_from_db()
    assert user.display_name == name and user.public_name == name


@pytest.mark.parametrize(
    "name",
    ["ab", "x" * 31, "-ada", "ada-", "a  b", "<script>", "ada\nlovelace", "ada!", "__"],
)
def test_refuses_badly_shaped_names_naming_the_field(name):
    user = UserFactory()
    with pytest.raises(ValidationError) as exc:
        profile.update_profile(user=user, display_name=name, theme="system")
    assert list(exc.value.message_dict) == ["display_name"]
    user.refresh_from_db()
    assert user.display_name == ""


def test_names_are_unique_ignoring_case_and_may_not_copy_a_handle():
    ada = UserFactory(username="learner-0a1b2c3d")
    other = UserFactory()
    profile.update_profile(user=ada, display_name="Ada", theme="system")
    for taken in ["ada", "ADA", "learner-0a1b2c3d", "Learner-0A1B2C3D"]:
        with pytest.raises(ValidationError):
            profile.update_profile(user=other, display_name=taken, theme="system")
    with pytest.raises(ValidationError, match="kept for handles"):
        profile.update_profile(user=other, display_name="learner-ffffffff", theme="system")
    # a learner may keep (or retype) their own handle, and their own name in another case
    profile.update_profile(user=ada, display_name="learner-0a1b2c3d", theme="system")
    profile.update_profile(user=ada, display_name="ADA", theme="system")


def test_the_database_refuses_a_duplicate_the_check_missed():
    UserFactory(display_name="Grace")
    with pytest.raises(IntegrityError), transaction.atomic():
        UserFactory(display_name="grace")


def test_composed_and_decomposed_accents_are_the_same_name():
    UserFactory(display_name="Zoë")
    with pytest.raises(ValidationError, match="taken"):
        profile.update_profile(user=UserFactory(), display_name="Zoe\u0308", theme="system")


def test_existing_learners_keep_their_handle_until_they_choose(
    client, django_capture_on_commit_callbacks
):
    author = UserFactory(username="learner-5e5e5e5e")
    comment = CommentFactory(author=author, question=QuestionFactory())
    url = comment.question.get_absolute_url()
    html = client.get(url).content.decode()
    assert '<strong class="comment-author">learner-5e5e5e5e</strong>' in html
    # the anonymous page was cached whole; the rename retires it once committed
    with django_capture_on_commit_callbacks(execute=True):
        profile.update_profile(user=author, display_name="Ada Lovelace", theme="system")
    html = client.get(url).content.decode()
    assert '<strong class="comment-author">Ada Lovelace</strong>' in html
    assert "learner-5e5e5e5e" not in html
    # the discussion API names the author the same way
    api = client.get(f"/api/v1/questions/{comment.question.pk}/comments/")
    assert api.status_code == 200
    assert "Ada Lovelace" in api.content.decode()
    assert "learner-5e5e5e5e" not in api.content.decode()


def test_theme_must_be_a_known_choice():
    user = UserFactory()
    with pytest.raises(ValidationError) as exc:
        profile.update_profile(user=user, display_name="", theme="sepia")
    assert list(exc.value.message_dict) == ["theme"]
