"""python manage.py check_content [--track SLUG ...] [--concepts] [--guides] [--lessons] [--root DIR]

Runs the content quality rules (questions/content_check.py, and for the course
questions/content_check_lessons.py) over the content files and
exits non-zero when any finding remains, so authors see what CI will refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from questions.content_check_lessons import check_course


class Command(BaseCommand):
    help = "Check the content files against the quality rules; non-zero exit on findings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--root", default=str(settings.CONTENT_DIR), help="content folder")
        parser.add_argument("--track", action="append", default=[], help="only this track")
        parser.add_argument("--concepts", action="store_true", help="only concepts")
        parser.add_argument("--guides", action="store_true", help="only guides")
        parser.add_argument("--lessons", action="store_true", help="only the course")

    def handle(self, *args: Any, **options: Any) -> None:
        root = Path(options["root"])
        if not root.is_dir():
            raise CommandError(f"{root}: no such content folder")
        findings = check_course(
            root,
            tracks=options["track"],
            concepts=options["concepts"],
            guides=options["guides"],
            lessons=options["lessons"],
        )
        for finding in findings:
            self.stdout.write(str(finding))
        if findings:
            raise CommandError(f"{len(findings)} finding(s)")
        self.stdout.write(self.style.SUCCESS("content check passed"))
