from typing import Any

from django.contrib.auth.models import AbstractUser, UserManager
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower

from inferview.access.readers import ReaderQuerySet

from . import names

#: The shape of a display name: 3-30 characters, letters (any script) and digits, with
#: single spaces, dots, hyphens or underscores between them. Names are shown beside every
#: comment, so they may not start or end with punctuation or run spaces together (two
#: learners who differ only by a trailing space would look identical).
DISPLAY_NAME_PATTERN = r"^(?=.{3,30}\Z)[^\W_](?:[ ._-]?[^\W_])*\Z"

#: Generated handles look like this; a learner may not pick one, so nobody can pose as
#: another learner who has kept their handle.
HANDLE_PREFIX = "learner-"


class Theme(models.TextChoices):
    SYSTEM = "system", "Follow the system setting"
    LIGHT = "light", "Light"
    DARK = "dark", "Dark"


class ReaderManager(UserManager.from_queryset(ReaderQuerySet)):  # type: ignore[misc]
    """Django's user manager whose ``update`` forgets the cached readers it changes
    (``inferview.access.readers``)."""


class User(AbstractUser):
    """The platform's user. Sign-in is by email (django-allauth); ``username`` is a random
    handle allauth generates (``learner-…``, see ``adapter.populate_username``).

    ``display_name`` is the name a learner chooses for their comments; until they choose
    one (every account made before it existed, and every new one) the handle is shown, so
    ``public_name`` is what pages and the API print. Display names are unique ignoring
    case (a partial unique index: the empty default is not a name)."""

    preferred_currency = models.CharField(
        max_length=3,
        blank=True,
        default="",
        help_text="Prices in this currency. Empty: the browser's languages decide.",
    )
    display_name = models.CharField(
        max_length=30,
        blank=True,
        default="",
        validators=[
            RegexValidator(
                DISPLAY_NAME_PATTERN,
                "Use 3-30 letters or digits, with single spaces, dots, hyphens or "
                "underscores between them.",
            )
        ],
        help_text="Shown beside your comments instead of your handle.",
    )
    theme = models.CharField(
        max_length=6,
        choices=Theme.choices,
        default=Theme.SYSTEM,
        help_text="Light or dark pages; by default the device's setting decides.",
    )
    # The UTS #39 skeleton of the display name (``names.skeleton``), kept by ``save``: two
    # names that look alike have the same skeleton, and the unique index below refuses it.
    name_skeleton = models.CharField(max_length=255, blank=True, default="", editable=False)
    time_zone = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="IANA name (Europe/Paris) times are shown in. Empty: the browser's zone, "
        "kept here on the first signed-in request that reports one.",
    )
    email_replies = models.BooleanField(
        "Email me replies to my comments",
        default=True,
        help_text="One email per reply to a comment of yours; nothing else is sent.",
    )

    objects = ReaderManager()

    class Meta(AbstractUser.Meta):
        constraints = [
            models.UniqueConstraint(
                Lower("display_name"),
                condition=~models.Q(display_name=""),
                name="accounts_user_display_name_unique_ci",
                violation_error_message="That display name is taken.",
            ),
            models.UniqueConstraint(
                fields=["name_skeleton"],
                condition=~models.Q(name_skeleton=""),
                name="accounts_user_name_skeleton_unique",
                violation_error_message="That display name is taken.",
            ),
        ]

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.name_skeleton = names.skeleton(self.display_name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "display_name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_skeleton"}
        super().save(*args, **kwargs)

    @property
    def public_name(self) -> str:
        return self.display_name or self.username
