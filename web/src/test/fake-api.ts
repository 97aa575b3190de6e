/**
 * A fake of the API at the `fetch` level, for route tests (docs/contributors/tests.md "Route
 * tests"). The app's own client (openapi-fetch, its middleware, the conditional reads) sends
 * real `Request`s to it; each answer is typed from the generated contract (src/api/schema.d.ts):
 * a route, its method, a status it declares and that status's JSON body. A reply the contract
 * does not allow, or a route or method it no longer has, fails `tsc`, so the tests follow the
 * contract instead of drifting from it.
 *
 * A request no handler answers gets a 501 and is kept in `unhandled`; the test setup
 * (./setup.ts) fails the test that made it, so a page that starts calling something new is
 * noticed.
 */
import type { paths } from "@/api/schema";

export type Method = "get" | "put" | "post" | "delete" | "patch";
export type Path = keyof paths;

/** The methods `P` declares. */
export type MethodOf<P extends Path> = {
  [M in Method]: paths[P][M] extends { responses: unknown } ? M : never;
}[Method];

type Operation<P extends Path, M extends MethodOf<P>> = Extract<paths[P][M], { responses: unknown }>;
type Responses<P extends Path, M extends MethodOf<P>> = Operation<P, M>["responses"];
type JsonBody<R> = R extends { content: { "application/json": infer B } } ? B : undefined;

/** One answer `P` may give to `M`: a status it declares with that status's JSON body. */
export type Reply<P extends Path, M extends MethodOf<P>> = ReplyOf<Responses<P, M>>;
type ReplyOf<R> = { [S in Extract<keyof R, number>]: { status: S; body: JsonBody<R[S]> } }[Extract<keyof R, number>];

/** The JSON body the contract says the client sends to `M` `P` (undefined when none). */
export type RequestBody<P extends Path, M extends MethodOf<P>> =
  Operation<P, M> extends { requestBody: { content: { "application/json": infer B } } }
    ? B
    : Operation<P, M> extends { requestBody?: { content: { "application/json": infer B } } }
      ? B | undefined
      : undefined;

export interface ApiRequest<P extends Path, M extends MethodOf<P>> {
  /** The path's parameters, e.g. `{ user_id: "…" }` for /web/users/{user_id}. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: Headers;
  body: RequestBody<P, M>;
}

export type Handler<P extends Path, M extends MethodOf<P>> =
  | Reply<P, M>
  | ((request: ApiRequest<P, M>) => Reply<P, M> | Promise<Reply<P, M>>);

/** A request the fake received. */
export interface Call {
  method: string;
  /** The contract's path, e.g. /web/users/{user_id}; the actual one when none matched. */
  path: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  /** A `Handler` of this route (kept untyped: the union of every route's would be too large). */
  handler: unknown;
}

function compile(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(name);
      return "([^/]+)";
    })
    .join("");
  return { pattern: new RegExp(`^${source}$`), names };
}

function json(status: number, body: unknown): Response {
  if (body === undefined || status === 204 || status === 304) return new Response(null, { status });
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

export class FakeApi {
  private routes: Route[] = [];
  readonly calls: Call[] = [];
  readonly unhandled: string[] = [];

  /** Answer `method` `path` with `handler` (a reply, or a function of the request); replaces
   * an earlier handler of the same route. */
  on<P extends Path, M extends MethodOf<P>>(method: M, path: P, handler: NoInfer<Handler<P, M>>): this {
    const key = method.toUpperCase();
    this.routes = this.routes.filter((r) => !(r.method === key && r.template === path));
    this.routes.push({ method: key, template: path, ...compile(path), handler });
    return this;
  }

  /** The requests made to `method` `path` (the contract's path), oldest first. */
  callsTo<P extends Path, M extends MethodOf<P>>(method: M, path: P): (Call & { body: RequestBody<P, M> })[] {
    return this.calls.filter((c) => c.method === method.toUpperCase() && c.path === path) as (Call & {
      body: RequestBody<P, M>;
    })[];
  }

  /** The `fetch` the app's client calls. */
  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const body: unknown = text ? JSON.parse(text) : undefined;
    const method = request.method.toUpperCase();
    for (const route of this.routes) {
      const match = route.method === method ? route.pattern.exec(url.pathname) : null;
      if (!match) continue;
      const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? "")]));
      this.calls.push({ method, path: route.template, url, headers: request.headers, body });
      const handler = route.handler;
      const reply = (typeof handler === "function"
        ? await (handler as (r: unknown) => unknown)({ params, query: url.searchParams, headers: request.headers, body })
        : handler) as { status: number; body: unknown };
      return json(reply.status, reply.body);
    }
    this.calls.push({ method, path: url.pathname, url, headers: request.headers, body });
    this.unhandled.push(`${method} ${url.pathname}${url.search}`);
    return json(501, { code: "NotImplemented", message: `The fake API has no handler for ${method} ${url.pathname}` });
  };
}

let current = new FakeApi();

/** The fake API of the running test (a new one for each test, ./setup.ts). */
export function api(): FakeApi {
  return current;
}

export function resetApi(): FakeApi {
  current = new FakeApi();
  return current;
}
