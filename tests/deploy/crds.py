"""Validate the custom resources of deploy/k8s (prometheus-operator's ServiceMonitor and
PrometheusRule) against their CRDs' schemas, strictly, as kubernetes-validate validates the
built-in kinds.

kubernetes-validate ships the schemas of Kubernetes' own kinds only: for any other kind it
raises ``SchemaNotFoundError`` (its command line prints a warning and passes the file). The
schemas of these CRDs come from ``cloudcoil-models-prometheus-operator`` (pinned in
requirements-dev.lock), whose models are generated from the operator's CRD manifests (field
names, types, required fields, enums and patterns); :func:`validate` turns a model into JSON
Schema and, as kubernetes-validate's ``strict`` schemas do (and the API server's strict field
validation), refuses any field the schema does not name.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pydantic
from cloudcoil.models.prometheus_operator import v1

MODELS: dict[tuple[str, str], type[pydantic.BaseModel]] = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"): v1.ServiceMonitor,
    ("monitoring.coreos.com/v1", "PrometheusRule"): v1.PrometheusRule,
}
"""The custom kinds deploy/k8s may use, by (apiVersion, kind)."""


def is_custom(resource: dict[str, Any]) -> bool:
    """Whether ``resource`` is of a kind of :data:`MODELS`."""
    return (resource["apiVersion"], resource["kind"]) in MODELS


def _strict(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: false`` on every object that lists its
    properties and says nothing of others (maps such as labels keep theirs)."""
    if isinstance(schema, dict):
        strict = {key: _strict(value) for key, value in schema.items()}
        if "properties" in strict and "additionalProperties" not in strict:
            strict["additionalProperties"] = False
        return strict
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    return schema


def validate(resource: dict[str, Any]) -> None:
    """Validate ``resource`` against its CRD's schema.

    Raises:
        KeyError: not a kind of :data:`MODELS`.
        jsonschema.ValidationError: the resource does not match (an unknown field, a wrong
            type, a missing required field, a value outside an enum or pattern).
    """
    model = MODELS[(resource["apiVersion"], resource["kind"])]
    schema = _strict(model.model_json_schema(by_alias=True))
    jsonschema.Draft202012Validator(schema).validate(resource)
