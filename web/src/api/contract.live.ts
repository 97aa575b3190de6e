/**
 * The generated client against the running API (README "The contract": contract tests from the generated
 * client"): every operation's main path and an error path, through `createApiClient`, the
 * SPA's only HTTP path. A response the generated types do not describe fails here: a renamed
 * field reads as undefined, a status or code the contract does not list is asserted against.
 * Run by tests/fuzz/test_client_contract.py (see vitest.contract.config.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";

import { MemoryStorage } from "@/lib/memory-storage";
import { createTokenStore } from "@/lib/token-store";

import { createApiClient } from "./client";
import { ApiError } from "./errors";

const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};

function required(name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: run this suite through tests/fuzz`);
  return value;
}

const API = required("CONTRACT_API_URL");
const EMAIL = required("CONTRACT_EMAIL");
const PASSWORD = required("CONTRACT_PASSWORD");
const API_KEY = required("CONTRACT_API_KEY");
/** The code Cognito emailed the registrant (read from the dev mailbox by the test runner). */
const EMAIL_CODE = required("CONTRACT_EMAIL_CODE");

function newClient() {
  const tokens = createTokenStore(() => new MemoryStorage());
  return { tokens, api: createApiClient({ baseUrl: API, tokens }).fetchClient };
}

/** The ApiError a call fails with (the middleware throws on every non-2xx). */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const unique = () => Math.random().toString(16).slice(2, 10);

