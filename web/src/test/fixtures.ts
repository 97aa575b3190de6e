/**
 * Bodies shaped as the contract says (src/api/schema.d.ts), for the fake API of route tests,
 * and `signedIn()`, which puts a user of a role in an account: the tokens in memory and the
 * reads every signed-in screen makes.
 */
import type { components } from "@/api/schema";
import { tokenStore } from "@/lib/token-store";

import { type FakeApi, api as currentApi } from "./fake-api";

type Schemas = components["schemas"];
export type Role = Schemas["Role"];
export type AccountUser = Schemas["AccountUser"];
export type Account = Schemas["Account"];
export type Card = Schemas["Billing"];

export const ACCOUNT_NAME = "Acme Robotics";

/** The demo account's people (devstack/seed.py): Ada the Owner, Grace an Admin, Katherine a
 * Member who signs in with Google. */
export const ADA = user({ id: "00000000-0000-4000-8000-00000000000a", firstName: "Ada", lastName: "Lovelace", email: "ada@acme-robotics.dev", role: "Owner" });
export const GRACE = user({ id: "00000000-0000-4000-8000-00000000000b", firstName: "Grace", lastName: "Hopper", email: "grace@acme-robotics.dev", role: "Admin" });
export const KATHERINE = user({
  id: "00000000-0000-4000-8000-00000000000c",
  firstName: "Katherine",
  lastName: "Johnson",
  email: "katherine@acme-robotics.dev",
  role: "Member",
  authType: "Google SSO",
  twoStepSignIn: null,
});

/** The one of {@link ADA}, {@link GRACE} and {@link KATHERINE} who has `role`. */
export function personWith(role: Role): AccountUser {
  return role === "Owner" ? ADA : role === "Admin" ? GRACE : KATHERINE;
}

export function user(fields: Partial<AccountUser> & Pick<AccountUser, "id" | "firstName" | "lastName" | "email" | "role">): AccountUser {
  return {
    authType: "Email",
    status: "Active",
    twoStepSignIn: false,
    invitedAt: null,
    invitationExpiresAt: null,
    ...fields,
  };
}

export const VISA: Card = { brand: "Visa", last4: "4242", expMonth: 8, expYear: 2031 };

export function account(fields: Partial<Account> = {}): Account {
  return {
    id: "00000000-0000-4000-8000-0000000000ac",
    name: ACCOUNT_NAME,
    apiKey: "ak_…1a2b",
    usage: [],
    subscription: { units: 0, unitsInForce: 0, unitPlanRequests: 1000, freePlanRequests: 100 },
    billing: null,
    users: [ADA, GRACE, KATHERINE],
    sso: { isGoogleSSO: false, isSamlSSO: false, domains: [] },
    requireTwoStepSignIn: false,
    ...fields,
  };
}

export function session(me: AccountUser, accountName = ACCOUNT_NAME): Schemas["SessionResponse"] {
  return {
    session: {
      user: {
        id: me.id,
        firstName: me.firstName,
        lastName: me.lastName,
        email: me.email,
        role: me.role,
        emailVerified: true,
        elevationRole: null,
      },
      account: { name: accountName },
    },
  };
}

const NONE: Schemas["UsageShare"] = { requests: 0, share: 0 };

export const TOKENS: Schemas["Tokens"] = { accessToken: "access-test", idToken: "id-test", expiresIn: 3600 };

export interface SignedIn {
  me: AccountUser;
  account: Account;
}

/**
 * Signs `as` in (the role's person by default) to `account()` with `fields`: the tokens in
 * memory, and the API answering as {@link serveAccount} says.
 */
export function signedIn(as: Role | AccountUser = "Owner", fields: Partial<Account> = {}, api: FakeApi = currentApi()): SignedIn {
  tokenStore.save(TOKENS);
  return serveAccount(as, fields, api);
}

/**
 * The API answers for `as` (the role's person by default) in `account()` with `fields`, once
 * they are signed in: GET /web/session, GET /web/account, and the reads of the signed-in pages
 * these tests open (Account Information's panels, User Management's Security and Directory
 * sync, Billing's invoices, /payment's configuration, the access tokens), empty.
 */
