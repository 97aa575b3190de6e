/**
 * The Usage Overview bar graph (SPEC 9) with the current cycle's forecast (README "Usage alerts and export") as a dashed
 * extension of its bar; geometry in ../lib/usage-graph.ts, the forecast in ../lib/forecast.ts as
 * of `asOfMs` (epoch ms: when the usage was read). `usage`: the billing cycles of GET
 * /web/usage (../lib/usage-series.ts), oldest first.
 */
import type { Subscription } from "@/api";
import page from "@/components/layout/page.module.css";

import { forecastPhrase, forecastUsage } from "../lib/forecast";
import {
  BAR_WIDTH,
  CHART_HEIGHT,
  CHART_WIDTH,
  SERIES,
  type Series,
  type UsageInput,
  formatDay,
  resetDate,
  usageGraph,
  usageSummary,
} from "../lib/usage-graph";

import styles from "./account.module.css";
import { UsageForecast } from "./UsageForecast";

const LEFT = 48;
const TOP = 10;
const BOTTOM = 38;
const NAMES: Record<Series, string> = { web: "Web", nativeMobile: "Native Mobile", api: "API" };

export function UsageGraph({
  usage,
  subscription,
  asOfMs,
}: {
  usage: UsageInput[];
  subscription: Subscription;
  asOfMs: number;
}) {
  const forecast = forecastUsage(usage, asOfMs);
  // The allowance counts the units in force: none once a past-due plan's grace has ended.
  const plan = { ...subscription, units: subscription.unitsInForce };
  const graph = usageGraph(usage, plan, forecast?.requests ?? null);
  const latest = usage.at(-1);
  const extension = forecast && graph.forecast?.height ? graph.forecast : null;
  const label = forecast && `Forecast: ${forecastPhrase(forecast)}`;
  return (
    <div className={page.stack}>
      {latest ? (
        <p className={styles.summary}>
          <span className={page.figure} data-testid="usage-summary">
            {usageSummary(latest.requests, graph.planRequests)}
          </span>
          <span className={page.muted}>Resets on {formatDay(resetDate(latest.startMs))}</span>
        </p>
      ) : null}
      {forecast ? <UsageForecast forecast={forecast} allowance={graph.planRequests} /> : null}
      <svg
        className={styles.chart}
        width={LEFT + CHART_WIDTH + 8}
        height={TOP + CHART_HEIGHT + BOTTOM}
        role="img"
        aria-label="Requests per billing cycle"
        data-testid="usage-graph"
      >
        <g transform={`translate(${LEFT} ${TOP})`}>
          {graph.yLabels.map(({ value, y }) => (
            <g key={value} className={styles.grid}>
              <line x1={0} x2={CHART_WIDTH} y1={y} y2={y} />
              <text x={-8} y={y} dy="0.32em" textAnchor="end">
                {value.toLocaleString("en-US")}
              </text>
            </g>
          ))}
          {graph.bars.map((bar) => (
            <g key={bar.startMs} data-testid="usage-bar" data-requests={bar.requests}>
              {bar.segments.map((s) => (
                <rect
                  key={s.series}
                  className={styles[s.series]}
                  x={bar.x}
                  y={s.y}
                  width={BAR_WIDTH}
                  height={s.height}
                />
              ))}
              <text className={styles.month} x={bar.x + BAR_WIDTH / 2} y={CHART_HEIGHT + 16}>
                {bar.month}
                <tspan x={bar.x + BAR_WIDTH / 2} dy={14}>
                  {bar.date}
                </tspan>
              </text>
            </g>
          ))}
          {extension ? (
            <path
              className={styles.forecast}
              data-testid="usage-forecast"
              data-requests={Math.round(extension.requests)}
              d={`M${extension.x + 0.75} ${extension.y + extension.height}V${extension.y + 0.75}h${BAR_WIDTH - 1.5}V${extension.y + extension.height}`}
            >
              <title>{label}</title>
            </path>
          ) : null}
          {graph.limitY === null ? null : (
            <line
              className={styles.limit}
              data-testid="usage-limit"
              x1={0}
              x2={CHART_WIDTH}
              y1={graph.limitY}
              y2={graph.limitY}
            />
          )}
        </g>
      </svg>
      <ul className={styles.legend}>
        {SERIES.map((series) => (
          <li key={series}>
            <svg width="10" height="10" aria-hidden>
              <rect className={styles[series]} width="10" height="10" rx="2" />
            </svg>
            {NAMES[series]}
          </li>
        ))}
        {extension ? (
          <li>
            <svg width="10" height="10" aria-hidden>
              <rect className={styles.forecast} x=".75" y=".75" width="8.5" height="8.5" />
            </svg>
            Forecast
          </li>
        ) : null}
        {graph.limitY === null ? null : (
          <li>
            <svg width="14" height="10" aria-hidden>
              <line className={styles.limit} x2="14" y1="5" y2="5" />
            </svg>
            Limit
          </li>
        )}
      </ul>
    </div>
  );
}
