/**
 * /account: Account Information (SPEC 2). Read-only for now.
 * TODO(issue 2): the 'No usage detected for this account' warning, the Usage Overview graph,
 * editing the account name, and copying the API key ('Copy API Key' / 'Copied!').
 */
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { Panel } from "@/components/ui/Panel";

import { useAccount } from "../api/account";

export function Component() {
  const { data } = useAccount();
  if (!data) return null; // the shell renders pages only once the account has loaded
  const { account } = data;
  return (
    <>
      <PageHeader title="Account Information" />
      <div className={page.stack}>
        <Panel title="Account Configuration" description="Your account and the key your tests use.">
          <dl className={page.details}>
            <dt>Account Name</dt>
            <dd data-testid="account-name">{account.name}</dd>
            <dt>API Key</dt>
            <dd>
              <code className={page.secret} data-testid="api-key">
                {account.apiKey}
              </code>
            </dd>
          </dl>
        </Panel>
      </div>
    </>
  );
}
