/**
 * /account: Account Information (SPEC 2): the 'No usage detected for this account' warning
 * when the latest billing cycle has no requests, the Usage Overview graph, and Account
 * Configuration (account name, API keys); below the graph, where a cycle's requests went (by
 * key and label, with the CSV export), the usage alerts and what happens at the allowance
 * (README "Usage alerts and export", "Metering intake").
 */
import { Suspense, lazy } from "react";

import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { Panel } from "@/components/ui/Panel";

import { useAccount } from "../api/account";
import { NoUsageWarning } from "../components/NoUsageWarning";
import { UsageGraph } from "../components/UsageGraph";

// Below the graph and not needed first: chunks of their own (the first-load budget, README "Performance").
const UsageAlerts = lazy(() =>
  import("../components/UsageAlerts").then((m) => ({ default: m.UsageAlerts })),
);
const AccountConfiguration = lazy(() =>
  import("../components/AccountConfiguration").then((m) => ({
    default: m.AccountConfiguration,
  })),
);
const UsageBreakdown = lazy(() =>
  import("../components/UsageBreakdown").then((m) => ({ default: m.UsageBreakdown })),
);
const AllowanceChoice = lazy(() =>
  import("../components/AllowanceChoice").then((m) => ({ default: m.AllowanceChoice })),
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
        <Panel
          title="Where the requests went"
          description="A billing cycle's requests by API key and by the labels your tests send, and its CSV export."
        >
          <Suspense fallback={<p className={page.muted}>Loading…</p>}>
            <UsageBreakdown cycleStarts={account.usage.map((entry) => entry.startMs)} />
          </Suspense>
        </Panel>
        <Panel title="Account Configuration" description="Your account and the key your tests use.">
          <Suspense fallback={<p className={page.muted}>Loading…</p>}>
            <AccountConfiguration account={account} />
          </Suspense>
        </Panel>
        <Panel
          title="Usage alerts"
          description="An email when this billing cycle's requests reach a share of your plan's allowance, once per cycle."
        >
          <Suspense fallback={<p className={page.muted}>Loading…</p>}>
            <UsageAlerts />
          </Suspense>
        </Panel>
        <Panel
          title="At the allowance"
          description="What happens when this billing cycle's requests reach your plan's allowance."
        >
          <Suspense fallback={<p className={page.muted}>Loading…</p>}>
            <AllowanceChoice />
          </Suspense>
        </Panel>
      </div>
    </>
  );
}
