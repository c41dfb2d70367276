"""The learner's own settings: the display name shown on comments, the theme, the
currency of prices and which emails they get.

Kept apart from ``services.py`` (sign-up and deletion) because these are the writes the
profile page makes; both are keyword-only and atomic like every other service."""

from __future__ import annotations

import secrets
import zoneinfo

from django.contrib.auth import get_user_model
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q

from inferview.access import pricing
from questions import content_version

from . import names
from .models import HANDLE_PREFIX, Theme, User


def normalise_display_name(name: str) -> str:
    """NFKC, so "Zoë" typed with a combining accent is the same name as the composed one
    and fullwidth letters become the letters they stand for, and surrounding spaces
    dropped (a name cannot start or end with one)."""
    return names.normalise(name)


#: Salt of the signed handle the sign-up form carries from the page that shows it to the
#: account it makes (``sign_handle``).
HANDLE_SALT = "inferview.accounts.signup-handle"


def new_handle() -> str:
    """A random public handle (``learner-…``) no account has yet. A handle is neutral on
    purpose: allauth would derive one from the email address and so publish part of it."""
    users = get_user_model().objects
    while True:
        handle = f"{HANDLE_PREFIX}{secrets.token_hex(4)}"
        if not users.filter(username__iexact=handle).exists():
            return handle


def sign_handle(handle: str) -> str:
    return signing.dumps(handle, salt=HANDLE_SALT)


def unsign_handle(token: str) -> str:
    """The handle a sign-up page showed, if ``token`` is one this site signed and the handle
    is still free; otherwise "" (a fresh one is drawn)."""
    try:
        handle = signing.loads(token, salt=HANDLE_SALT, max_age=60 * 60 * 24)
    except signing.BadSignature:
        return ""
    if not isinstance(handle, str) or not handle.startswith(HANDLE_PREFIX):
        return ""
    if get_user_model().objects.filter(username__iexact=handle).exists():
        return ""
    return handle


def check_display_name(*, user: User, name: str) -> str:
    """The normalised name, or ``ValidationError`` saying what is wrong with it.

    Besides the shape the field's validator checks, a name may not mix scripts the way
    lookalikes do, look like a generated handle, or look like (have the UTS #39 skeleton
    of) another learner's display name or handle: comments show one or the other, and two
    learners must never look alike (``names``)."""
    name = normalise_display_name(name)
    if not name:
        return ""
    field = User._meta.get_field("display_name")
    try:
        field.run_validators(name)
    except ValidationError as exc:
        raise ValidationError(exc.messages) from exc
    own_handle = names.skeleton(name) == names.skeleton(user.username)
    if names.skeleton(name).startswith(names.skeleton(HANDLE_PREFIX)) and not own_handle:
        raise ValidationError(f"Names starting with “{HANDLE_PREFIX}” are kept for handles.")
    problem = names.script_problem(name)
    if problem:
        raise ValidationError(problem)
    others = get_user_model().objects.exclude(pk=user.pk)
    if others.filter(Q(name_skeleton=names.skeleton(name)) | Q(username__iexact=name)).exists():
        raise ValidationError("That display name is taken.")
    return name


def update_profile(*, user: User, display_name: str, theme: str) -> User:
    """Save the learner's display name (empty: show the handle) and theme."""
    try:
        name = check_display_name(user=user, name=display_name)
    except ValidationError as exc:
        raise ValidationError({"display_name": exc.messages}) from exc
    if theme not in Theme.values:
        raise ValidationError({"theme": [f"Choose one of: {', '.join(Theme.values)}."]})
    renamed = name != user.display_name
    user.display_name = name
    user.theme = theme
    try:
        with transaction.atomic():
            user.save(update_fields=["display_name", "theme"])
            if renamed:
                # Cached anonymous pages show this learner's comments under the old name;
                # retire them (as a new comment does) once the rename is committed.
                transaction.on_commit(content_version.bump)
    except IntegrityError as exc:  # another learner took the name since the check
        raise ValidationError({"display_name": ["That display name is taken."]}) from exc
    return user


def set_theme(*, user: User, theme: str) -> None:
    """The header toggle's write: the theme only."""
    if theme not in Theme.values:
        raise ValidationError({"theme": [f"Choose one of: {', '.join(Theme.values)}."]})
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(theme=theme)
    user.theme = theme


def set_preferred_currency(*, user: User, currency: str) -> None:
    """Save the currency the learner chose for prices. The access app's
    ``pricing.set_viewer_currency`` calls this for every signed-in choice (the currency
    toggle, checkout, this page): it is registered in ``AccountsConfig.ready`` because
    access, a floor below, may not import this app."""
    if not pricing.is_supported(currency):
        raise ValidationError({"currency": [f"Choose one of: {', '.join(pricing.currencies())}."]})
    if user.preferred_currency == currency:
        return
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(preferred_currency=currency)
    user.preferred_currency = currency


def set_email_preferences(*, user: User, email_replies: bool) -> None:
    """Whether a reply to one of the learner's comments is emailed to them."""
    if not isinstance(email_replies, bool):
        raise ValidationError({"email_replies": ["Tick the box or leave it empty."]})
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(email_replies=email_replies)
    user.email_replies = email_replies


def check_time_zone(name: str) -> str:
    """The IANA time zone name if zoneinfo knows it ("" stays ""), else ``ValidationError``
    naming ``time_zone``."""
    name = (name or "").strip()
    if not name:
        return ""
    try:
        if len(name) > 64:
            raise ValueError(name)
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationError(
            {
                "time_zone": [
                    f"“{name[:64]}” is not a time zone we know; choose one like Europe/Paris."
                ]
            }
        ) from exc
    return name


def set_time_zone(*, user: User, time_zone: str) -> None:
    """Keep the zone times are shown in for this learner ("" : the browser's, again)."""
    name = check_time_zone(time_zone)
    with transaction.atomic():
        get_user_model().objects.filter(pk=user.pk).update(time_zone=name)
    user.time_zone = name


def zone_to_show(*, user: User, browser_zone: str) -> str:
    """The zone to show this signed-in learner's times in: their profile's; else the one
    their browser reports (community.js's cookie), which is then kept in the profile, so
    e-mails and other devices use it too. "" when neither is a known zone (UTC)."""
    if user.time_zone:
        try:
            return check_time_zone(user.time_zone)
        except ValidationError:
            return ""
    try:
        zone = check_time_zone(browser_zone)
    except ValidationError:
        return ""
    if zone:
        set_time_zone(user=user, time_zone=zone)
    return zone
