/**
 * Conditional reads (README "Performance"). `GET /web/account` and `GET /web/session` send an `ETag` and
 * answer `304 Not Modified` with no body when the request's `If-None-Match` names it
 * (api/kernel/http/etags.py). They are `Cache-Control: no-store` (they carry the API key and the user's
 * details), so the browser's HTTP cache never keeps or revalidates them: this layer does it in
 * memory instead. It keeps each response's ETag next to the data the React Query cache holds
 * for that query, sends it on the next fetch of the query (a refetch on window focus, or after
 * a mutation), and on a 304 hands React Query back the very object it already holds, so
 * nothing is parsed again and nothing re-renders.
 *
 * The ETag is sent only while the cached data is still the body it names (deep-equal to what
 * came with it): after a sign-out clears the cache, or anything else replaces the data, the
 * next fetch asks for the full body.
 */
import { type QueryClient, replaceEqualDeep } from "@tanstack/react-query";
import type { Client } from "openapi-fetch";

import type { paths } from "./schema";

/** The reads the API answers conditionally (their openapi.json operations declare the 304). */
export const CONDITIONAL_PATHS: ReadonlySet<string> = new Set(["/web/account", "/web/session"]);

interface FetchInit {
  params?: unknown;
  headers?: HeadersInit;
  [option: string]: unknown;
}

interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

type Get = (path: string, init?: FetchInit) => Promise<FetchResult>;

/** What the last full response of a path carried: its ETag and the data parsed from it. */
interface Validator {
  etag: string;
  data: unknown;
}

/**
 * `client` with a `GET` that sends `If-None-Match` for the {@link CONDITIONAL_PATHS} and
 * resolves a 304 to the data `queryClient` holds under the path's query key (`["get",
 * path]`, what `$api.useQuery("get", path)` uses). Calls with parameters, other paths and
 * other methods go through unchanged.
 */
export function withConditionalGets(client: Client<paths>, queryClient: QueryClient): Client<paths> {
  const get = client.GET as unknown as Get;
  const validators = new Map<string, Validator>();

  function heldData(path: string): unknown {
    return queryClient.getQueryData(["get", path]);
  }

  /** The ETag to send: only while the held data is still the body it came with. */
  function etagFor(path: string): string | undefined {
    const validator = validators.get(path);
    const held = heldData(path);
    if (validator === undefined || held === undefined) return undefined;
    if (held !== validator.data) {
      if (replaceEqualDeep(held, validator.data) !== held) {
        validators.delete(path);
        return undefined;
      }
      validator.data = held; // the same body: keep React Query's object, not a copy
    }
    return validator.etag;
  }

  function remember(path: string, result: FetchResult): FetchResult {
    const etag = result.response.headers.get("ETag");
    if (result.response.ok && etag && result.data !== undefined) {
      validators.set(path, { etag, data: result.data });
    } else {
      validators.delete(path);
    }
    return result;
  }

  async function conditionalGet(path: string, init?: FetchInit): Promise<FetchResult> {
    if (!CONDITIONAL_PATHS.has(path) || init?.params !== undefined) return get(path, init);
    const etag = etagFor(path);
    if (etag === undefined) return remember(path, await get(path, init));
    const headers = new Headers(init?.headers);
    headers.set("If-None-Match", etag);
    const result = await get(path, { ...init, headers });
    if (result.response.status !== 304) return remember(path, result);
    const held = heldData(path);
    if (held === undefined) {
      // The cache was cleared while the request was out (a sign-out): ask for the body.
      validators.delete(path);
      return remember(path, await get(path, init));
    }
    return { data: held, response: result.response };
  }

  return { ...client, GET: conditionalGet as unknown as Client<paths>["GET"] };
}
