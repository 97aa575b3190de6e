/** The Usage Overview bar graph (SPEC 9); geometry in ../lib/usage-graph.ts. */
import type { Account } from "@/api";
import page from "@/components/layout/page.module.css";

import {
  BAR_WIDTH,
  CHART_HEIGHT,
  CHART_WIDTH,
  SERIES,
  type Series,
  formatDay,
  resetDate,
  usageGraph,
  usageSummary,
} from "../lib/usage-graph";

import styles from "./account.module.css";

const LEFT = 48;
const TOP = 10;
const BOTTOM = 38;
const NAMES: Record<Series, string> = { web: "Web", nativeMobile: "Native Mobile", api: "API" };

export function UsageGraph({ account }: { account: Account }) {
  const graph = usageGraph(account.usage, account.subscription);
  const latest = account.usage.at(-1);
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
