"""The metering intake: the test service reports ``ai()`` usage with the account's API key.

Not part of the /web contract (``include_in_schema=False``); the README documents it.
"""

from fastapi import APIRouter, status

from api.auth.errors import ApiKeyRequired, InvalidApiKey
from api.deps import ApiKeyAccount, DbSession, MeteringThrottle
from api.errors import RateLimited, RequestValidationFailed, error_responses
from api.usage import service
from api.usage.schemas import UsageBatchCreate, UsageBatchResponse

router = APIRouter(prefix="/metering", tags=["usage"], include_in_schema=False)


@router.post(
    "/usage",
    response_model=UsageBatchResponse,
    status_code=status.HTTP_200_OK,
    dependencies=[MeteringThrottle],
    responses=error_responses(ApiKeyRequired, InvalidApiKey, RateLimited, RequestValidationFailed),
)
async def ingest_usage(
    body: UsageBatchCreate, holder: ApiKeyAccount, db: DbSession
) -> UsageBatchResponse:
    """Count a batch of usage records (idempotent per record key) for the key's account."""
    return await service.ingest(db, holder, body.records)