export function serveAccount(as: Role | AccountUser = "Owner", fields: Partial<Account> = {}, api: FakeApi = currentApi()): SignedIn {
  const me = typeof as === "string" ? personWith(as) : as;
  const data = account(fields);
  if (!data.users.some((u) => u.id === me.id)) data.users = [...data.users, me];
  api
    .on("get", "/web/session", { status: 200, body: session(me, data.name) })
    .on("get", "/web/account", { status: 200, body: { account: data } })
    .on("get", "/web/usage", {
      status: 200,
      body: {
        granularity: "cycle",
        from: "2026-10-01T00:00:00Z",
        to: "2026-11-01T00:00:00Z",
        groupBy: null,
        labels: [],
        apiKeys: [],
        buckets: [],
        nextCursor: null,
      },
    })
    .on("get", "/web/sso/saml", {
      status: 200,
      body: {
        connection: null,
        serviceProvider: {
          acsUrl: "https://auth.example/saml2/idpresponse",
          entityId: "urn:amazon:cognito:sp:test",
          nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
          emailAttribute: "email",
          firstNameAttribute: "given_name",
          lastNameAttribute: "family_name",
        },
      },
    })
    .on("get", "/web/sso/domains", { status: 200, body: { domains: [] } })
    .on("get", "/web/scim-tokens", { status: 200, body: { baseUrl: "http://console.test/scim/v2", maxTokens: 2, tokens: [] } })
    .on("get", "/web/scim-groups", { status: 200, body: { groups: [] } })
    .on("get", "/web/access-tokens", { status: 200, body: { enabled: true, maxTokens: 50, tokens: [] } })
    .on("get", "/web/member-sessions", { status: 200, body: { users: [] } })
    .on("get", "/web/invoices", { status: 200, body: { invoices: [], hasMore: false } })
    .on("get", "/web/config", { status: 200, body: { stripe: { jsUrl: "https://js.stripe.test/v3/", publishableKey: "pk_live_test" } } })
    // Account Information, where "/" leads.
    .on("get", "/web/api-keys", { status: 200, body: { keys: [] } })
    .on("get", "/web/usage-alerts", { status: 200, body: { thresholds: [], recipients: [], reached: [] } })
    .on("get", "/web/usage/limits", { status: 200, body: { atAllowance: "keepRunning", allowance: 100, stoppedAt: null } })
    .on("get", "/web/usage/breakdown", ({ query }) => ({
      status: 200,
      body: {
        cycleStartMs: Number(query.get("cycleStartMs")),
        label: null,
        labels: [],
        requests: 0,
        byKey: [],
        byLabel: [],
        otherValues: NONE,
        unknownKey: NONE,
        unlabelled: NONE,
      },
    }));
  return { me, account: data };
}

export type AccessToken = Schemas["AccessTokenView"];

/** An active access token of `creator` (Ada by default), made on 1 November 2026 for 90 days,
 * never used; `fields` change any of it. */
export function accessToken(fields: Partial<AccessToken> & Pick<AccessToken, "id" | "name">, creator: AccountUser = ADA): AccessToken {
  return {
    masked: "cat_…a1b2",
    scopes: ["usage:read"],
    createdBy: `${creator.firstName} ${creator.lastName} <${creator.email}>`,
    createdByUserId: creator.id,
    creatorRemoved: false,
    createdAt: "2026-11-01T09:30:00Z",
    expiresAt: "2027-01-31T00:00:00Z",
    revokedAt: null,
    status: "active",
    lastUsedAt: null,
    lastUsedAddress: null,
    ...fields,
  };
}

export type SessionView = Schemas["SessionView"];

/** A live session of the signed-in person (GET /web/sessions): a password sign-in from Chrome
 * 120 on macOS, not this browser's; `fields` change any of it. */
export function sessionView(fields: Partial<SessionView> & Pick<SessionView, "id">): SessionView {
  return {
    method: "password",
    browser: "Chrome 120",
    os: "macOS",
    clientAddress: "203.0.113.7",
    startedAt: "2026-11-27T09:12:44Z",
    lastActiveAt: "2026-11-28T10:40:00Z",
    current: false,
    ...fields,
  };
}
