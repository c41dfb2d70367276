"""python manage.py import_content [DIR] [--dry-run] [--force] [--only-new]

Imports the content files (default: the starter content). Items edited in admin since
their last import or export are kept and listed as conflicts unless --force (files win).
--only-new creates what the database lacks and leaves every existing item alone (what
``make run`` does on start). --dry-run shows what an import would change and rolls back.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from questions.content_io import ContentError, ImportOptions, import_content


class DryRun(Exception):
    """Raised inside the import's transaction to roll it back after reporting."""


class Command(BaseCommand):
    help = "Import tracks, questions, concepts and guides from Markdown files (default: the starter content)."

    def add_arguments(self, parser):
        parser.add_argument("directory", nargs="?", default=None)
        parser.add_argument("--dry-run", action="store_true", help="report, then roll back")
        parser.add_argument("--force", action="store_true", help="files win over admin edits")
        parser.add_argument("--only-new", action="store_true", help="create missing items only")

    def handle(self, *args, directory=None, dry_run=False, force=False, only_new=False, **options):
        root = Path(directory) if directory else Path(settings.CONTENT_DIR)
        opts = ImportOptions(force=force, only_new=only_new)
        try:
            with transaction.atomic():
                report = import_content(root, opts)
                if dry_run:
                    raise DryRun
        except DryRun:
            self.stdout.write(f"Dry run of {root} (nothing written): {report}")
            return
        except ContentError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Imported {root}: {report}")
        for conflict in report.conflicts:
            self.stderr.write(
                f"kept admin edit: {conflict}; export it to the files, or import with --force"
            )
