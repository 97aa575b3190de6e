import { beforeEach, describe, expect, it } from "vitest";

import { MemoryStorage } from "@/lib/memory-storage";
import { REFRESH_HEADROOM_MS, type TokenStore, createTokenStore } from "@/lib/token-store";

import { createApiClient } from "./client";
import { ApiError } from "./errors";

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const BASE = "http://api.test";

interface Call {
  method: string;
  path: string;
  authorization: string | null;
  credentials: RequestCredentials;
  body: unknown;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const SESSION = {
  session: {
    user: { id: "u1", firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", elevationRole: null },
    account: { name: "Analytical" },
  },
};

describe("API client middleware", () => {
  let now: number;
  let storage: MemoryStorage;
  let tokens: TokenStore;
  let calls: Call[];
  let refreshResponse: () => Response;

  beforeEach(() => {
    now = T0;
    storage = new MemoryStorage();
    tokens = createTokenStore(() => storage, () => now);
    calls = [];
    refreshResponse = () => json(200, { accessToken: "access-2", idToken: "id-2", expiresIn: 3600 });
  });

  const fakeFetch: typeof fetch = async (input) => {
    const request = input as Request;
    const path = new URL(request.url).pathname;
    const text = await request.text();
    calls.push({
      method: request.method,
      path,
      authorization: request.headers.get("Authorization"),
      credentials: request.credentials,
      body: text ? JSON.parse(text) : null,
    });
    if (path === "/web/session/refresh") return refreshResponse();
    if (path === "/web/session") {
      return request.headers.get("Authorization") === null
        ? json(401, { code: "NotAuthenticated", message: "Not signed in" })
        : json(200, SESSION);
    }
    if (path === "/web/usage-alerts") {
      return json(401, { code: "UserRemoved", message: "You were removed from Analytical. Ask an Owner or Admin to invite you again." });
    }
    if (path === "/web/session/sign-in") return json(400, { code: "NotAuthorized", message: "Incorrect username or password." });
    if (path === "/web/api-keys" || path === "/web/api-keys/roll") {
      // The first token was issued before the user's sessions were ended elsewhere.
      return request.headers.get("Authorization") === "Bearer access-1"
        ? json(401, { code: "SessionEnded", message: "Your session has ended. Please sign in again." })
        : json(200, request.method === "GET" ? { keys: [] } : { rolled: true });
    }
    return json(404, { code: "NotFound", message: "Not found" });
  };

  const client = () => createApiClient({ baseUrl: BASE, tokens, fetch: fakeFetch }).fetchClient;

  it("sends the access token as a bearer token on protected calls", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 3600 });
    const { data } = await client().GET("/web/session");
    expect(data?.session.account.name).toBe("Analytical");
    expect(calls).toEqual([
      { method: "GET", path: "/web/session", authorization: "Bearer access-1", credentials: "include", body: null },
    ]);
  });

  it("sends no token on public calls", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 3600 });
    await expect(client().POST("/web/session/sign-in", { body: { email: "a@b.co", password: "x" } })).rejects.toThrow(
      "Incorrect username or password.",
    );
    expect(calls[0]?.authorization).toBeNull();
  });

  it("refreshes before expiry through the cookie and uses the new access token", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 3600 });
    now = T0 + 3_600_000 - REFRESH_HEADROOM_MS + 1;
    const api = client();
    await Promise.all([api.GET("/web/session"), api.GET("/web/session")]);
    expect(calls.filter((c) => c.path === "/web/session/refresh")).toEqual([
      { method: "POST", path: "/web/session/refresh", authorization: null, credentials: "include", body: null },
    ]);
    expect(calls.filter((c) => c.path === "/web/session").map((c) => c.authorization)).toEqual([
      "Bearer access-2",
      "Bearer access-2",
    ]);
    expect(tokens.read()).toMatchObject({
      value: { accessToken: "access-2", idToken: "id-2" },
      createdAt: now,
      expiresAt: now + 3_600_000,
    });
  });

  it("after a reload restores the tokens through the refresh cookie before the call", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 3600 });
    tokens = createTokenStore(() => storage, () => now); // a new page: memory is empty
    const { data } = await client().GET("/web/session");
    expect(data?.session.user.firstName).toBe("Ada");
    expect(calls.map((c) => [c.path, c.authorization])).toEqual([
      ["/web/session/refresh", null],
      ["/web/session", "Bearer access-2"],
    ]);
  });

  it("does not try to refresh without any sign-in in this browser", async () => {
    const error: unknown = await client().GET("/web/session").catch((e: unknown) => e);
    expect((error as ApiError).isAuthError).toBe(true);
    expect(calls.map((c) => c.path)).toEqual(["/web/session"]);
  });

  it("signs out locally when the refresh fails, and the call fails as an auth error", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 60 });
    now = T0 + 120_000;
    refreshResponse = () => json(401, { code: "NotAuthorized", message: "Refresh Token has expired" });
    const error: unknown = await client().GET("/web/session").catch((e: unknown) => e);
    expect(tokens.read()).toBeNull();
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).isAuthError).toBe(true);
    expect((error as ApiError).message).toBe("Authorization error: Unauthorized");
  });
  it("refreshes once and sends a read again when the API says the session ended elsewhere", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 3600 });
    const { data } = await client().GET("/web/api-keys");
    expect(data).toEqual({ keys: [] });
    expect(calls.map((c) => [c.path, c.authorization])).toEqual([
      ["/web/api-keys", "Bearer access-1"],
      ["/web/session/refresh", null],
      ["/web/api-keys", "Bearer access-2"],
    ]);
  });

  it("sends a write again, body and all, after the refresh: the refusal came before it ran", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 3600 });
    const body = { overlap: "1h" } as never;
    const { data } = await client().POST("/web/api-keys/roll", { body });
    expect(data).toEqual({ rolled: true });
    expect(calls.map((c) => [c.method, c.path, c.authorization, c.body])).toEqual([
      ["POST", "/web/api-keys/roll", "Bearer access-1", { overlap: "1h" }],
      ["POST", "/web/session/refresh", null, null],
      ["POST", "/web/api-keys/roll", "Bearer access-2", { overlap: "1h" }],
    ]);
  });

  it("signs out locally when the sign-in policy refuses the token", async () => {
    tokens.save({ accessToken: "access-9", idToken: "id-9", expiresIn: 3600 });
    const error = await client().GET("/web/usage-alerts").catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(401);
    expect(tokens.read()).toBeNull();
    expect(tokens.mayHaveSession()).toBe(false);
  });

  it("keeps the session when the refresh is throttled: the call fails with the 429", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 60 });
    refreshResponse = () => json(429, { code: "RateLimited", message: "Too many attempts. Please wait 15 minutes and try again." });
    const error = await client().GET("/web/session").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect((error as ApiError).isAuthError).toBe(false);
    expect(tokens.mayHaveSession()).toBe(true);
    expect(calls.map((c) => c.path)).toEqual(["/web/session/refresh"]);
  });

  it("keeps the session when the refresh cannot reach the API", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 60 });
    refreshResponse = () => {
      throw new TypeError("Failed to fetch");
    };
    const error = await client().GET("/web/session").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(tokens.mayHaveSession()).toBe(true);
  });

  it("signs out locally when the refresh after an ended session is refused too", async () => {
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 3600 });
    refreshResponse = () => json(401, { code: "GoogleSignInRequired", message: "This user must sign in with Google" });
    const error = await client().GET("/web/api-keys").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).isAuthError).toBe(true);
    expect(tokens.read()).toBeNull();
  });
});
