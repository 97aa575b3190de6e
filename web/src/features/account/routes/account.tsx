/**
 * /account: Account Information (SPEC 2): the 'No usage detected for this account' warning
 * when the latest billing cycle has no requests, the Usage Overview graph, and Account
 * Configuration (account name, API key); issue 14: the usage export under the graph and the
 * usage alerts.
 */
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { Panel } from "@/components/ui/Panel";

import { useAccount } from "../api/account";
import { AccountConfiguration } from "../components/AccountConfiguration";
import { NoUsageWarning } from "../components/NoUsageWarning";
import { UsageAlerts } from "../components/UsageAlerts";
import { UsageExport } from "../components/UsageExport";
import { UsageGraph } from "../components/UsageGraph";

export function Component() {
  const { data } = useAccount();
  if (!data) return null; // the shell renders pages only once the account has loaded
  const { account } = data;
  return (
    <>
      <PageHeader title="Account Information" />
      <div className={page.stack}>
        {account.usage.at(-1)?.requests ? null : <NoUsageWarning apiKey={account.apiKey} />}
        <Panel title="Usage Overview">
          <UsageGraph account={account} />
          <UsageExport cycleStarts={account.usage.map((entry) => entry.startMs)} />
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
      </div>
    </>
  );
}
