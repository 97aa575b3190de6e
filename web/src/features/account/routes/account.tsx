/**
 * /account: Account Information (SPEC 2): the 'No usage detected for this account' warning
 * when the latest billing cycle has no requests, the Usage Overview graph, and Account
 * Configuration (account name, API keys); below the graph, where a cycle's requests went (by
 * key and label, with the CSV export), the usage alerts and what happens at the allowance
 * (README "Usage alerts and export", "Metering intake").
 */
import { Suspense } from "react";

import type { Account } from "@/api";
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { Panel } from "@/components/ui/Panel";
import { preloaded } from "@/components/preloaded";

import {
  useAccount,
  useApiKeys,
  useUsageAlerts,
  useUsageBreakdown,
  useUsageLimits,
} from "../api/account";
import { NoUsageWarning } from "../components/NoUsageWarning";
import { UsageGraph } from "../components/UsageGraph";
import styles from "../components/account.module.css";

// Below the graph and not needed first: chunks of their own (the first-load budget, README "Performance").
const UsageBreakdown = preloaded(() =>
  import("../components/UsageBreakdown").then((m) => m.UsageBreakdown),
);
const AccountConfiguration = preloaded(() =>
  import("../components/AccountConfiguration").then((m) => m.AccountConfiguration),
);
const UsageAlerts = preloaded(() => import("../components/UsageAlerts").then((m) => m.UsageAlerts));
const AllowanceChoice = preloaded(() =>
  import("../components/AllowanceChoice").then((m) => m.AllowanceChoice),
);

export function Component() {
  const { data, dataUpdatedAt } = useAccount();
  if (!data) return null; // the shell renders pages only once the account has loaded
  const { account } = data;
  return (
    <>
      <PageHeader title="Account Information" />
      <div className={page.stack}>
        {account.usage.at(-1)?.requests ? null : <NoUsageWarning />}
        <Panel title="Usage Overview">
          <UsageGraph account={account} asOfMs={dataUpdatedAt} />
        </Panel>
        <BelowTheGraph account={account} />
      </div>
    </>
  );
}

/** The page below the graph, shown at once when its chunks and first reads are all in (a
 * panel that grew as its own part arrived would push down the panels under it, a layout
 * shift); until then, a reserved space that keeps the footer below the fold. A read that
 * failed shows its error in its panel. */
function BelowTheGraph({ account }: { account: Account }) {
  const cycleStarts = account.usage.map((entry) => entry.startMs);
  const firstReads = [
    // The breakdown's first read: the newest cycle, its first label (UsageBreakdown's start).
    useUsageBreakdown(cycleStarts.at(-1) ?? 0, null),
    useApiKeys(),
    useUsageAlerts(),
    useUsageLimits(),
  ];
  const reserved = (
    <div className={styles.reserved} aria-busy="true">
      <p className={page.muted}>Loading…</p>
    </div>
  );
  if (firstReads.some((read) => read.isPending)) return reserved;
  return (
    <Suspense fallback={reserved}>
      <Panel
        title="Where the requests went"
        description="A billing cycle's requests by API key and by the labels your tests send, and its CSV export."
      >
        <UsageBreakdown cycleStarts={cycleStarts} />
      </Panel>
      <Panel title="Account Configuration" description="Your account and the key your tests use.">
        <AccountConfiguration account={account} />
      </Panel>
      <Panel
        title="Usage alerts"
        description="An email when this billing cycle's requests reach a share of your plan's allowance, once per cycle."
      >
        <UsageAlerts />
      </Panel>
      <Panel
        title="At the allowance"
        description="What happens when this billing cycle's requests reach your plan's allowance."
      >
        <AllowanceChoice />
      </Panel>
    </Suspense>
  );
}
