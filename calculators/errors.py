"""The one error type raised for bad calculator input.

Validation, the directive parser, the CLI and the API all raise or translate this, so a
caller always learns every bad field at once rather than one per attempt.
"""

from __future__ import annotations


class CalculatorInputError(ValueError):
    """Bad input for a calculator. ``fields`` maps an input name to its reasons.

    Problems not tied to one input (an unknown calculator, a missing alternative) use the
    pseudo-fields ``calculator``, ``preset`` or ``inputs``.
    """

    def __init__(self, fields: dict[str, list[str]], message: str | None = None) -> None:
        self.fields = {name: list(reasons) for name, reasons in fields.items()}
        self.message = message or self._summary()
        super().__init__(self.message)

    def fields_text(self) -> str:
        """Every field and its reasons on one line, for inline error messages."""
        return "; ".join(f"{name}: {', '.join(reasons)}" for name, reasons in self.fields.items())

    def _summary(self) -> str:
        parts = [f"{name}: {'; '.join(reasons)}" for name, reasons in self.fields.items()]
        return "Invalid calculator input. " + " | ".join(parts)
