/**
 * /oauth/sso (title 'Auth'): the return point after third-party sign-in (SPEC 2 "OAuth
 * landing", SPEC 4 "Third-party sign-in", SPEC 8 "Code exchange").
 *
 * The code is exchanged once, with the `state` it came back with (the API checks it against
 * the browser's httpOnly OAuth flow cookie and sends the PKCE verifier); if the session then
 * loads the user goes to /, otherwise the
 * account choice appears (needsAccount): create a new account, or join one of the accounts
 * that have Google SSO on for the identity's domain (Google identities only).
 */
import { type FormEvent, useEffect, useRef, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { useQueryClient } from "@tanstack/react-query";

import { ApiError, SERVER_ERROR_MESSAGE, errorMessage } from "@/api";
import type { components } from "@/api/schema";
import { Link } from "@/components/Link";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Spinner } from "@/components/ui/Spinner";
import { TextField } from "@/components/ui/TextField";
import { config } from "@/config";

import { sessionQueryOptions } from "../api/session";
import { useCreateSsoAccount, useExchangeCode, useJoinSsoAccount, useSsoAccounts } from "../api/third-party";
import { AuthLayout } from "../components/AuthLayout";
import styles from "../components/forms.module.css";
import { domainText, isGoogleIdentity, userCountText, welcomeText } from "../lib/sso";
import { validateAccountName } from "../lib/validation";

import own from "./oauth-sso.module.css";

type Identity = components["schemas"]["FederatedIdentity"];
type Choice = "create" | "join";

/** SPEC 8: SSO create or join failures show the server error text, except a 400 with a message. */
function ssoError(error: unknown): string {
  if (error instanceof ApiError && error.status === 400) return errorMessage(error);
  return SERVER_ERROR_MESSAGE;
}

/** SPEC 8 "Code exchange": failures other than an expired code. */
const UNABLE_TO_AUTHENTICATE = "Unable to authenticate user";

function redirectUri(): string {
  return `${window.location.origin}/oauth/sso`;
}

export function Component() {
  const [params] = useSearchParams();
  const code = params.get("code");
  const state = params.get("state");
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const exchange = useExchangeCode();
  const [identity, setIdentity] = useState<Identity | null>(null);
  const [exchangeError, setExchangeError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (!code || !state || started.current) return; // StrictMode runs effects twice in development
    started.current = true;
    exchange.mutate(
      { body: { code, state, redirectUri: redirectUri() } },
      {
        onSuccess: (result) => {
          queryClient.fetchQuery(sessionQueryOptions()).then(
            () => void navigate("/", { replace: true }),
            () => setIdentity(result.identity),
          );
        },
        onError: (err) => setExchangeError(errorMessage(err)),
      },
    );
  }, [code, state, exchange, navigate, queryClient]);

  // A code without a state: this browser did not start the sign-in (SPEC 8: other failures).
  // Without a code, the hosted UI may say why (a SAML response it refused, README "SAML single
  // sign-on").
  const error = !code
    ? (params.get("error_description") ?? "Authorization code is not present in request")
    : (exchangeError ?? (state ? null : UNABLE_TO_AUTHENTICATE));
  if (error) {
    return (
      <AuthLayout title="Sign in">
        <InfoBox variant="error">{error}</InfoBox>
        <p className={styles.footnote}>
          <Link to="/login">Back to sign in</Link>
        </p>
      </AuthLayout>
    );
  }

  if (!identity) {
    return (
      <AuthLayout title="Sign in">
        <p className={styles.centered}>
          <Spinner size={18} /> Completing your sign-in…
        </p>
      </AuthLayout>
    );
  }

  return <AccountChoice identity={identity} />;
}

function AccountChoice({ identity }: { identity: Identity }) {
  const navigate = useNavigate();
  const google = isGoogleIdentity(identity.username);
  const lookup = useSsoAccounts(identity, google);
  const accounts = lookup.data?.accounts ?? [];
  // An account that removed this person is listed with the reason it refuses them.
  const joinable = accounts.filter((account) => account.refusal === null);
  const domain = lookup.data?.domain ?? identity.email.split("@")[1] ?? "";
  const [picked, setPicked] = useState<Choice | null>(null);
  const choice: Choice = picked ?? (joinable.length > 0 ? "join" : "create");
  const [accountName, setAccountName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const create = useCreateSsoAccount();
  const join = useJoinSsoAccount();
  const busy = create.isPending || join.isPending;
  const [joining, setJoining] = useState<string | null>(null);

  const user = {
    userFirstName: identity.firstName,
    userLastName: identity.lastName,
    userEmail: identity.email,
    userIdentityId: identity.username,
  };
  const done = { onSuccess: () => void navigate("/", { replace: true }), onError: (e: unknown) => setError(ssoError(e)) };

  function handleCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = validateAccountName(accountName);
    setError(problem);
    if (problem || busy) return;
    create.mutate({ body: { accountName: accountName.trim(), ...user } }, done);
  }

  function handleJoin(accountId: string) {
    if (busy) return;
    setError(null);
    setJoining(accountId);
    join.mutate({ body: { accountId, ...user } }, done);
  }

  const domainLabel = domainText(domain);
  return (
    <AuthLayout wide title={welcomeText(config.productName, identity.firstName)} subtitle="Choose how to continue.">
      {error ? <InfoBox variant="error">{error}</InfoBox> : null}
      {lookup.isError ? <InfoBox variant="error">{ssoError(lookup.error)}</InfoBox> : null}

      <section className={own.choice} data-selected={choice === "create"}>
        <label className={own.radio}>
          <input
            type="radio"
            name="choice"
            value="create"
            checked={choice === "create"}
            onChange={() => setPicked("create")}
          />
          Create a new account
        </label>
        <form className={styles.form} onSubmit={handleCreate} noValidate>
          <TextField
            label="Account name"
            name="account-name"
            placeholder="Your company or team"
            value={accountName}
            disabled={choice !== "create"}
            onChange={(e) => setAccountName(e.target.value)}
          />
          <Button type="submit" size="lg" block disabled={choice !== "create" || busy} loading={create.isPending}>
            Complete Registration
          </Button>
        </form>
      </section>
      <section className={own.choice} data-selected={choice === "join"} data-disabled={joinable.length === 0}>
        <label className={own.radio}>
          <input
            type="radio"
            name="choice"
            value="join"
            checked={choice === "join"}
            disabled={joinable.length === 0}
            onChange={() => setPicked("join")}
          />
          Join an existing account {domainLabel ? <span className={own.domain}>{domainLabel}</span> : null}
        </label>
        {lookup.isLoading ? (
          <p className={styles.centered}>
            <Spinner size={16} /> Looking for accounts…
          </p>
        ) : accounts.length > 0 ? (
          <ul className={own.accounts}>
            {accounts.map((account) => (
              <li key={account.accountId} className={own.account}>
                <span>
                  <span className={own.accountName}>{account.accountName}</span>
                  <span className={own.users}>{userCountText(account.usersCount)}</span>
                  {account.refusal ? <span className={own.refusal}>{account.refusal}</span> : null}
                </span>
                <Button
                  size="md"
                  disabled={choice !== "join" || busy || account.refusal !== null}
                  loading={joining === account.accountId && join.isPending}
                  onClick={() => handleJoin(account.accountId)}
                >
                  Join Account
                </Button>
              </li>
            ))}
          </ul>
        ) : null}
      </section>

    </AuthLayout>
  );
}
