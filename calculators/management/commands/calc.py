"""python manage.py calc <slug> name=value ... [--preset NAME] [--json]

Runs the kernel in-process (no queue, no database) and prints the outputs and worked
steps, or with --json a JSON object of outputs. Arrays are written name=1,2,4,8.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from calculators.compute import compute
from calculators.errors import CalculatorInputError
from calculators.specs import SPECS
from calculators.validation import validate_text


class Command(BaseCommand):
    help = "Run a calculator in-process: calc <slug> name=value ... [--preset NAME] [--json]"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help=f"one of: {', '.join(SPECS)}")
        parser.add_argument(
            "pairs", nargs="*", metavar="name=value", help="inputs; arrays as name=1,2,4"
        )
        parser.add_argument("--preset", help="hardware preset, e.g. h100-sxm")
        parser.add_argument("--json", action="store_true", help="print outputs as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["slug"]
        texts: dict[str, str] = {}
        for pair in options["pairs"]:
            name, sep, value = pair.partition("=")
            if not sep or not name:
                raise CommandError(f"expected name=value, got {pair!r}")
            if name in texts:
                raise CommandError(f"{name}: given twice")
            texts[name] = value
        try:
            result = compute(slug, validate_text(slug, texts, options["preset"]))
        except CalculatorInputError as exc:
            lines = [f"{name}: {'; '.join(reasons)}" for name, reasons in exc.fields.items()]
            raise CommandError("invalid input\n  " + "\n  ".join(lines)) from None

        if options["json"]:
            self.stdout.write(json.dumps(result["outputs"], allow_nan=False))
            return
        self._print_report(SPECS[slug].title, result)

    def _print_report(self, title: str, result: dict[str, Any]) -> None:
        out = self.stdout
        table = result["table"]
        out.write(title)
        if table["columns"]:
            out.write("columns: " + " | ".join(table["columns"]))
        out.write("\nOutputs")
        for row in table["outputs"]:
            out.write(f"  {row['name']:28s} {' | '.join(row['cells'])}")
        if table["truncated"]:
            out.write(
                f"  (showing {len(table['columns'])} of {table['total_points']:,} points;"
                " use --json for all)"
            )
        out.write("\nWorked steps")
        for section in result["steps"]:
            if section["title"]:
                out.write(f"  [{section['title']}]")
            for line in section["lines"]:
                out.write(f"  {line}")
        out.write("\nWhat this establishes")
        for line in result["establishes"]:
            out.write(f"  - {line}")
        out.write("\nWhat still needs measurement")
        for line in result["needs_measurement"]:
            out.write(f"  - {line}")
