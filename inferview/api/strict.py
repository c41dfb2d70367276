"""JSON request bodies held to the types their schema documents.

DRF's fields coerce: a CharField takes 123 as "123", a BooleanField takes "yes", 1 or
"true", an IntegerField takes "12" or 12.0. That suits HTML forms, whose fields are all
text, but the API is JSON only (settings: DEFAULT_PARSER_CLASSES) and its schema says
``"type": "boolean"``; a client sending ``"reveal": "yes"`` has a bug that coercion would
hide. ``type_problems`` walks a serializer's fields beside the parsed body and names every
value whose JSON type is not the one documented, before the serializer sees it.
"""

from __future__ import annotations

from typing import Any

from rest_framework import fields, serializers

REASON = "must be {kind}, not {got}"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _choice_kinds(field: fields.ChoiceField) -> set[str]:
    return {_json_kind(key) for key in field.choices}


def _expected(field: fields.Field, value: Any) -> str | None:
    """What ``field`` documents when ``value``'s JSON type does not fit it, else None."""
    if isinstance(field, fields.BooleanField):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(field, fields.ChoiceField):
        kinds = _choice_kinds(field)
        return None if _json_kind(value) in kinds else "one of the listed values"
    if isinstance(field, fields.CharField):
        return None if isinstance(value, str) else "a string"
    if isinstance(field, fields.IntegerField):
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else "a whole number"
    if isinstance(field, fields.FloatField | fields.DecimalField):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return None if ok else "a number"
    if isinstance(field, fields.ListField | serializers.ListSerializer):
        return None if isinstance(value, list) else "an array"
    if isinstance(field, fields.DictField | serializers.Serializer):
        return None if isinstance(value, dict) else "an object"
    return None  # JSONField and custom fields check their own input


def _walk(field: fields.Field, value: Any, path: str, out: dict[str, list[str]]) -> None:
    if value is None:
        if not field.allow_null:
            out[path] = ["may not be null"]
        return
    expected = _expected(field, value)
    if expected is not None:
        out[path] = [REASON.format(kind=expected, got=_json_kind(value))]
        return
    if isinstance(field, fields.ListField):
        for i, item in enumerate(value):
            _walk(field.child, item, f"{path}.{i}", out)
    elif isinstance(field, serializers.ListSerializer):
        for i, item in enumerate(value):
            _walk(field.child, item, f"{path}.{i}", out)
    elif isinstance(field, fields.DictField):
        for key, item in value.items():
            _walk(field.child, item, f"{path}.{key}", out)
    elif isinstance(field, serializers.Serializer):
        out.update(type_problems(field, value, prefix=f"{path}."))


def type_problems(
    serializer: serializers.Serializer, data: Any, prefix: str = ""
) -> dict[str, list[str]]:
    """Field path to the reason its JSON type is wrong; {} when every value fits."""
    if not isinstance(data, dict):
        return {"non_field_errors": ["the body must be a JSON object"]}
    out: dict[str, list[str]] = {}
    for name, field in serializer.fields.items():
        if field.read_only or field.source == "*" or name not in data:
            continue
        _walk(field, data[name], f"{prefix}{name}", out)
    return out
