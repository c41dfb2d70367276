"""The calculators API (DRF): specs, presets, and runs.

Views adapt HTTP to calculators.services; errors use the shared shape from
inferview.api.errors. Field errors are keyed by input name (plus "preset",
"calculator" or "inputs" for problems not tied to one input).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from django.conf import settings
from django_ratelimit.core import is_ratelimited
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from calculators import leases, presets, services
from calculators.api_schema import body_problems
from calculators.errors import CalculatorInputError
from calculators.models import CalculationRun
from calculators.services import BrokerUnavailable, run_request
from calculators.specs import SPECS
from inferview.api.errors import ApiError
from inferview.api.parsers import check_depth, depth_error

RETRY_AFTER_SECONDS = 5
MAX_WAIT_SECONDS = 10.0
WAIT_POLL_SECONDS = 0.002
WAIT_PATTERN = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def _outputs_description() -> str:
    names = sorted({o.name for spec in SPECS.values() for o in spec.outputs})
    return "Output names across the calculators: " + ", ".join(names) + "."


class RunSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    result = serializers.JSONField(
        read_only=True,
        help_text="Present once status is done: "
        "outputs, units, steps, establishes, needs_measurement, "
        "table and chart. " + _outputs_description(),
    )

    class Meta:
        model = CalculationRun
        fields = [
            "id",
            "url",
            "calculator",
            "status",
            "inputs",
            "preset",
            "result",
            "error",
            "created_at",
            "enqueued_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_url(self, run: CalculationRun) -> str:
        return reverse(
            "calculators-api:run-detail",
            kwargs={"run_id": run.pk},
            request=self.context.get("request"),
        )


def _inputs_schema() -> dict[str, Any]:
    """The run body's ``inputs`` as documented by the specs: every input name any
    calculator takes, described with the calculators that take it, its label, unit, kind
    and default. Values are left untyped here (a number, boolean, string or a sweep list,
    checked per calculator by calculators.validation), so the schema names the inputs
    without claiming one type where two calculators differ."""
    uses: dict[str, list[str]] = {}
    for spec in SPECS.values():
        for inp in spec.inputs:
            unit = f" ({inp.unit})" if inp.unit else ""
            default = "" if inp.default is None else f", default {inp.default}"
            uses.setdefault(inp.name, []).append(
                f"{spec.slug}: {inp.label}{unit}, {inp.kind}{default}"
            )
    return {
        "type": "object",
        "properties": {name: {"description": "; ".join(v)} for name, v in sorted(uses.items())},
        "additionalProperties": True,
    }


@extend_schema_field(_inputs_schema())
class SpecInputsField(serializers.DictField):
    """A DictField whose schema lists the calculators' inputs (from the specs)."""


class RunRequestSerializer(serializers.Serializer):
    inputs = SpecInputsField(
        child=serializers.JSONField(),
        required=False,
        help_text="Input name to a number, boolean, string or a "
        "1-D list of them (a sweep; at most 10^6 points).",
    )
    preset = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="A hardware preset slug such as h100-sxm; it "
        "fills the GPU figures, explicit inputs override them.",
    )


class CalculatorSpecSerializer(serializers.Serializer):
    """Documents the spec shape in the schema; the data comes from CalculatorSpec.as_dict."""

    slug = serializers.CharField()
    title = serializers.CharField()
    summary = serializers.CharField()
    inputs = serializers.ListField(child=serializers.DictField())
    outputs = serializers.ListField(child=serializers.DictField())
    preset_fills = serializers.DictField(child=serializers.CharField())
    chart = serializers.CharField()
    example = serializers.DictField()
    runs_url = serializers.CharField()


class MigProfileSerializer(serializers.Serializer):
    """Documents one MIG profile (calculators.kernels.mig_profiles.MigProfile.as_dict)."""

    name = serializers.CharField()
    compute_slices = serializers.IntegerField()
    memory_slices = serializers.IntegerField()
    nominal_gb = serializers.FloatField()
    usable_gib = serializers.FloatField(allow_null=True)
    usable_gb = serializers.FloatField(allow_null=True)
    sms = serializers.IntegerField(allow_null=True)
    max_instances = serializers.IntegerField()
    unconfirmed = serializers.ListField(child=serializers.CharField())
    source = serializers.CharField()


