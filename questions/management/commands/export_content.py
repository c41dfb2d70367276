from pathlib import Path

from django.core.management.base import BaseCommand

from questions.content_export import export_content


class Command(BaseCommand):
    help = "Export all content as Markdown files with front matter into DIR."

    def add_arguments(self, parser):
        parser.add_argument("directory")

    def handle(self, *args, directory, **options):
        n = export_content(Path(directory))
        self.stdout.write(f"Wrote {n} files to {directory}")
