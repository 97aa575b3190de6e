"""The check of every Cognito request against botocore's cognito-idp model
(tests/api/cognito_model.py, README "Tests"): each kind of constraint is caught on a
hand-made request, the Java patterns mean what they mean in Java, and the hook is on the
app's and the job worker's clients."""

from __future__ import annotations

import httpx
import pytest
import respx

from api.adapters.cognito import CognitoClient
from api.identity.users.service import _undo_cognito_user
from api.principal.resources import JobResources
from devstack.stack import Stack
from tests.api.cognito_model import CognitoModelCheck, CognitoModelViolation, java_pattern

POOL = "us-east-1_abc123"
CLIENT = "abcdefghijklmnopqrstuvwxyz"


@pytest.fixture(scope="module")
def check() -> CognitoModelCheck:
    return CognitoModelCheck()


def saml_provider(**changes: object) -> dict[str, object]:
    request: dict[str, object] = {
        "UserPoolId": POOL,
        "ProviderName": "saml-corp",
        "ProviderType": "SAML",
        "ProviderDetails": {"MetadataFile": "<EntityDescriptor/>", "IDPSignout": "false"},
        "AttributeMapping": {"email": "email"},
        "IdpIdentifiers": ["corp.example.com"],
    }
    request.update(changes)
    return request


class TestEachConstraint:
    def test_a_valid_request_passes(self, check: CognitoModelCheck) -> None:
        assert check.violations("CreateIdentityProvider", saml_provider()) == []
        assert (
            check.violations(
                "AdminInitiateAuth",
                {
                    "UserPoolId": POOL,
                    "ClientId": CLIENT,
                    "AuthFlow": "ADMIN_USER_PASSWORD_AUTH",
                    "AuthParameters": {"USERNAME": "ada@corp.example.com", "PASSWORD": "x y"},
                },
            )
            == []
        )

    def test_a_string_longer_than_its_max(self, check: CognitoModelCheck) -> None:
        found = check.violations(
            "CreateIdentityProvider", saml_provider(IdpIdentifiers=["a" * 41 + ".example.com"])
        )
        assert found == [
            "CreateIdentityProvider IdpIdentifiers[0]: length 53, more than the max of 40: "
            f"'{'a' * 41}.example.com'"
        ]

    def test_a_list_longer_than_its_max(self, check: CognitoModelCheck) -> None:
        domains = [f"d{n}.example.com" for n in range(51)]
        found = check.violations("CreateIdentityProvider", saml_provider(IdpIdentifiers=domains))
        assert found == ["CreateIdentityProvider IdpIdentifiers: 51 items, more than the max of 50"]

    def test_a_missing_required_member(self, check: CognitoModelCheck) -> None:
        found = check.violations("AdminGetUser", {"UserPoolId": POOL})
        assert found == ['AdminGetUser Missing required parameter in input: "Username"']

    def test_a_pattern_mismatch_says_where_without_the_sensitive_value(
        self, check: CognitoModelCheck
    ) -> None:
        # Cognito refuses a username with a space ("Member must satisfy regular expression
        # pattern"), which moto accepts; the model marks usernames sensitive.
        found = check.violations("AdminGetUser", {"UserPoolId": POOL, "Username": "ada lovelace"})
        assert found == [
            "AdminGetUser Username: (a sensitive value of 12 characters) does not match the "
            "pattern [\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+, from index 3 (category Zs)"
        ]
        assert "lovelace" not in found[0]

    def test_an_enum_type_and_too_short_value(self, check: CognitoModelCheck) -> None:
        found = check.violations(
            "AdminSetUserPassword",
            {"UserPoolId": POOL, "Username": "", "Password": "p", "Permanent": "yes"},
        )
        assert (
            "AdminSetUserPassword Invalid length for parameter Username, value: 0, " in (found[0])
        )
        assert found[1].startswith("AdminSetUserPassword Invalid type for parameter Permanent")
        found = check.violations(
            "AdminCreateUser",
            {"UserPoolId": POOL, "Username": "ada", "DesiredDeliveryMediums": ["EMAIL", "FAX"]},
        )
        assert found == [
            "AdminCreateUser DesiredDeliveryMediums[1]: 'FAX' is not one of the enum "
            "['SMS', 'EMAIL']"
        ]

    def test_map_keys_numbers_and_unknown_members(self, check: CognitoModelCheck) -> None:
        found = check.violations(
            "UpdateUserPoolClient",
            {"UserPoolId": POOL, "ClientId": CLIENT, "AuthSessionValidity": 16, "Colour": "red"},
        )
        assert found[0].startswith('UpdateUserPoolClient Unknown parameter in input: "Colour"')
        assert found[1] == "UpdateUserPoolClient AuthSessionValidity: 16 is above the max of 15"
        found = check.violations(
            "CreateIdentityProvider", saml_provider(AttributeMapping={"x" * 33: "email"})
        )
        assert found == [
            f"CreateIdentityProvider AttributeMapping (key '{'x' * 33}'): length 33, more "
            f"than the max of 32: '{'x' * 33}'"
        ]

    def test_an_unknown_operation(self, check: CognitoModelCheck) -> None:
        assert check.violations("AdminTeleportUser", {}) == [
            "AdminTeleportUser: not an operation of cognito-idp"
        ]