describe("the generated client against the running API", () => {
  const { tokens, api } = newClient();
  const anonymous = newClient().api;

  beforeAll(async () => {
    const { data } = await api.POST("/web/session/sign-in", { body: { email: EMAIL, password: PASSWORD } });
    expect(data?.tokens?.accessToken).toBeTruthy();
    if (data?.tokens) tokens.save(data.tokens);
  });

  it("GET /web/config", async () => {
    const { data } = await anonymous.GET("/web/config");
    expect(data?.stripe.publishableKey).toMatch(/^pk_/);
    expect(data?.stripe.jsUrl).toMatch(/^https?:\/\//);
  });

  it("GET /web/session, and 401 without a token", async () => {
    const { data } = await api.GET("/web/session");
    expect(data?.session.user.email).toBe(EMAIL);
    expect(data?.session.account.name).toBeTruthy();
    const error = await failure(anonymous.GET("/web/session"));
    expect([error.status, error.code]).toEqual([401, "NotAuthenticated"]);
  });

  // Before the calls an unverified registrant may not make (domains, SSO, invitations).
  it("POST /web/session/email-verification/confirm, 400 for a wrong code, 409 once verified", async () => {
    const wrong = await failure(api.POST("/web/session/email-verification/confirm", { body: { code: "000000" } }));
    expect([wrong.status, wrong.code]).toEqual([400, "VerificationCodeMismatch"]);
    const { response } = await api.POST("/web/session/email-verification/confirm", { body: { code: EMAIL_CODE } });
    expect(response.status).toBe(204);
    const { data } = await api.GET("/web/session");
    expect(data?.session.user.emailVerified).toBe(true);
    const again = await failure(api.POST("/web/session/email-verification"));
    expect([again.status, again.code]).toEqual([409, "EmailAlreadyVerified"]);
  });

  it("GET and PUT /web/account, and 422 for a blank name", async () => {
    const { data } = await api.GET("/web/account");
    expect(data?.account.apiKey).toBe(`ak_…${API_KEY.slice(-4)}`); // masked (README "API keys")
    expect(data?.account.usage.at(-1)?.requests).toBe(0); // a new account: its first cycle
    expect(data?.account.subscription.units).toBe(0);
    const renamed = await api.PUT("/web/account", { body: { name: "  Contract Labs  " } });
    expect(renamed.data?.account.name).toBe("Contract Labs");
    const error = await failure(api.PUT("/web/account", { body: { name: " " } }));
    expect([error.status, error.code, error.message]).toEqual([422, "ValidationError", "Account name must not be empty"]);
  });

  it("POST, PUT and DELETE /web/users, with their refusals", async () => {
    const email = `invitee-${unique()}@contract-labs.dev`;
    const invited = await api.POST("/web/users", { body: { firstName: "In", lastName: "Vitee", email, role: "Admin" } });
    const user = invited.data?.user;
    expect(user?.email).toBe(email);
    const edited = await api.PUT("/web/users/{user_id}", {
      params: { path: { user_id: user?.id ?? "" } },
      body: { firstName: "Ed", lastName: "Ited" },
    });
    expect(edited.data?.user.firstName).toBe("Ed");
    const missing = await failure(
      api.PUT("/web/users/{user_id}", {
        params: { path: { user_id: "00000000-0000-4000-8000-000000000000" } },
        body: { firstName: "No", lastName: "One" },
      }),
    );
    expect([missing.status, missing.code]).toEqual([404, "NotFound"]);
    await api.DELETE("/web/users/{user_id}", { params: { path: { user_id: user?.id ?? "" } } });
    const session = await api.GET("/web/session");
    const self = await failure(
      api.DELETE("/web/users/{user_id}", { params: { path: { user_id: session.data?.session.user.id ?? "" } } }),
    );
    expect([self.status, self.code]).toEqual([400, "CannotDeleteSelf"]);
    const bad = await failure(api.POST("/web/users", { body: { firstName: "A", lastName: "B", email: "not-an-email", role: "Admin" } }));
    expect([bad.status, bad.code]).toEqual([422, "ValidationError"]);
  });

  it("POST /web/sso, and 400 for a password user", async () => {
    const { data } = await api.POST("/web/sso", { body: { requireGoogleSSO: false } });
    expect(data?.sso).toEqual({ isGoogleSSO: false, isSamlSSO: false, domains: [] });
    const error = await failure(api.POST("/web/sso", { body: { requireGoogleSSO: true } }));
    expect([error.status, error.code]).toEqual([400, "GoogleSsoAuthTypeRequired"]);
  });

  it("GET, POST and DELETE /web/sso/domains, POST .../verify, with their refusals", async () => {
    const domain = `contract-${unique()}.dev`;
    const added = await api.POST("/web/sso/domains", { body: { domain: ` ${domain.toUpperCase()}. ` } });
    expect(added.data?.domain).toMatchObject({ domain, state: "Pending", checkedAt: null, failure: null });
    expect(added.data?.domain.record).toMatchObject({ type: "TXT", name: domain });
    expect(added.data?.domain.record.value).toMatch(/^autostep-verification=/);
    const id = added.data?.domain.id ?? "";
    const listed = await api.GET("/web/sso/domains");
    expect(listed.data?.domains.map((d) => d.domain)).toContain(domain);
    const path = { params: { path: { domain_id: id } } };
    // Nobody published it in the DNS stand-in: the name does not exist.
    const checked = await api.POST("/web/sso/domains/{domain_id}/verify", path);
    expect(checked.data?.domain).toMatchObject({ state: "Failed", failure: "DomainNotFound" });
    expect(checked.data?.domain.checkedAt).toBeTruthy();
    const twice = await failure(api.POST("/web/sso/domains", { body: { domain } }));
    expect([twice.status, twice.code]).toEqual([409, "DomainAlreadyAdded"]);
    const gmail = await failure(api.POST("/web/sso/domains", { body: { domain: "gmail.com" } }));
    expect([gmail.status, gmail.code]).toEqual([400, "PublicEmailDomain"]);
    const invalid = await failure(api.POST("/web/sso/domains", { body: { domain: "localhost" } }));
    expect([invalid.status, invalid.code]).toEqual([400, "InvalidDomain"]);
    const removed = await api.DELETE("/web/sso/domains/{domain_id}", path);
    expect(removed.response.status).toBe(204);
    const gone = await failure(api.POST("/web/sso/domains/{domain_id}/verify", path));
    expect([gone.status, gone.code]).toEqual([404, "NotFound"]);
  });

  it("POST /web/subscription, POST and DELETE /web/subscription/payment: refusals without a card", async () => {
    const plan = await failure(api.POST("/web/subscription", { body: { units: 3 } }));
    expect([plan.status, plan.code]).toEqual([409, "PaymentMethodRequired"]);
    const card = await failure(api.POST("/web/subscription/payment", { body: { cardToken: "tok_unknown" } }));
    expect(card.status).toBe(400);
    expect(["PaymentProviderRefused", "CardDeclined"]).toContain(card.code);
    const remove = await failure(api.DELETE("/web/subscription/payment"));
    expect([remove.status, remove.code]).toEqual([404, "NotFound"]);
  });

  it("GET /web/invoices, and 401 without a token", async () => {
    const { data } = await api.GET("/web/invoices");
    expect(data).toEqual({ invoices: [], hasMore: false }); // no card, no plan: no invoice
    const error = await failure(anonymous.GET("/web/invoices"));
    expect([error.status, error.code]).toEqual([401, "NotAuthenticated"]);
  });

  it("POST /web/session/sign-in, and the provider's refusal", async () => {
    const { data } = await anonymous.POST("/web/session/sign-in", { body: { email: EMAIL, password: PASSWORD } });
    expect(data?.tokens?.expiresIn).toBeGreaterThan(0);
    expect(data?.challenge).toBeNull();
    const error = await failure(anonymous.POST("/web/session/sign-in", { body: { email: EMAIL, password: "Wrong-pass-42!" } }));
    expect([error.status, error.code]).toEqual([400, "NotAuthorizedException"]);
  });

  it("POST /web/session/forgot-password and confirm-forgot-password", async () => {
    const { data } = await anonymous.POST("/web/session/forgot-password", { body: { email: EMAIL } });
    expect(data?.codeDelivery?.deliveryMedium).toBe("EMAIL");
    const blank = await failure(anonymous.POST("/web/session/forgot-password", { body: { email: " " } }));
    expect([blank.status, blank.message]).toEqual([422, "Email address is required"]);
    const noCode = await failure(
      anonymous.POST("/web/session/confirm-forgot-password", { body: { email: EMAIL, code: " ", newPassword: PASSWORD } }),
    );
    expect([noCode.status, noCode.message]).toEqual([422, "Verification code is required"]);
  });

  it("POST /web/session/complete-new-password refuses a stale challenge", async () => {
    // A session of the length Cognito's challenges have (20 to 4,096 characters; shorter is a
    // 422 before Cognito is asked), but not one Cognito issued.
    const stale = "stale-challenge-session-".repeat(2);
    const error = await failure(
      anonymous.POST("/web/session/complete-new-password", {
        body: { username: EMAIL, session: stale, newPassword: "Brand-new-pass-42!" },
      }),
    );
    expect(error.status).toBe(400);
    const short = await failure(
      anonymous.POST("/web/session/complete-new-password", {
        body: { username: EMAIL, session: "stale", newPassword: "Brand-new-pass-42!" },
      }),
    );
    expect(short.status).toBe(422);
  });

  it("POST /web/session/authorize, token and refresh", async () => {
    const { data } = await anonymous.POST("/web/session/authorize", {
      body: { identityProvider: "Google", redirectUri: `${API}/oauth/sso` },
    });
    const url = new URL(data?.authorizeUrl ?? "");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("state")).toBeTruthy();
    const exchange = await failure(
      anonymous.POST("/web/session/token", { body: { code: "c", state: "s", redirectUri: `${API}/oauth/sso` } }),
    );
    expect([exchange.status, exchange.code, exchange.message]).toEqual([400, "UnableToAuthenticate", "Unable to authenticate user"]);
    const refresh = await failure(anonymous.POST("/web/session/refresh"));
    expect([refresh.status, refresh.code]).toEqual([401, "NotAuthenticated"]);
  });

  it("POST /web/registration, and a free email provider", async () => {
    const registered = await anonymous.POST("/web/registration", {
      body: {
        firstName: "Re",
        lastName: "Gistered",
        emailAddress: `owner-${unique()}@contract-labs.dev`,
        organizationName: "Second Contract Co",
        newPassword: "Contract-pass-42!",
      },
    });
    expect(registered.data?.accessToken).toBeTruthy();
    const free = await failure(
      anonymous.POST("/web/registration", {
        body: {
          firstName: "Free",
          lastName: "Mail",
          emailAddress: `someone-${unique()}@gmail.com`,
          organizationName: "Free Co",
          newPassword: "Contract-pass-42!",
        },
      }),
    );
    expect([free.status, free.code]).toEqual([400, "InvalidEmailProvider"]);
  });

  it("GET /web/sso-accounts and the join/create refusals for a password user", async () => {
    const { data } = await api.GET("/web/sso-accounts", { params: { query: { cognitoId: EMAIL, email: EMAIL } } });
    expect(data).toEqual({ accounts: [], domain: "contract-labs.dev" });
    const other = await failure(api.GET("/web/sso-accounts", { params: { query: { cognitoId: "google_1", email: EMAIL } } }));
    expect([other.status, other.code]).toEqual([400, "BadRequest"]);
    const user = { userFirstName: "A", userLastName: "B", userEmail: EMAIL, userIdentityId: EMAIL };
    const join = await failure(
      api.POST("/web/sso-accounts/join", { body: { accountId: "00000000-0000-4000-8000-000000000000", ...user } }),
    );
    expect([join.status, join.code]).toEqual([409, "Conflict"]);
    const create = await failure(api.POST("/web/sso-accounts/create", { body: { accountName: "X", ...user } }));
    expect([create.status, create.code]).toEqual([409, "Conflict"]);
  });

  it("POST /metering/usage with the API key, and 401 without", async () => {
    const records = [{ idempotencyKey: `k-${unique()}`, platform: "web" as const, runs: 1, credits: 2, time: new Date().toISOString() }];
    const { data } = await anonymous.POST("/metering/usage", { body: { records }, headers: { "X-API-Key": API_KEY } });
    expect(data).toEqual({ accepted: 1, duplicates: 0 });
    const error = await failure(anonymous.POST("/metering/usage", { body: { records } }));
    expect([error.status, error.code]).toEqual([401, "ApiKeyRequired"]);
  });

  it("GET and PUT /web/usage-alerts, and 400 for a recipient of another account", async () => {
    const { data } = await api.GET("/web/usage-alerts");
    expect(data?.thresholds).toEqual([50, 80, 100]);
    const me = data?.recipients[0]?.userId ?? "";
    const saved = await api.PUT("/web/usage-alerts", { body: { thresholds: [100], recipientIds: [me] } });
    expect(saved.data?.thresholds).toEqual([100]);
    const error = await failure(
      api.PUT("/web/usage-alerts", { body: { thresholds: [50], recipientIds: [crypto.randomUUID()] } }),
    );
    expect([error.status, error.code]).toEqual([400, "UnknownAlertRecipient"]);
  });

  it("GET /web/usage per cycle and per hour by API key, as CSV, and 400 for an unknown label", async () => {
    const cycles = await api.GET("/web/usage", { params: { query: { granularity: "cycle" } } });
    const body = cycles.data;
    if (typeof body !== "object" || body === undefined) throw new Error("no JSON answer");
    const current = body.buckets.at(-1);
    expect(current?.web.requests).toBeGreaterThanOrEqual(0);
    expect(body.nextCursor).toBeNull();
    const hours = await api.GET("/web/usage", {
      params: { query: { granularity: "hour", groupBy: "apiKey", limit: 1, from: current?.start } },
    });
    if (typeof hours.data !== "object" || hours.data === undefined) throw new Error("no JSON answer");
    expect(hours.data.buckets).toHaveLength(1);
    const { response } = await api.GET("/web/usage", {
      params: { query: { granularity: "day" } },
      headers: { Accept: "text/csv" },
      parseAs: "text",
    });
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const error = await failure(
      api.GET("/web/usage", { params: { query: { granularity: "day", groupBy: "label:nowhere" } } }),
    );
    expect([error.status, error.code]).toEqual([400, "UnknownLabel"]);
  });

  it("GET /web/usage/export, and 404 for a cycle not shown", async () => {
    const account = await api.GET("/web/account");
    const start = account.data?.account.usage.at(-1)?.startMs ?? 0;
    const { response } = await api.GET("/web/usage/export", { params: { query: { cycleStartMs: start } }, parseAs: "text" });
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const error = await failure(api.GET("/web/usage/export", { params: { query: { cycleStartMs: start + 1 } } }));
    expect([error.status, error.code]).toEqual([404, "NotFound"]);
  });

  it("GET /web/subscription/preview and POST /web/subscription/pay: refusals without a card", async () => {
    const preview = await failure(api.GET("/web/subscription/preview", { params: { query: { units: 2 } } }));
    expect([preview.status, preview.code]).toEqual([409, "PaymentMethodRequired"]);
    const pay = await failure(api.POST("/web/subscription/pay"));
    expect([pay.status, pay.code]).toEqual([404, "NotFound"]);
  });

  it("GET /web/api-keys, reveal, roll and expire, with their refusals", async () => {
    const { data } = await api.GET("/web/api-keys");
    const id = data?.keys[0]?.id ?? "";
    expect(data?.keys.map((k) => k.masked)).toEqual([`ak_…${API_KEY.slice(-4)}`]);
    const path = { params: { path: { key_id: id } } };
    const revealed = await api.POST("/web/api-keys/{key_id}/reveal", { ...path, body: { purpose: "copy" } });
    expect(revealed.data?.key).toBe(API_KEY);
    const last = await failure(api.POST("/web/api-keys/{key_id}/expire", path));
    expect([last.status, last.code]).toEqual([409, "LastApiKey"]);
    const rolled = await api.POST("/web/api-keys/roll", { body: { overlap: "1h" } });
    expect(rolled.data?.keys).toHaveLength(2);
    const expired = await api.POST("/web/api-keys/{key_id}/expire", path);
    expect(expired.data?.keys.map((k) => k.id)).not.toContain(id);
    const gone = await failure(api.POST("/web/api-keys/{key_id}/reveal", { ...path, body: { purpose: "reveal" } }));
    expect([gone.status, gone.code]).toEqual([404, "NotFound"]);
  });

  it("GET /web/audit-events, its actors and its CSV export, and 400 for a bad cursor", async () => {
    // The sign-in of beforeAll is in the registrant's (an Owner's) log.
    const query = { action: ["sign_in.succeeded" as const], limit: 1 };
    const { data } = await api.GET("/web/audit-events", { params: { query } });
    expect(data?.events[0]?.action).toBe("sign_in.succeeded");
    expect(data?.events[0]?.actor.email).toBe(EMAIL);
    const actors = await api.GET("/web/audit-events/actors");
    expect(actors.data?.actors.map((actor) => actor.email)).toContain(EMAIL);
    const csv = await api.GET("/web/audit-events/export", { params: { query }, parseAs: "text" });
    expect(csv.response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.data).toContain(`,${EMAIL},`);
    const error = await failure(api.GET("/web/audit-events", { params: { query: { cursor: "AAAA" } } }));
    expect([error.status, error.code]).toEqual([400, "InvalidCursor"]);
    const anonymousError = await failure(anonymous.GET("/web/audit-events/actors"));
    expect([anonymousError.status, anonymousError.code]).toEqual([401, "NotAuthenticated"]);
  });

  it("POST /web/session/sign-out", async () => {
    const { response } = await api.POST("/web/session/sign-out");
    expect(response.status).toBe(204);
  });
});
