"""python manage.py add_author EMAIL [--password PASSWORD]

Makes EMAIL an author: a staff account in the "authors" group, which may write tracks,
questions, concepts and guides in admin and nothing else. An existing account is
promoted; a new one is created (without a password unless one is given: the author sets
it through "Forgot password" on the sign-in page).
"""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_email
from django.db import transaction

from questions.roles import ensure_authors_group


class Command(BaseCommand):
    help = "Make EMAIL an author (staff in the authors group), creating the account if needed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("--password", help="set this password (otherwise none is set)")

    @transaction.atomic
    def handle(self, *args: Any, email: str, password: str | None = None, **options: Any) -> None:
        email = email.strip().lower()
        try:
            validate_email(email)
        except ValidationError:
            raise CommandError(f"email: {email!r} is not a valid address") from None
        User = get_user_model()
        user = User.objects.filter(email__iexact=email).first()
        created = user is None
        if created:
            user = User(email=email, **({"username": email} if hasattr(User, "username") else {}))
            if password:
                user.set_password(password)
            else:
                user.set_unusable_password()
        elif password:
            user.set_password(password)
        user.is_staff = True
        user.save()
        user.groups.add(ensure_authors_group())
        # The operator vouches for the address, so sign-in does not wait for a verification
        # e-mail (allauth's mandatory verification applies to self-service sign-up).
        EmailAddress.objects.update_or_create(
            user=user, email=email, defaults={"verified": True, "primary": True}
        )
        verb = "Created" if created else "Promoted"
        self.stdout.write(
            f"{verb} {email}: staff in the authors group, may edit content in /admin/."
        )
        if created and not password:
            self.stdout.write("No password set: use 'Forgot password' on the sign-in page.")