class PresetSerializer(serializers.Serializer):
    """Documents one GPU preset (calculators.presets.GpuPreset.as_dict plus its MIG
    profiles); the endpoint answers a list of these."""

    slug = serializers.CharField()
    name = serializers.CharField()
    peaks_tflops = serializers.DictField(
        child=serializers.FloatField(), help_text="Precision to dense TFLOP/s (TOPS for int8)."
    )
    bf16_tflops = serializers.FloatField(allow_null=True)
    fp8_tflops = serializers.FloatField(allow_null=True)
    sparse_headline = serializers.BooleanField()
    memory_gb = serializers.FloatField()
    memory_gib = serializers.FloatField(allow_null=True)
    capacity_gb = serializers.FloatField()
    memory_source = serializers.CharField(allow_blank=True)
    bandwidth_tbs = serializers.FloatField(allow_null=True)
    sms = serializers.IntegerField(allow_null=True)
    sm_label = serializers.CharField()
    mig = serializers.BooleanField()
    kind = serializers.CharField()
    source = serializers.CharField()
    unconfirmed = serializers.ListField(child=serializers.CharField())
    note = serializers.CharField(allow_blank=True)
    usable_gb = serializers.FloatField(
        help_text="capacity_gb less the per-process CUDA context (what sizes a KV pool)."
    )
    nvlink_gbs = serializers.FloatField(
        allow_null=True, help_text="NVLink (or Infinity Fabric) per GPU, GB/s one direction."
    )
    nvl_domain = serializers.IntegerField(allow_null=True, help_text="GPUs one NVLink joins.")
    nics_per_node = serializers.IntegerField(allow_null=True)
    nic_gbps = serializers.FloatField(allow_null=True, help_text="Gb/s per NIC.")
    interconnect_source = serializers.CharField(allow_blank=True)
    mig_profiles = MigProfileSerializer(many=True)


SPEC_SCHEMA = CalculatorSpecSerializer
ERROR_SCHEMA = inline_serializer(
    "CalculatorError",
    fields={
        "error": inline_serializer(
            "CalculatorErrorBody",
            fields={
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(),
            },
        )
    },
)


def _known_calculator(slug: str) -> None:
    if slug not in SPECS:
        raise ApiError(
            "unknown_calculator",
            f"No calculator {slug!r}.",
            {"calculator": [f"unknown calculator {slug!r}"]},
            404,
        )


def _spec_dict(slug: str, request: Request) -> dict[str, Any]:
    return {
        **SPECS[slug].as_dict(),
        "runs_url": reverse("calculators-api:runs", kwargs={"slug": slug}, request=request),
    }


class CalculatorListView(APIView):
    @extend_schema(
        operation_id="calculators_list",
        responses=SPEC_SCHEMA(many=True),
        summary="Every calculator with its inputs, outputs and presets",
    )
    def get(self, request: Request) -> Response:
        return Response([_spec_dict(slug, request) for slug in SPECS])


class CalculatorDetailView(APIView):
    @extend_schema(
        operation_id="calculators_retrieve", responses={200: SPEC_SCHEMA, 404: ERROR_SCHEMA}
    )
    def get(self, request: Request, slug: str) -> Response:
        _known_calculator(slug)
        return Response(_spec_dict(slug, request))


class PresetListView(APIView):
    @extend_schema(
        operation_id="calculators_presets",
        summary="Hardware presets with sources",
        responses=PresetSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        return Response(
            [
                {
                    **g.as_dict(),
                    "mig_profiles": [p.as_dict() for p in presets.MIG_PROFILES.get(g.slug, [])],
                }
                for g in presets.GPUS.values()
            ]
        )


class SweepJSONParser(BaseParser):
    """JSON for run requests, with two deliberate differences from DRF's JSONParser:

    - NaN and Infinity tokens are accepted, so validation can name the field holding them
      instead of failing the whole body with a parse error;
    - the size limit is this endpoint's own (a 10^6-point sweep is ~20 MB of JSON, well
      over Django's global DATA_UPLOAD_MAX_MEMORY_SIZE), so only this view accepts it.

    Like every other JSON endpoint it refuses nesting past ``MAX_JSON_DEPTH`` with a 400
    (``inferview.api.parsers``).
    """

    media_type = "application/json"
    max_bytes = 48 * 1024 * 1024

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: dict[str, Any] | None = None,
    ) -> Any:
        raw = stream.read(self.max_bytes + 1) if stream is not None else b""
        if len(raw) > self.max_bytes:
            raise ApiError(
                "payload_too_large",
                "The request body is too large.",
                {"inputs": [f"the body may be at most {self.max_bytes // 2**20} MB"]},
                413,
            )
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        try:
            value = json.loads(raw.decode(encoding))
        except RecursionError:
            raise depth_error() from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        return check_depth(raw, value)


