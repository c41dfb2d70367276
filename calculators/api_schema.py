"""The run request of each calculator as an exact schema, and the check that holds the API
to it.

One request schema cannot serve 23 calculators with different inputs, so the OpenAPI
schema documents one operation per calculator (``expand_run_operations``, a drf-spectacular
postprocessing hook): ``POST /api/v1/calculators/<slug>/runs/`` with that calculator's
inputs: names, types, ranges, choices, which are required, and the 1-D lists a sweep takes.
The ``{slug}`` route itself keeps working; the schema lists its concrete paths instead.

``body_problems`` checks a body against exactly what ``run_body_schema`` says, built from
the same ``Input`` data, so the two cannot drift apart: anything the schema refuses is a
400 naming the field. A body the schema accepts goes to ``calculators.validation``; what it
still refuses breaks a rule that spans several fields (listed in the operation's
description, ``CROSS_FIELD_RULES``) and is answered 422, so "well formed but inconsistent"
is told apart from "malformed".
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from . import presets
from .grids import GRID_KEY, GRID_OUTPUTS, MAX_COMPARE
from .specs import BOOLEAN, CHOICE, INTEGER, SPECS, CalculatorSpec, Input
from .validation import MAX_POINTS, clean_value

TEMPLATE_PATH = "/api/v1/calculators/{slug}/runs/"
BODY_KEYS = ("inputs", "preset")

#: Rules every calculator's validation applies that a JSON schema cannot state.
CROSS_FIELD_RULES = [
    "An input marked required in the calculator's spec but not in this schema must be "
    "given unless the hardware `preset` or the `model` (or a pasted `config`) fills it "
    "(a preset fills only the figures it publishes, and the peak at the `precision` input).",
    "Lists (sweeps) must broadcast: every list the same length, or a single value.",
    "A `precision` the preset's GPU has no published peak for is refused; two presets "
    "compared side by side must differ.",
]
GRID_RULE = (
    "`grid` names two different numeric inputs (rows, then columns); both must be lists, "
    "every other input a single value, and rows × columns at most 10^6 cells."
)
MODEL_RULES = [
    "Give `model` or `config`, not both; `config` must be a Hugging Face config.json with "
    "the architecture fields the calculator needs.",
    "Several models side by side must share an attention and expert layout.",
]
#: Each calculator's own consistency rules (its spec's ``check``), in words.
SPEC_RULES: dict[str, list[str]] = {
    "roofline": ["Give either `intensity`, or both `flops` and `bytes`, not both."],
    "attention_intensity": ["Give `peak_tflops` and `bandwidth_tbs` together, or neither."],
    "decode_bound": [
        "Architecture inputs come as a set: `layers` with `kv_heads` and `head_dim` (or "
        "`kv_lora_rank` for MLA), unless `kv_gb_per_seq` is given; an expert layout needs "
        "all of its fields."
    ],
    "weight_memory": [
        "`vocab` and `hidden` together or neither; `params_b` must exceed the embedding "
        "and lm_head they imply."
    ],
    "kv_cache": [
        "`kv_heads` and `head_dim` are required unless `kv_lora_rank` (MLA) is given; "
        "`local_layers` needs `local_window` and must not exceed `layers`."
    ],
    "moe_active": [
        "`experts`, `experts_per_token` and `expert_params_b` together or none; "
        "`experts_per_token` must not exceed `experts`."
    ],
    "mig": ["`profile` must be a MIG profile of `gpu`."],
    "serving_estimate": [
        "The KV cache rules of kv_cache; `kv_heads` must not exceed `heads`; "
        "`active_params_b` must not exceed `params_b`; `ep` must divide `tp`; expert "
        "parallelism and dp_attention need the model's expert layout."
    ],
    "paged_kv_capacity": [
        "The KV cache rules of kv_cache; `kv_bytes_per_token` or the architecture "
        "(`layers`, ...) is required; `mean_tokens` must not exceed `max_tokens`."
    ],
}


def _takes_model(spec: CalculatorSpec) -> bool:
    return "model" in spec.input_names


def always_required(spec: CalculatorSpec) -> list[str]:
    """Inputs no default, preset, model or config can fill: required in every body."""
    fillable = set(spec.preset_fills) | (set(spec.input_names) if _takes_model(spec) else set())
    return [
        i.name
        for i in spec.inputs
        if i.required and i.default is None and i.name not in fillable and not i.selector
    ]


def _scalar(inp: Input) -> dict[str, Any]:
    if inp.kind == BOOLEAN:
        return {"type": "boolean"}
    if inp.kind == CHOICE:
        return {"type": "string", "enum": list(inp.choices)}
    out: dict[str, Any] = {"type": "integer" if inp.kind == INTEGER else "number"}
    if inp.min is not None:
        out["minimum"] = inp.min
        if inp.min_exclusive:
            out["exclusiveMinimum"] = True
    if inp.max is not None:
        out["maximum"] = inp.max
    return out


def _input_schema(inp: Input, required: bool) -> dict[str, Any]:
    scalar = _scalar(inp)
    unit = f" ({inp.unit})" if inp.unit else ""
    default = "" if inp.default is None else f" Default {inp.default}."
    schema: dict[str, Any] = {
        "oneOf": [
            scalar,
            {"type": "array", "items": scalar, "minItems": 1, "maxItems": MAX_POINTS},
        ],
        "description": f"{inp.label}{unit}.{default} A list sweeps it "
        f"(at most {MAX_POINTS:,} values)." + (f" {inp.help}" if inp.help else ""),
    }
    if not required:
        schema["nullable"] = True  # null: as if left out
    return schema


def _preset_values(spec: CalculatorSpec) -> list[str]:
    if not spec.preset_fills:
        return []
    if spec.slug == "mig":
        return list(presets.MIG_PROFILES)
    return list(presets.GPUS)


def _preset_schema(spec: CalculatorSpec) -> dict[str, Any]:
    slugs = _preset_values(spec)
    if not slugs:
        return {
            "type": "string",
            "enum": ["", None],
            "nullable": True,
            "description": f"{spec.slug} takes no hardware preset: leave it out, null or empty.",
        }
    choices: list[dict[str, Any]] = [{"type": "string", "enum": ["", *slugs]}]
    description = "A hardware preset slug; it fills the GPU figures, explicit inputs override."
    if spec.slug != "mig":
        alternatives = "|".join(s.replace(".", r"\.") for s in slugs)
        choices.append(
            {
                "type": "string",
                "pattern": f"^({alternatives}),({alternatives})$",
                "description": "Two different presets side by side, e.g. h100-sxm,h200.",
            }
        )
        description += " Two slugs joined by a comma compare two GPUs side by side."
    return {"oneOf": choices, "nullable": True, "description": description}


def run_body_schema(spec: CalculatorSpec) -> dict[str, Any]:
    """The request body of ``POST /api/v1/calculators/<spec.slug>/runs/`` (OpenAPI 3.0)."""
    required = always_required(spec)
    properties = {i.name: _input_schema(i, i.name in required) for i in spec.inputs}
    if _takes_model(spec):
        properties["config"] = {
            "oneOf": [{"type": "string", "minLength": 1}, {"type": "object"}],
            "description": "A Hugging Face config.json (text or object) to fill the "
            "architecture inputs from, instead of model.",
        }
    if spec.slug in GRID_OUTPUTS:
        numeric = [i.name for i in spec.inputs if i.kind not in (BOOLEAN, CHOICE)]
        properties[GRID_KEY] = {
            "type": "array",
            "items": {"type": "string", "enum": numeric},
            "minItems": 2,
            "maxItems": 2,
            "description": "A heat map: the two inputs swept as rows and columns.",
        }
    inputs: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "description": f"{spec.title}: input name to a value, or a list of values (a sweep).",
    }
    if required:
        inputs["required"] = required
    body: dict[str, Any] = {
        "type": "object",
        "properties": {"inputs": inputs, "preset": _preset_schema(spec)},
        "additionalProperties": False,
    }
    if required:
        body["required"] = ["inputs"]
    return body


def rules(spec: CalculatorSpec) -> list[str]:
    """The rules validation applies beyond the schema (answered 422)."""
    out = list(CROSS_FIELD_RULES)
    if spec.slug in GRID_OUTPUTS:
        out.append(GRID_RULE)
    if _takes_model(spec):
        out += MODEL_RULES
    return out + SPEC_RULES.get(spec.slug, [])


# ------------------------------------------------------------------ the check


def _preset_problem(spec: CalculatorSpec, preset: Any) -> str | None:
    if preset is None or preset == "":
        return None
    slugs = _preset_values(spec)
    if not slugs:
        return f"{spec.slug} takes no hardware preset"
    if not isinstance(preset, str):
        return "must be a preset slug string"
    parts = preset.split(",")
    if all(p in slugs for p in parts) and (
        len(parts) == 1 or (spec.slug != "mig" and len(parts) == MAX_COMPARE)
    ):
        return None
    if len(parts) > 1:
        return f"compare takes {MAX_COMPARE} preset slugs joined by a comma, e.g. h100-sxm,h200"
    return f"unknown preset {preset!r}; known: {', '.join(slugs)}"


def _config_problem(value: Any) -> str | None:
    if isinstance(value, Mapping) or (isinstance(value, str) and value):
        return None
    return "must be a config.json as text or an object"


def _grid_problem(spec: CalculatorSpec, value: Any) -> str | None:
    numeric = [i.name for i in spec.inputs if i.kind not in (BOOLEAN, CHOICE)]
    if isinstance(value, list) and len(value) == 2 and all(v in numeric for v in value):
        return None
    return f"must name two numeric inputs of {spec.slug}, rows then columns"


def body_problems(spec: CalculatorSpec, body: Any) -> dict[str, list[str]]:
    """Where ``body`` breaks ``run_body_schema(spec)``, by field; {} when it conforms."""
    if not isinstance(body, Mapping):
        return {"body": ['expected {"inputs": {...}, "preset": "..."}']}
    problems: dict[str, list[str]] = {
        str(k): ["unknown field; the body takes inputs and preset"]
        for k in body
        if k not in BODY_KEYS
    }
    if (preset := _preset_problem(spec, body.get("preset"))) is not None:
        problems["preset"] = [preset]
    required = always_required(spec)
    if "inputs" not in body:
        problems.update({name: ["required"] for name in required})
        return problems
    inputs = body["inputs"]
    if not isinstance(inputs, Mapping):
        problems["inputs"] = ["must be an object of name: value pairs"]
        return problems
    known = {i.name: i for i in spec.inputs}
    for name, value in inputs.items():
        key = str(name)
        if name == "config" and _takes_model(spec):
            if (reason := _config_problem(value)) is not None:
                problems[key] = [reason]
        elif name == GRID_KEY and spec.slug in GRID_OUTPUTS:
            if (reason := _grid_problem(spec, value)) is not None:
                problems[key] = [reason]
        elif name not in known:
            problems[key] = [
                f"unknown input for {spec.slug}; expected one of {', '.join(spec.input_names)}"
            ]
        elif value is None:
            if name in required:
                problems[key] = ["required"]
        else:
            _, reasons = clean_value(known[name], value)
            if reasons:
                problems[key] = reasons
    for name in required:
        if name not in inputs:
            problems[name] = ["required"]
    return problems


# ------------------------------------------------------------------ the schema hook


def expand_run_operations(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular POSTPROCESSING_HOOKS entry: the ``{slug}`` run operation becomes one
    operation per calculator, each with its own request body and its rules (422)."""
    paths = result.get("paths", {})
    template = paths.pop(TEMPLATE_PATH, None)
    if template is None or "post" not in template:
        return result
    for slug, spec in SPECS.items():
        operation = copy.deepcopy(template["post"])
        operation["operationId"] = f"calculators_runs_create_{slug}"
        operation["summary"] = f"{spec.title}: start a run (or get the stored result)"
        operation["parameters"] = [
            p for p in operation.get("parameters", []) if p.get("in") != "path"
        ]
        operation["requestBody"] = {
            "content": {"application/json": {"schema": run_body_schema(spec)}},
            "required": True,
        }
        if spec.example:
            example = {"inputs": dict(spec.example)}
            operation["requestBody"]["content"]["application/json"]["examples"] = {
                "example": {"value": example, "summary": "The calculator's first form"}
            }
        listed = "".join(f"\n- {rule}" for rule in rules(spec))
        operation["description"] = (
            f"{spec.summary}\n\nA body this schema refuses is answered 400, naming each "
            "field. A well-formed body that breaks one of these rules, which the schema "
            f"cannot express, is answered 422 naming the fields involved:{listed}"
        )
        responses = operation.setdefault("responses", {})
        responses.pop("404", None)  # the calculator is in the path: it exists
        responses["422"] = {
            "description": "Well formed, but breaks a rule in the description.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        paths[f"/api/v1/calculators/{slug}/runs/"] = {"post": operation}
    return result
