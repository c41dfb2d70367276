from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from questions.content_io import ContentError, import_content


class Command(BaseCommand):
    help = "Import tracks, questions, concepts and guides from Markdown files (default: the starter content)."

    def add_arguments(self, parser):
        parser.add_argument("directory", nargs="?", default=None)

    def handle(self, *args, directory=None, **options):
        root = Path(directory) if directory else Path(settings.CONTENT_DIR)
        try:
            report = import_content(root)
        except ContentError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Imported {root}: {report}")