class RunCreateView(APIView):
    parser_classes = [SweepJSONParser]

    @extend_schema(
        operation_id="calculators_runs_create",
        summary="Start a run (or get the stored result for inputs already computed)",
        request=RunRequestSerializer,
        responses={
            200: RunSerializer,
            202: RunSerializer,
            400: ERROR_SCHEMA,
            404: ERROR_SCHEMA,
            503: OpenApiResponse(
                ERROR_SCHEMA,
                description="The task queue is unavailable; retry after the Retry-After seconds.",
            ),
        },
        parameters=[
            OpenApiParameter(
                "wait",
                {"type": "number", "minimum": 0, "maximum": MAX_WAIT_SECONDS},
                description="Seconds (at most 10) to hold the response open for "
                "the result; answers 200 with it if it is ready in time, else 202 as usual.",
            )
        ],
        examples=[
            OpenApiExample(
                "decode on an H100",
                request_only=True,
                value={
                    "inputs": {"params_b": 8, "bytes_per_param": 2, "batch_size": [1, 8, 32]},
                    "preset": "h100-sxm",
                },
            )
        ],
    )
    def post(self, request: Request, slug: str) -> Response:
        _known_calculator(slug)
        _refuse_if_rate_limited(request)
        body = request.data
        # Malformed (the calculator's documented schema refuses it): 400 naming each field.
        problems = body_problems(SPECS[slug], body)
        if problems:
            raise ApiError("invalid_input", "The request has invalid fields.", problems)
        try:
            run, _ = run_request(
                calculator=slug,
                raw_inputs=body.get("inputs", {}),
                preset=body.get("preset"),
                user=request.user,
            )
        except CalculatorInputError as exc:
            # Well formed, but it breaks a rule spanning fields (the operation lists them).
            raise ApiError("invalid_input", exc.message, exc.fields, 422) from None
        except BrokerUnavailable:
            raise ApiError(
                "queue_unavailable",
                "The calculation queue is unavailable; try again shortly.",
                {},
                503,
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            ) from None
        wait = _wait_seconds(request)
        if wait and not run.is_finished:
            run = _wait_for(run, wait)
        data = RunSerializer(run, context={"request": request}).data
        if run.status == CalculationRun.Status.DONE:
            return Response(data, status=status.HTTP_200_OK)
        return Response(data, status=status.HTTP_202_ACCEPTED, headers={"Location": data["url"]})


#: Runs per signed-in user (or per address for anonymous callers). Generous: a person at
#: the form never meets it; a script hammering the queue does. CALCULATOR_RUN_RATE in
#: settings overrides it.
DEFAULT_RUN_RATE = "300/m"


def _run_rate_key(group: str, request: Any) -> str:
    """The user, or the address for anonymous callers. django-ratelimit's own "user_or_ip"
    raises KeyError when the WSGI server sets no REMOTE_ADDR (found by the API fuzz)."""
    if request.user.is_authenticated:
        return f"user:{request.user.pk}"
    return f"ip:{request.META.get('REMOTE_ADDR', '')}"


def _refuse_if_rate_limited(request: Request) -> None:
    """Count this run request; 429 with Retry-After when over the limit. The counter lives
    in the shared cache (so every web process counts together); a cache outage raises,
    which inferview.outage answers 503, never a free pass."""
    rate = getattr(settings, "CALCULATOR_RUN_RATE", DEFAULT_RUN_RATE)
    if is_ratelimited(
        request._request, group="calculators.run", key=_run_rate_key, rate=rate, increment=True
    ):
        raise ApiError(
            "rate_limited",
            "Too many calculation requests; wait a minute, then try again.",
            {},
            429,
            headers={"Retry-After": "60"},
        )


def _wait_seconds(request: Request) -> float:
    raw = request.query_params.get("wait")
    if raw is None:
        return 0.0
    try:
        # A JSON-style number only: float() would also take " 5", "1_0" or "nan".
        if not WAIT_PATTERN.fullmatch(raw):
            raise ValueError(raw)
        value = float(raw)
    except ValueError:
        raise ApiError(
            "invalid_input",
            "wait must be a number of seconds.",
            {"wait": ["must be a number of seconds"]},
        ) from None
    if not 0 <= value <= MAX_WAIT_SECONDS:
        raise ApiError(
            "invalid_input",
            "wait is out of range.",
            {"wait": [f"must be between 0 and {MAX_WAIT_SECONDS:g}"]},
        )
    return value


def _reaped(run: CalculationRun) -> CalculationRun:
    """The run as it stands after handing it back if its worker died (no query unless
    the row read shows a lapsed lease), so a client polling never waits on beat."""
    if not leases.is_abandoned(run):
        return run
    services.reap_abandoned(run_id=str(run.pk))
    run.refresh_from_db()
    return run


def _wait_for(run: CalculationRun, seconds: float) -> CalculationRun:
    """Re-read the row until it is finished or the wait is over. The row is the source of
    truth, so this asks the database rather than the Celery result backend."""
    deadline = time.monotonic() + seconds
    status_of = CalculationRun.objects.filter(pk=run.pk).values_list("status", flat=True)
    while time.monotonic() < deadline:
        if status_of.first() in (CalculationRun.Status.DONE, CalculationRun.Status.FAILED):
            run.refresh_from_db()
            return run
        time.sleep(WAIT_POLL_SECONDS)
    return run


class RunDetailView(APIView):
    @extend_schema(
        operation_id="calculators_runs_retrieve", responses={200: RunSerializer, 404: ERROR_SCHEMA}
    )
    def get(self, request: Request, run_id: str) -> Response:
        run = CalculationRun.objects.filter(pk=run_id).first()
        if run is None:
            raise ApiError("not_found", "No such run.", {}, 404)
        run = _reaped(run)
        return Response(RunSerializer(run, context={"request": request}).data)
