"""List editors for JSON fields authors used to type by hand: key points as a list of
sentences, references as rows of title, publisher, year and URL. Each row is its own
inputs (``name`` repeated, read with ``getlist``); static/js/admin_lists.js adds, removes
and reorders rows, and without JavaScript the empty rows on the page still work."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.widgets import AdminSplitDateTime
from django.core.exceptions import ValidationError
from django.utils.html import format_html, format_html_join

from .content_format import REFERENCE_FIELDS

SPARE_ROWS = 2


class ListWidget(forms.Widget):
    """Rows of inputs for a list of records; ``columns`` names each row's inputs."""

    def __init__(
        self,
        columns: tuple[str, ...] = ("",),
        labels: tuple[str, ...] = ("",),
        noun: str = "key point",
    ):
        super().__init__()
        # ``noun`` names the rows in the buttons' labels ("Move key point 2 up"), so two
        # editors on one form never give a screen reader two identical buttons.
        self.columns, self.labels, self.noun = columns, labels, noun

    def value_from_datadict(self, data, files, name):
        if not any(f"{name}{_suffix(c)}" in data for c in self.columns):
            return None
        cols = [data.getlist(f"{name}{_suffix(c)}") for c in self.columns]
        return [list(row) for row in zip(*cols, strict=False)]

    def render(self, name, value, attrs=None, renderer=None):
        rows = [self._cells(r) for r in (value or [])] + [[""] * len(self.columns)] * SPARE_ROWS
        body = format_html_join(
            "", "{}", ((self._row(name, i, cells),) for i, cells in enumerate(rows))
        )
        return format_html(
            '<div class="list-editor" data-list-editor="{}" data-noun="{}">'
            '<ol class="list-editor-rows">{}</ol>'
            '<button type="button" class="button list-add">Add a {}</button></div>',
            name,
            self.noun,
            body,
            self.noun,
        )

    def _cells(self, record: Any) -> list[str]:
        """A stored record (a dict, or a key point's string) or, when the form is shown
        again with an error, the row as posted (a list of cells, one per column)."""
        if isinstance(record, dict):
            return ["" if record.get(c) is None else str(record.get(c)) for c in self.columns]
        if isinstance(record, list | tuple):
            cells = ["" if c is None else str(c) for c in record][: len(self.columns)]
            return cells + [""] * (len(self.columns) - len(cells))
        return [str(record)]

    def _row(self, name: str, index: int, cells: list[str]) -> str:
        inputs = format_html_join(
            "",
            '<label class="list-cell">{}<input type="{}" name="{}{}" value="{}" {}></label>',
            (
                (
                    label or "Point",
                    "url" if col == "url" else "text",
                    name,
                    _suffix(col),
                    cell,
                    "inputmode=numeric size=6" if col == "year" else "",
                )
                for col, label, cell in zip(self.columns, self.labels, cells, strict=True)
            ),
        )
        row = f"{self.noun} {index + 1}"
        return format_html(
            '<li class="list-row">{}<span class="list-tools">'
            '<button type="button" class="button list-up" aria-label="Move {} up">↑</button>'
            '<button type="button" class="button list-down" aria-label="Move {} down">↓</button>'
            '<button type="button" class="button list-remove" aria-label="Remove {}">Remove</button>'
            "</span></li>",
            inputs,
            row,
            row,
            row,
        )


def _suffix(column: str) -> str:
    return f"-{column}" if column else ""


class KeyPointsField(forms.Field):
    """A list of sentences; empty rows are dropped. Per-point rules are the model's
    (``key_point_problems``, run by the model's ``clean``)."""

    widget = ListWidget

    def to_python(self, value):
        rows = value or []
        return [str(row[0]).strip() for row in rows if row and str(row[0]).strip()]


class ReferencesField(forms.Field):
    """Rows of title, publisher, year, url, each checked on its own: the error names the row
    and the field, as the importer's does for files."""

    def __init__(self, **kwargs):
        kwargs.setdefault(
            "widget",
            ListWidget(REFERENCE_FIELDS, ("Title", "Publisher", "Year", "URL"), noun="reference"),
        )
        super().__init__(**kwargs)

    def to_python(self, value):
        refs, errors = [], []
        for i, row in enumerate(value or [], start=1):
            cells = dict(zip(REFERENCE_FIELDS, (str(c).strip() for c in row), strict=False))
            if not any(cells.values()):
                continue
            missing = [f for f in REFERENCE_FIELDS if not cells.get(f)]
            if missing:
                errors.append(f"row {i}: missing {', '.join(missing)}")
                continue
            if not cells["url"].startswith(("https://", "http://")):
                errors.append(f"row {i}: url must start with http(s)://")
                continue
            year: Any = cells["year"]
            if year.isdigit():
                year = int(year)
            refs.append(
                {
                    "title": cells["title"],
                    "publisher": cells["publisher"],
                    "year": year,
                    "url": cells["url"],
                }
            )
        if errors:
            raise ValidationError(errors)
        return refs


class LabelledSplitDateTime(AdminSplitDateTime):
    """Django admin's date and time inputs, each with a name of its own: the stock widget
    prints "Date:" and "Time:" as bare text beside them, so a screen reader (and axe's
    ``label`` rule) finds two unnamed inputs under the field's legend ("Publish at")."""

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        for sub, label in zip(context["widget"]["subwidgets"], ("Date", "Time"), strict=True):
            sub["attrs"]["aria-label"] = label
        return context
