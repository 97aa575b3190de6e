/**
 * /account: Account Information (SPEC 2): the 'No usage detected for this account' warning
 * when the latest billing cycle has no requests, the Usage Overview graph, and Account
 * Configuration (account name, API key).
 */
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { Panel } from "@/components/ui/Panel";

import { useAccount } from "../api/account";
import { AccountConfiguration } from "../components/AccountConfiguration";
import { NoUsageWarning } from "../components/NoUsageWarning";
import { UsageGraph } from "../components/UsageGraph";

export function Component() {
  const { data, dataUpdatedAt } = useAccount();
  if (!data) return null; // the shell renders pages only once the account has loaded
  const { account } = data;
  return (
    <>
      <PageHeader title="Account Information" />
      <div className={page.stack}>
        {account.usage.at(-1)?.requests ? null : <NoUsageWarning apiKey={account.apiKey} />}
        <Panel title="Usage Overview">
          <UsageGraph account={account} asOfMs={dataUpdatedAt} />
        </Panel>
        <Panel title="Account Configuration" description="Your account and the key your tests use.">
          <AccountConfiguration account={account} />
        </Panel>
      </div>
    </>
  );
}
