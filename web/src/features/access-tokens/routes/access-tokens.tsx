/**
 * /access-tokens, 'Access tokens' (README "Automation"; docs/integrators/access-tokens.md), for
 * Owners and Admins: the account's tokens, newest first, with Revoke for the active ones;
 * 'Create token' (a name, an expiry, scopes within the user's role; the secret shown once);
 * and the Owner's switch for all of them, which Admins see read-only. While tokens are turned
 * off a warning says every one is refused, and none can be created. With no token yet the list
 * says what tokens are for and links the handbook page.
 */
import { type ReactNode, Suspense, useState } from "react";

import { errorMessage } from "@/api";
import { usePermissions } from "@/api/use-permissions";
import { ExternalIcon, KeyIcon } from "@/components/icons";
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { preloaded } from "@/components/preloaded";
import { useNow } from "@/components/relative-time";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { Spinner } from "@/components/ui/Spinner";
import { config } from "@/config";
import { handbookPage } from "@/lib/handbook";
import { canManageAccessTokens } from "@/lib/permissions";

import { useAccessTokens } from "../api/access-tokens";
import { type Token, TokensTable } from "../components/TokensTable";
import styles from "../components/access-tokens.module.css";

// The Owner's switch below the list, and the dialogs shown on request: chunks of their own,
// fetched as this module runs, so the page's first paint does not wait for them (the first-load
// budget, README "Performance").
const TokenPolicy = preloaded(() => import("../components/TokenPolicy").then((m) => m.TokenPolicy));
const CreateTokenModal = preloaded(() =>
  import("../components/CreateTokenModal").then((m) => m.CreateTokenModal),
);
const RevokeTokenModal = preloaded(() =>
  import("../components/RevokeTokenModal").then((m) => m.RevokeTokenModal),
);

const TITLE = "Access tokens";
const DOCS = handbookPage(config.docsUrl, "integrators/access-tokens");
const TURNED_OFF = "Access tokens are turned off for this account.";

function DocsLink({ children }: { children: string }) {
  return (
    <a className={styles.docsLink} href={DOCS} target="_blank" rel="noreferrer">
      {children}
      <ExternalIcon />
    </a>
  );
}

const DESCRIPTION = (
  <>
    Scripts, CI jobs and dashboards call the console&apos;s API with an access token instead of a
    person&apos;s password. <DocsLink>How access tokens work</DocsLink>
  </>
);

export function Component() {
  const { role } = usePermissions();
  if (!canManageAccessTokens(role)) {
    return (
      <>
        <PageHeader title={TITLE} />
        <InfoBox variant="info" title="Only Owners and Admins can see the access tokens">
          Ask an Owner or an Admin of your account if a script needs to call the console&apos;s API.
        </InfoBox>
      </>
    );
  }
  return <AccessTokens />;
}

function AccessTokens() {
  const { data, error } = useAccessTokens();
  const mayTurnOn = usePermissions().whyNot("switchAccessTokens") === null;
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<Token | null>(null);
  const now = useNow(60_000);
  const active = data?.tokens.filter((t) => t.status === "active").length ?? 0;
  const blocked = !data
    ? null
    : !data.enabled
      ? TURNED_OFF
      : active >= data.maxTokens
        ? `The account has ${data.maxTokens} active tokens, the most it may have. Revoke one first.`
        : null;

  const createButton = (
    <DisabledReason reason={blocked} side="bottom" align="end">
      <Button disabled={!data || blocked !== null} onClick={() => setCreating(true)}>
        Create token
      </Button>
    </DisabledReason>
  );

  return (
    <>
      <PageHeader title={TITLE} description={DESCRIPTION} actions={data?.tokens.length ? createButton : null} />
      {error ? (
        <InfoBox variant="error" title="The access tokens could not be loaded">
          {errorMessage(error)}
        </InfoBox>
      ) : !data ? (
        <div className={styles.state}>
          <Spinner size={16} /> Loading access tokens…
        </div>
      ) : (
        <div className={page.stack}>
          {data.enabled ? null : (
            <InfoBox variant="warning" title={TURNED_OFF}>
              Every request made with one of its tokens is refused, and no token can be created.{" "}
              {mayTurnOn
                ? "Turn them on under Account policy below: the tokens work again until they expire."
                : "An Owner can turn them on again."}
            </InfoBox>
          )}
          <Panel
            title="Tokens"
            description={
              data.tokens.length
                ? `${active} active ${active === 1 ? "token" : "tokens"}, of at most ${data.maxTokens}.`
                : undefined
            }
          >
            {data.tokens.length ? (
              <TokensTable tokens={data.tokens} nowMs={now} onRevoke={setRevoking} />
            ) : (
              <EmptyState createButton={createButton} />
            )}
          </Panel>
          <Suspense fallback={null}>
            <TokenPolicy enabled={data.enabled} />
          </Suspense>
        </div>
      )}
      <Suspense fallback={null}>
        {creating ? <CreateTokenModal onClose={() => setCreating(false)} /> : null}
        {revoking ? <RevokeTokenModal token={revoking} onClose={() => setRevoking(null)} /> : null}
      </Suspense>
    </>
  );
}

function EmptyState({ createButton }: { createButton: ReactNode }) {
  return (
    <div className={styles.empty}>
      <span className={styles.emptyIcon}>
        <KeyIcon width={22} height={22} />
      </span>
      <p className={styles.emptyTitle}>No access tokens yet</p>
      <p className={styles.emptyText}>
        A token lets a script, a CI job or the command line call the console&apos;s API for this account. It holds
        only the scopes you give it, stops working on the day you choose, and can be revoked at any time. Its
        changes show in Activity under its own name.
      </p>
      <div className={styles.emptyActions}>
        {createButton}
        <DocsLink>Read the guide</DocsLink>
      </div>
    </div>
  );
}
