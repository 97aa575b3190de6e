/**
 * /account: Account Information (SPEC 2): the 'No usage detected for this account' warning
 * when the latest billing cycle has no requests, the Usage Overview graph, and Account
 * Configuration (account name, API key); below the graph, the usage export and the usage
 * alerts (README "Usage alerts and export").
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
const UsageExport = lazy(() =>
  import("../components/UsageExport").then((m) => ({ default: m.UsageExport })),
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
          <Suspense fallback={null}>
            <UsageExport cycleStarts={account.usage.map((entry) => entry.startMs)} />
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
      </div>
    </>
  );
}
