import { QueryClient } from "@tanstack/react-query";
import createQueryClient from "openapi-react-query";
import { beforeEach, describe, expect, it } from "vitest";

import { MemoryStorage } from "@/lib/memory-storage";
import { createTokenStore } from "@/lib/token-store";

import { createApiClient } from "./client";
import { withConditionalGets } from "./conditional";
import type { paths } from "./schema";

const BASE = "http://api.test";

function account(name: string) {
  return { account: { id: "a1", name, apiKey: "ak_1", usage: [], users: [] } };
}

describe("conditional reads", () => {
  let served: { etag: string; body: unknown };
  let sent: { path: string; ifNoneMatch: string | null }[];
  let queryClient: QueryClient;
  let $api: ReturnType<typeof createQueryClient<paths>>;

  const fakeFetch: typeof fetch = (input) => {
    const request = input as Request;
    const path = new URL(request.url).pathname;
    const ifNoneMatch = request.headers.get("If-None-Match");
    sent.push({ path, ifNoneMatch });
    if (path === "/web/config") return Promise.resolve(Response.json({ productName: "x" }));
    if (ifNoneMatch === served.etag) {
      return Promise.resolve(new Response(null, { status: 304, headers: { ETag: served.etag } }));
    }
    return Promise.resolve(Response.json(served.body, { headers: { ETag: served.etag } }));
  };

  beforeEach(() => {
    served = { etag: '"v1"', body: account("Acme") };
    sent = [];
    queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 0 } } });
    const tokens = createTokenStore(() => new MemoryStorage(), () => Date.now());
    tokens.save({ accessToken: "access-1", idToken: "id-1", expiresIn: 3600 });
    const { fetchClient } = createApiClient({ baseUrl: BASE, tokens, fetch: fakeFetch });
    $api = createQueryClient(withConditionalGets(fetchClient, queryClient));
  });

  const fetchAccount = () => queryClient.fetchQuery($api.queryOptions("get", "/web/account"));

  it("sends the held body's ETag and reuses the cached object on a 304", async () => {
    const first = await fetchAccount();
    const second = await fetchAccount();
    expect(sent).toEqual([
      { path: "/web/account", ifNoneMatch: null },
      { path: "/web/account", ifNoneMatch: '"v1"' },
    ]);
    expect(second).toBe(first);
    expect(queryClient.getQueryData(["get", "/web/account"])).toBe(first);
  });

  it("takes the new body and its ETag when the account changed", async () => {
    await fetchAccount();
    served = { etag: '"v2"', body: account("Renamed") };
    const changed = await fetchAccount();
    expect(changed).toEqual(account("Renamed"));
    await fetchAccount();
    expect(sent.map((s) => s.ifNoneMatch)).toEqual([null, '"v1"', '"v2"']);
  });

  it("asks for the full body once the cache was cleared (sign-out)", async () => {
    await fetchAccount();
    queryClient.clear();
    const again = await fetchAccount();
    expect(again).toEqual(account("Acme"));
    expect(sent.map((s) => s.ifNoneMatch)).toEqual([null, null]);
  });

  it("sends no ETag when the cached data is no longer the body it named", async () => {
    await fetchAccount();
    queryClient.setQueryData(["get", "/web/account"], account("Edited locally"));
    await fetchAccount();
    expect(sent.map((s) => s.ifNoneMatch)).toEqual([null, null]);
  });

  it("leaves other reads alone", async () => {
    await queryClient.fetchQuery($api.queryOptions("get", "/web/config"));
    await queryClient.fetchQuery($api.queryOptions("get", "/web/config"));
    expect(sent).toEqual([
      { path: "/web/config", ifNoneMatch: null },
      { path: "/web/config", ifNoneMatch: null },
    ]);
  });
});
