"""AWS request signing shared by the AWS adapters (Cognito, SES): Signature Version 4 from
botocore's signer, never hand-rolled (https://docs.aws.amazon.com/IAM/latest/UserGuide/
reference_sigv4.html)."""

from __future__ import annotations

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.session import Session as BotocoreSession


def aws_credentials(access_key_id: str, secret_access_key: str) -> Credentials | None:
    """Explicit credentials, or None to use botocore's default chain at signing time."""
    return Credentials(access_key_id, secret_access_key) if access_key_id else None


def sigv4_headers(
    credentials: Credentials | None,
    *,
    service: str,
    region: str,
    url: str,
    body: bytes,
    headers: dict[str, str],
) -> dict[str, str] | None:
    """``headers`` plus the SigV4 ``Authorization``, ``X-Amz-Date`` (and session token) of a
    POST of ``body`` to ``url`` for ``service`` (signing name, e.g. ``cognito-idp``, ``ses``)
    in ``region``. Returns None when no credentials can be found (none given and botocore's
    default chain has none)."""
    credentials = credentials or BotocoreSession().get_credentials()
    if credentials is None:
        return None
    request = AWSRequest(method="POST", url=url, data=body, headers=headers)
    SigV4Auth(credentials, service, region).add_auth(request)
    return dict(request.headers.items())
