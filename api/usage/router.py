"""The metering intake: the test service reports ``ai()`` usage with the account's API key.

In the contract (openapi.json) for the test service's integrators; the README documents it.
"""

from fastapi import APIRouter, status

from api.auth.errors import ApiKeyRequired, InvalidApiKey
from api.deps import ApiKeyAccount, DbSession, MeteringThrottle
from api.errors import RateLimited, RequestValidationFailed, error_responses
from api.usage import service
from api.usage.errors import RecordInTheFuture
from api.usage.schemas import UsageBatchCreate, UsageBatchResponse

router = APIRouter(prefix="/metering", tags=["usage"])


@router.post(
    "/usage",
    response_model=UsageBatchResponse,
    status_code=status.HTTP_200_OK,
    dependencies=[MeteringThrottle],
    responses=error_responses(
        ApiKeyRequired, InvalidApiKey, RateLimited, RecordInTheFuture, RequestValidationFailed
    ),
)
async def ingest_usage(
    body: UsageBatchCreate, holder: ApiKeyAccount, db: DbSession
) -> UsageBatchResponse:
    """Count a batch of usage records (idempotent per record key) for the key's account."""
    return await service.ingest(db, holder, body.records)
