/**
 * The Usage Overview's forecast text (README "Usage alerts and export"; method in ../lib/forecast.ts):
 *
 * - 'On track for about N requests by <date>' (`forecastPhrase`: N rounded by `aboutRequests`,
 *   with thousands separators; the date the current cycle ends, e.g. 'Dec 23, 2026', UTC).
 * - When the projection exceeds the plan's allowance (SPEC 9, `allowedRequests`; none when the
 *   plan allows no requests, as the graph then draws no limit line), a warning box:
 *   'At this rate you will pass your plan's N requests around <date>.', the date when the
 *   projected pace reaches the allowance, or 'You have reached your plan's N requests for this
 *   cycle.' once usage is there; then 'Add units on Billing & Subscription.' linking to /billing.
 */
import { Link } from "@/components/Link";
import { InfoBox } from "@/components/ui/InfoBox";
import page from "@/components/layout/page.module.css";

import { type Forecast, forecastPhrase, reachedAt } from "../lib/forecast";
import { formatDay } from "../lib/usage-graph";

const count = (n: number) => n.toLocaleString("en-US");

export function UsageForecast({ forecast, allowance }: { forecast: Forecast; allowance: number }) {
  const plan = `your plan's ${count(allowance)} requests`;
  return (
    <>
      <p className={page.muted} data-testid="usage-forecast-text">
        On track for {forecastPhrase(forecast)}
      </p>
      {allowance > 0 && forecast.requests > allowance ? (
        <InfoBox
          variant="warning"
          title={
            forecast.used >= allowance
              ? `You have reached ${plan} for this cycle.`
              : `At this rate you will pass ${plan} around ${formatDay(new Date(reachedAt(forecast, allowance)))}.`
          }
        >
          Add units on <Link to="/billing">Billing & Subscription</Link>.
        </InfoBox>
      ) : null}
    </>
  );
}