class TestJavaPatterns:
    def test_every_pattern_of_the_model_is_translated(self, check: CognitoModelCheck) -> None:
        seen: set[str] = set()
        patterns: set[str] = set()

        def walk(shape: object) -> None:
            name = shape.name  # type: ignore[attr-defined]
            patterns.update(p for p in [shape.metadata.get("pattern")] if p)  # type: ignore[attr-defined]
            if name in seen:
                return
            seen.add(name)
            kind = shape.type_name  # type: ignore[attr-defined]
            if kind == "structure":
                for member in shape.members.values():  # type: ignore[attr-defined]
                    walk(member)
            elif kind == "list":
                walk(shape.member)  # type: ignore[attr-defined]
            elif kind == "map":
                walk(shape.key)  # type: ignore[attr-defined]
                walk(shape.value)  # type: ignore[attr-defined]

        for operation in check.model.operation_names:
            walk(check.model.operation_model(operation).input_shape)
        assert len(patterns) > 20
        for pattern in patterns:
            java_pattern(pattern)

    def test_predefined_classes_are_ascii_as_in_java(self) -> None:
        client_id = java_pattern(r"[\w+]+")
        assert client_id.fullmatch("abc_123+")
        assert client_id.fullmatch("abcé") is None  # Java's \w is [a-zA-Z_0-9]
        password = java_pattern(r"[\S]+")
        assert password.fullmatch("pass\u00a0word")  # no-break space is not Java's \s
        assert password.fullmatch("pass word") is None
        assert java_pattern(r"[\w\s+=.@-]+").fullmatch("a b\tc") is not None

    def test_unicode_categories_and_whole_value(self) -> None:
        username = java_pattern(r"[\p{L}\p{M}\p{S}\p{N}\p{P}]+")
        assert username.fullmatch("zoë@exämple.com")
        assert username.fullmatch("zoë ") is None
        assert (
            java_pattern(r"[^_\p{Z}][\p{L}\p{M}\p{S}\p{N}\p{P}][^_\p{Z}]+").fullmatch("_ab") is None
        )

    def test_dot_stops_at_java_line_terminators(self) -> None:
        assert java_pattern(r".*\{####\}.*").fullmatch("code {####}\u2028") is None
        assert java_pattern(r"(?s).*").fullmatch("any\nthing\u2028")

    @pytest.mark.parametrize(
        "pattern", [r"[a-z&&[^e]]", r"\Qa.b\E", r"\h+", r"(?i)abc", r"\p{Alpha}+", r"[a-z"]
    )
    def test_what_is_not_translated_is_refused(self, pattern: str) -> None:
        with pytest.raises(ValueError):
            java_pattern(pattern)


class TestTheHook:
    @respx.mock
    async def test_a_violation_stops_the_call_and_fails_the_test(
        self, cognito_requests_checked: CognitoModelCheck
    ) -> None:
        route = respx.post("http://cognito.test/").respond(200, json={})
        client = CognitoClient(
            base_url="http://cognito.test",
            region="us-east-1",
            user_pool_id=POOL,
            client_id=CLIENT,
            access_key_id="testing",
            secret_access_key="testing",
        )
        try:
            with pytest.raises(CognitoModelViolation) as caught:
                await client.admin_delete_user("ada lovelace")
            await client.admin_delete_user("ada@corp.example.com")
        finally:
            await client.aclose()
        recorded = cognito_requests_checked.take()  # what would fail this test
        assert recorded == caught.value.violations
        assert recorded[0].startswith("AdminDeleteUser Username: (a sensitive value")
        assert recorded[0].endswith("(called from outside api/)")
        assert route.call_count == 1  # only the valid request reached "Cognito"

    @respx.mock
    async def test_what_is_not_the_cognito_api_is_not_checked(
        self, cognito_requests_checked: CognitoModelCheck
    ) -> None:
        respx.get(f"http://cognito.test/{POOL}/.well-known/jwks.json").respond(
            200, json={"keys": []}
        )
        client = CognitoClient(
            base_url="http://cognito.test", region="us-east-1", user_pool_id=POOL, client_id=CLIENT
        )
        try:
            assert await client.fetch_jwks() == {"keys": []}
        finally:
            await client.aclose()
        assert cognito_requests_checked.take() == []

    async def test_the_apps_and_the_workers_clients_are_checked(
        self, cognito: CognitoClient, stack: Stack, cognito_requests_checked: CognitoModelCheck
    ) -> None:
        resources = JobResources(stack.settings)
        try:
            for client in (cognito, resources.cognito):
                with pytest.raises(CognitoModelViolation):
                    await client.admin_get_user("ada lovelace")
        finally:
            await resources.aclose()
        assert len(cognito_requests_checked.take()) == 2

    async def test_the_caller_is_named(
        self, cognito: CognitoClient, cognito_requests_checked: CognitoModelCheck
    ) -> None:
        # The undo of an invitation catches CognitoError only, so the violation gets through.
        with pytest.raises(CognitoModelViolation):
            await _undo_cognito_user(cognito, "ada lovelace")
        (recorded,) = cognito_requests_checked.take()
        assert "(called from api/identity/users/service.py:" in recorded
        assert recorded.endswith(" in _undo_cognito_user)")


def test_a_request_of_the_adapter_is_read_from_http(check: CognitoModelCheck) -> None:
    request = httpx.Request(
        "POST",
        "http://cognito.test/",
        headers={"X-Amz-Target": "AWSCognitoIdentityProviderService.AdminDeleteUser"},
        content=b'{"UserPoolId": "us-east-1_abc123"}',
    )
    assert check.request_violations(request) == [
        'AdminDeleteUser Missing required parameter in input: "Username"'
    ]
