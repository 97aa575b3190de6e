/**
 * `$api`'s typed React Query helpers over the API client: openapi-react-query's `queryOptions`,
 * `useQuery` and `useMutation`, with its types and its behaviour (query key `[method, path]`,
 * or `[method, path, init]` with parameters; the parsed error body is thrown; an empty 204 is
 * null). Its `createClient` also builds `useSuspenseQuery` and `useInfiniteQuery`, which we do
 * not use, and so kept React Query's suspense and infinite-query code in the chunk that every
 * route loads (~1 KB gzip, bench/bundle/measure.mjs).
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import type { Client } from "openapi-fetch";
import type { OpenapiQueryClient } from "openapi-react-query";

export type QueryHooks<Paths extends object> = Pick<
  OpenapiQueryClient<Paths>,
  "queryOptions" | "useQuery" | "useMutation"
>;

interface Result {
  data?: unknown;
  error?: unknown;
  response: Response;
}

type Call = (path: string, init?: Record<string, unknown>) => Promise<Result>;

export function createQueryHooks<Paths extends object>(client: Client<Paths>): QueryHooks<Paths> {
  const call = (method: string): Call =>
    (client as unknown as Record<string, Call>)[method.toUpperCase()] as Call;

  const queryFn = async ({ queryKey, signal }: { queryKey: readonly unknown[]; signal: AbortSignal }) => {
    const [method, path, init] = queryKey as [string, string, Record<string, unknown> | undefined];
    const { data, error, response } = await call(method)(path, { signal, ...init });
    if (error) throw error;
    if (response.status === 204 || response.headers.get("Content-Length") === "0") return data ?? null;
    return data;
  };

  const queryOptions = (method: string, path: string, init?: unknown, options?: object) => ({
    queryKey: init === undefined ? [method, path] : [method, path, init],
    queryFn,
    ...options,
  });

  const hooks = {
    queryOptions,
    useQuery: (method: string, path: string, init?: unknown, options?: object, queryClient?: never) =>
      useQuery(queryOptions(method, path, init, options), queryClient),
    useMutation: (method: string, path: string, options?: object, queryClient?: never) =>
      useMutation(
        {
          mutationKey: [method, path],
          mutationFn: async (init: Record<string, unknown> | undefined) => {
            const { data, error } = await call(method)(path, init);
            if (error) throw error;
            return data;
          },
          ...options,
        },
        queryClient,
      ),
  };
  return hooks as unknown as QueryHooks<Paths>;
}
