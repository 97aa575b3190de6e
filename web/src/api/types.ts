/**
 * Readable names for the wire shapes, derived from the generated schema by path so they
 * survive renames of the server's schema classes.
 */
import type { paths } from "./schema";

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
