"""The committed contract matches the code (STYLE 1: CI fails on drift)."""

import json
from typing import Any

from api.app.commands.openapi import OPENAPI_PATH, contract
from api.kernel.http.openapi_info import OPERATION_ID


def test_openapi_json_is_current() -> None:
    assert OPENAPI_PATH.read_text() == contract(), (
        "openapi.json is stale: run `make contract` and commit openapi.json and the web types"
    )


def test_contract_has_no_stand_in_or_internal_routes() -> None:
    paths = json.loads(contract())["paths"]
    # The SPA's /web/* calls, the test service's metering intake and the SCIM service of
    # identity providers; no stand-in, webhook or probe.
    assert all(
        path.startswith(("/web/", "/scim/v2/")) for path in paths if path != "/metering/usage"
    )
    assert "/metering/usage" in paths
    assert "/scim/v2/Users" in paths


def test_every_protected_route_documents_401() -> None:
    document = json.loads(contract())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            # Sign-out's token is optional (``{}`` among its requirements): it never answers 401.
            if operation.get("security") and {} not in operation["security"]:
                assert "401" in operation["responses"], f"{method.upper()} {path}"


def _error_codes(document: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The codes an error response's schema allows: one ``Error_<code>`` or a ``oneOf``."""
    refs = [branch["$ref"] for branch in schema["oneOf"]] if "oneOf" in schema else [schema["$ref"]]
    codes = []
    for ref in refs:
        name = ref.removeprefix("#/components/schemas/")
        code = document["components"]["schemas"][name]["properties"]["code"]["const"]
        assert name == f"Error_{code}", ref
        codes.append(code)
    return codes


def test_every_error_response_names_its_codes() -> None:
    document = json.loads(contract())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if not status.startswith(("4", "5")):
                    continue
                if path.startswith("/scim/"):  # SCIM error responses (RFC 7644 3.12)
                    scim = response["content"]["application/scim+json"]["schema"]
                    assert scim == {"$ref": "#/components/schemas/ScimErrorBody"}, path
                    continue
                schema = response["content"]["application/json"]["schema"]
                codes = _error_codes(document, schema)
                assert codes, f"{method.upper()} {path} {status}"
                assert codes == sorted(set(codes)), f"{method.upper()} {path} {status}"
                assert response["description"] == " | ".join(codes)
                if len(codes) > 1:  # generators pick the branch by the code
                    assert schema["discriminator"]["propertyName"] == "code"


def test_each_error_code_is_one_shared_schema() -> None:
    """A generator sees each error once: no inline error bodies, one schema per code, with
    the envelope's fields (SPEC 8)."""
    document = json.loads(contract())
    schemas = document["components"]["schemas"]
    errors = {name: schema for name, schema in schemas.items() if name.startswith("Error_")}
    assert "Error_SessionEnded" in errors
    for name, schema in errors.items():
        assert schema["required"][:2] == ["code", "message"], name
        assert schema["properties"]["code"] == {
            "const": name.removeprefix("Error_"),
            "title": "Code",
            "type": "string",
        }
    assert errors["Error_ValidationError"]["required"] == ["code", "message", "fields"]


def test_every_operation_is_ready_for_third_party_tools() -> None:
    """What Redocly's recommended rules and Spectral's ``spectral:oas`` ask of each operation
    (``make contract-lint`` runs them): a URL-safe unique operationId, declared security, a
    4xx, and tags declared at the top with a description."""
    document = json.loads(contract())
    declared_tags = {tag["name"] for tag in document["tags"] if tag.get("description")}
    schemes = set(document["components"]["securitySchemes"])
    ids = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            assert OPERATION_ID.match(operation["operationId"]), where
            ids.append(operation["operationId"])
            assert "security" in operation, where
            for requirement in operation["security"]:
                assert set(requirement) <= schemes, where
            assert any(status.startswith("4") for status in operation["responses"]), where
            assert set(operation["tags"]) <= declared_tags, where
    assert len(ids) == len(set(ids))
    assert document["paths"]["/metering/usage"]["post"]["security"] == [{"APIKeyHeader": []}]
    assert document["paths"]["/web/session/sign-in"]["post"]["security"] == []
    assert document["paths"]["/web/account"]["get"]["security"] == [
        {"HTTPBearer": []},
        {"AccessToken": ["account:read"]},
    ]
    assert document["paths"]["/web/session"]["get"]["security"] == [{"HTTPBearer": []}]
    assert document["paths"]["/scim/v2/Users"]["get"]["security"] == [{"ScimToken": []}]
    assert document["paths"]["/scim/v2/Schemas"]["get"]["security"] == []
    info = document["info"]
    assert info["description"] and info["contact"] and info["license"]
    assert document["servers"]


def test_first_request_bodies_have_valid_examples() -> None:
    """Sign-in, a metering batch and a plan change carry examples that the API accepts."""
    from api.billing.schemas import SubscriptionUpdate
    from api.identity.sign_in.schemas import SignInRequest
    from api.usage.schemas import UsageBatchCreate

    document = json.loads(contract())
    for path, model in (
        ("/web/session/sign-in", SignInRequest),
        ("/metering/usage", UsageBatchCreate),
        ("/web/subscription", SubscriptionUpdate),
    ):
        content = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]
        assert content["examples"], path
        for example in content["examples"].values():
            model.model_validate(example["value"])


def test_no_path_is_also_another_paths_parameter() -> None:
    """A path whose segment is a literal where another path of the same shape has a parameter
    (``/web/passkeys/registration`` beside ``/web/passkeys/{passkey_id}``) is also that other
    path: the router sends its undeclared methods to the parameter's operations, and OPTIONS
    advertises them (``Allow``), which the contract does not list. Give such a path its own
    prefix (``/web/passkey-registration``)."""
    paths = [path.strip("/").split("/") for path in json.loads(OPENAPI_PATH.read_text())["paths"]]
    clashes = []
    for literal in paths:
        for other in paths:
            if literal is other or len(literal) != len(other):
                continue
            pairs = list(zip(literal, other, strict=True))
            if all(a == b or b.startswith("{") for a, b in pairs) and any(
                b.startswith("{") and not a.startswith("{") for a, b in pairs
            ):
                clashes.append(("/" + "/".join(literal), "/" + "/".join(other)))
    # Published before this check: integrators call POST /web/api-keys/roll (the CLI too).
    assert clashes == [("/web/api-keys/roll", "/web/api-keys/{key_id}")]
