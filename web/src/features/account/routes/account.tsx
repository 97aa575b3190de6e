/**
 * /account: Account Information (SPEC 2): the 'No usage detected for this account' warning
 * when the latest billing cycle has no requests, the Usage Overview graph, and Account
 * Configuration (account name, API keys); below the graph, where a cycle's requests went (by
 * key and label, with the CSV export), the usage alerts and what happens at the allowance
 * (README "Usage alerts and export", "Metering intake"). The warning, the graph and where the
 * requests went read GET /web/usage (README "Usage API").
 */
import { Suspense } from "react";

import { type Account, errorMessage } from "@/api";
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { preloaded } from "@/components/preloaded";

import {
  useAccount,
  useApiKeys,
  useCycleUsage,
  useUsageAlerts,
  useUsageLimits,
} from "../api/account";
import { useCycleBreakdown } from "../api/usage";
import { NoUsageWarning } from "../components/NoUsageWarning";
import { UsageGraph } from "../components/UsageGraph";
import styles from "../components/account.module.css";
import { type Cycle, cycleEntries, cyclesOf } from "../lib/usage-series";

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
  const { data } = useAccount();
  // The billing cycles, started with the account's read (app/routes.tsx): the page shows whole.
  const usage = useCycleUsage();
  // The shell renders pages only once the account has loaded.
  if (!data || usage.isPending) return null;
  const { account } = data;
  const entries = usage.data ? cycleEntries(usage.data) : [];
  return (
    <>
      <PageHeader title="Account Information" />
      <div className={page.stack}>
        {!usage.data || entries.at(-1)?.requests ? null : <NoUsageWarning />}
        <Panel title="Usage Overview">
          {usage.data ? (
            <UsageGraph
              usage={entries}
              subscription={account.subscription}
              asOfMs={usage.dataUpdatedAt}
            />
          ) : (
            <InfoBox variant="error" title={errorMessage(usage.error)} />
          )}
        </Panel>
        <BelowTheGraph account={account} cycles={usage.data ? cyclesOf(usage.data) : []} />
      </div>
    </>
  );
}

/** The page below the graph, shown at once when its chunks and first reads are all in (a
 * panel that grew as its own part arrived would push down the panels under it, a layout
 * shift); until then, a reserved space that keeps the footer below the fold. A read that
 * failed shows its error in its panel. */
function BelowTheGraph({ account, cycles }: { account: Account; cycles: Cycle[] }) {
  const firstReads = [
    // The breakdown's first read: the newest cycle, its first label (UsageBreakdown's start).
    useCycleBreakdown(cycles.at(-1), null),
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
        <UsageBreakdown cycles={cycles} />
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
