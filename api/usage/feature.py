"""Usage (the metering intake, alerts, limits, the breakdown and its export): what it brings
to the app (api/feature.py)."""

from __future__ import annotations

from api.feature import BodyLimit, Feature
from api.usage.router import router, web_router
from api.usage.throttles import METERING, METERING_RECORDS

METERING_MAX_BODY_BYTES = 1024 * 1024
"""A metering batch: up to 1000 records of about 200 bytes."""

FEATURE = Feature(
    name="usage",
    routers=(router, web_router),
    throttles=(METERING,),
    quotas=(METERING_RECORDS,),
    body_limits=(BodyLimit("/metering/", METERING_MAX_BODY_BYTES),),
)
