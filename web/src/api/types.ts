/**
 * Readable names for the wire shapes, derived from the generated schema by path so they
 * survive renames of the server's schema classes.
 */
import type { operations, paths } from "./schema";

type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;

export type SessionResponse = JsonOf<paths["/web/session"]["get"]["responses"][200]>;
export type Session = SessionResponse["session"];
export type SessionUser = Session["user"];

export type AccountResponse = JsonOf<paths["/web/account"]["get"]["responses"][200]>;
export type Account = AccountResponse["account"];
export type AccountUser = Account["users"][number];
export type Subscription = Account["subscription"];
export type Card = NonNullable<Account["billing"]>;
export type UsageEntry = Account["usage"][number];

export type SignInResponse = JsonOf<paths["/web/session/sign-in"]["post"]["responses"][200]>;
export type SignInChallenge = NonNullable<SignInResponse["challenge"]>;

export type WebConfig = JsonOf<paths["/web/config"]["get"]["responses"][200]>;

/** The JSON bodies of the error statuses (4xx, 5xx) among the responses `R` of a route. */
type ErrorBodyOf<R> = R extends unknown
  ? { [S in keyof R]: `${S & number}` extends `4${string}` | `5${string}` ? JsonOf<R[S]> : never }[keyof R]
  : never;
type CodeOf<B> = B extends { code: infer C extends string } ? C : never;

/**
 * The `code` of every error the API declares in the contract (`openapi.json`: each route's
 * error responses are the schemas `Error_<code>`, `{ code, message }` with `code` a constant,
 * one or a union of them per status), e.g. `"SessionEnded"`.
 */
export type ErrorCode = CodeOf<ErrorBodyOf<operations[keyof operations]["responses"]>>;

/** The error codes route `P` declares for method `M` (optionally only those of status `S`). */
export type ErrorCodeOf<
  P extends keyof paths,
  M extends keyof paths[P],
  S extends number = number,
> = paths[P][M] extends { responses: infer R }
  ? CodeOf<ErrorBodyOf<Pick<R, Extract<keyof R, S>>>>
  : never;
