import { QueryClient } from "@tanstack/react-query";
import createFetchClient from "openapi-fetch";
import { describe, expect, it } from "vitest";

import { createQueryHooks } from "./query-hooks";
import type { paths } from "./schema";

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function hooksAnswering(answer: (request: Request) => Response) {
  const requests: Request[] = [];
  const client = createFetchClient<paths>({
    baseUrl: "http://api.test",
    fetch: (request) => {
      requests.push(request);
      return Promise.resolve(answer(request));
    },
  });
  return { $api: createQueryHooks(client), requests };
}

describe("createQueryHooks", () => {
  it("keys a read by method and path, and by its parameters when it has some", () => {
    const { $api } = hooksAnswering(() => json(200, {}));
    expect($api.queryOptions("get", "/web/account").queryKey).toEqual(["get", "/web/account"]);
    const init = { params: { query: { cycleStartMs: 5 } } };
    expect($api.queryOptions("get", "/web/usage/breakdown", init).queryKey).toEqual([
      "get",
      "/web/usage/breakdown",
      init,
    ]);
  });

  it("passes the query options through", () => {
    const { $api } = hooksAnswering(() => json(200, {}));
    const options = $api.queryOptions("get", "/web/account", undefined, { refetchOnWindowFocus: true });
    expect(options.refetchOnWindowFocus).toBe(true);
  });

  it("reads through the client with the query's parameters and resolves to the body", async () => {
    const { $api, requests } = hooksAnswering(() => json(200, { thresholds: [50] }));
    const queryClient = new QueryClient();
    const init = { params: { query: { cycleStartMs: 5 } } };
    const data = await queryClient.fetchQuery($api.queryOptions("get", "/web/usage/breakdown", init));
    expect(data).toEqual({ thresholds: [50] });
    expect(requests.map((r) => `${r.method} ${new URL(r.url).pathname}${new URL(r.url).search}`)).toEqual([
      "GET /web/usage/breakdown?cycleStartMs=5",
    ]);
  });

  it("throws the parsed error body of a refused read", async () => {
    const { $api } = hooksAnswering(() => json(404, { code: "NotFound", message: "Not found" }));
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    await expect(queryClient.fetchQuery($api.queryOptions("get", "/web/account"))).rejects.toEqual({
      code: "NotFound",
      message: "Not found",
    });
  });

  it("resolves an empty 204 to null, which React Query accepts as data", async () => {
    const { $api } = hooksAnswering(() => new Response(null, { status: 204 }));
    const queryClient = new QueryClient();
    await expect(queryClient.fetchQuery($api.queryOptions("get", "/web/account"))).resolves.toBeNull();
  });
});
