"""The committed contract matches the code (STYLE 1: CI fails on drift)."""

from api.ops.openapi import OPENAPI_PATH, contract


def test_openapi_json_is_current() -> None:
    assert OPENAPI_PATH.read_text() == contract(), (
        "openapi.json is stale: run `make contract` and commit openapi.json and the web types"
    )


def test_contract_has_no_stand_in_or_internal_routes() -> None:
    import json

    paths = json.loads(contract())["paths"]
    # The SPA's /web/* calls and the test service's metering intake; no stand-in, webhook or
    # probe.
    assert all(path.startswith("/web/") for path in paths if path != "/metering/usage")
    assert "/metering/usage" in paths


def test_every_protected_route_documents_401() -> None:
    import json

    document = json.loads(contract())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if operation.get("security"):
                assert "401" in operation["responses"], f"{method.upper()} {path}"


def test_every_error_response_names_its_codes() -> None:
    import json

    document = json.loads(contract())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if not status.startswith(("4", "5")):
                    continue
                schema = response["content"]["application/json"]["schema"]
                codes = schema["properties"]["code"]["enum"]
                assert codes, f"{method.upper()} {path} {status}"
                assert response["description"] == " | ".join(codes)
