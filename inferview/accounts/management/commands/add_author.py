"""python manage.py add_author EMAIL [--password PASSWORD]

Makes EMAIL an author: a staff account in the "authors" group, which may write tracks,
questions, concepts and guides in admin and nothing else. An existing account is
promoted; a new one is created (without a password unless one is given: the author sets
it through "Forgot password" on the sign-in page). The writes are
``accounts.services.author_make``'s; the command lives with the user model it writes,
a floor above the content whose group it grants.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from inferview.accounts.services import author_make


class Command(BaseCommand):
    help = "Make EMAIL an author (staff in the authors group), creating the account if needed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("--password", help="set this password (otherwise none is set)")

    def handle(self, *args: Any, email: str, password: str | None = None, **options: Any) -> None:
        try:
            user, created = author_make(email=email, password=password)
        except ValidationError as error:
            field, messages = next(iter(error.message_dict.items()))
            raise CommandError(f"{field}: {messages[0]}") from None
        verb = "Created" if created else "Promoted"
        self.stdout.write(
            f"{verb} {user.email}: staff in the authors group, may edit content in /admin/."
        )
        if created and not password:
            self.stdout.write("No password set: use 'Forgot password' on the sign-in page.")
