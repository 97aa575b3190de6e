/**
 * The one error every non-2xx API response becomes (SPEC 7: "A non-OK status raises an error
 * carrying the status code and the parsed body, or the raw text when it is not JSON").
 *
 * Error codes are typed from the contract (`ErrorCode`, ./types.ts): comparing a code the API
 * never sends fails the typecheck, and so does a contract change that drops one in use.
 */
import type { ErrorCode, ErrorCodeOf } from "./types";

/** The API's error envelope: `{ code, message, fields? }`, `code` one of the contract's. */
export interface ErrorEnvelope {
  code: ErrorCode;
  message: string;
  fields?: { field: string; message: string }[];
}

/** Statuses that mean the caller's sign-in is missing or unusable (SPEC 8). */
export const AUTH_ERROR_STATUSES: ReadonlySet<number> = new Set([401, 403, 406]);

/**
 * The code of a 403 that refuses the caller's role (README "Roles and invitations"), not their
 * sign-in: it is no auth error, so the session stays and the API's message ('Only an Owner of
 * this account can do this. ...') shows where the action was attempted.
 */
export const ROLE_REFUSED_CODE = "Forbidden" satisfies ErrorCode;

/**
 * The 401s of the account's sign-in policy (`SignInPolicyRefusal` in the contract, README "The
 * sign-in policy on every request"): every 401 code of a signed-in call but NotAuthenticated.
 * A record, so a refusal the contract adds fails the typecheck until it is listed here.
 */
type SignInPolicyCode = Exclude<ErrorCodeOf<"/web/session", "get", 401>, "NotAuthenticated">;
const SIGN_IN_POLICY: Record<SignInPolicyCode, true> = {
  AccessDeactivated: true,
  GoogleSignInRequired: true,
  InvitationLapsed: true,
  SamlConnectionRemoved: true,
  SamlSignInRequired: true,
  SessionEnded: true,
  UserRemoved: true,
  TwoStepSignInRequired: true,
  TwoStepSetupRequired: true,
};
export const SIGN_IN_POLICY_CODES: ReadonlySet<ErrorCode> = new Set(
  Object.keys(SIGN_IN_POLICY) as SignInPolicyCode[],
);

/** The envelope of `body` when it is a refusal of the sign-in policy, else null. */
export function signInPolicyRefusal(body: unknown): ErrorEnvelope | null {
  return isEnvelope(body) && SIGN_IN_POLICY_CODES.has(body.code) ? body : null;
}

/**
 * The 403s that refuse an action, not the sign-in: a role refusal, an access token asked for
 * with a scope the caller's role does not hold (`ScopeBeyondRole`, README "Automation"), and an
 * action that waits until the caller has verified their email address
 * (`EmailVerificationRequired`: the banner asks for the code). The session stays and the API's
 * message shows where it was attempted.
 */
export const ACTION_REFUSED_CODES: ReadonlySet<string> = new Set([
  ROLE_REFUSED_CODE,
  "ScopeBeyondRole" satisfies ErrorCode,
  "EmailVerificationRequired" satisfies ErrorCode,
]);

export const SERVER_ERROR_MESSAGE =
  "Sorry - our server hit an error. Please try again or email support if the issue persists.";

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly statusText: string;
  /** The parsed JSON body, or the raw text when the body is not JSON. */
  readonly body: unknown;
  /**
   * True when the call needed sign-in and the status is 401, 403 or 406, except a 403 whose
   * code is one of `ACTION_REFUSED_CODES` (a role refusal, a token scope beyond the role, an
   * unverified email address).
   */
  readonly isAuthError: boolean;

  constructor(status: number, statusText: string, body: unknown, isProtected: boolean) {
    const isAuthError =
      isProtected && AUTH_ERROR_STATUSES.has(status) && !isRoleRefusal(status, body);
    super(isAuthError ? `Authorization error: ${statusText}` : messageOf(body, statusText));
    this.status = status;
    this.statusText = statusText;
    this.body = body;
    this.isAuthError = isAuthError;
  }

  /** The stable error code of the envelope (e.g. "NotAuthorizedException"), if the body has one. */
  get code(): ErrorCode | undefined {
    return isEnvelope(this.body) ? this.body.code : undefined;
  }

  static async fromResponse(response: Response, isProtected: boolean): Promise<ApiError> {
    const text = await response.clone().text().catch(() => "");
    let body: unknown = text;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch {
      // not JSON: keep the raw text
    }
    const statusText = response.statusText || defaultStatusText(response.status);
    return new ApiError(response.status, statusText, body, isProtected);
  }
}

export function isEnvelope(body: unknown): body is ErrorEnvelope {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as Record<string, unknown>).code === "string" &&
    typeof (body as Record<string, unknown>).message === "string"
  );
}

function isRoleRefusal(status: number, body: unknown): boolean {
  return status === 403 && isEnvelope(body) && ACTION_REFUSED_CODES.has(body.code);
}

function messageOf(body: unknown, statusText: string): string {
  if (isEnvelope(body) && body.message) return body.message;
  if (typeof body === "string" && body.trim() !== "" && body.length < 300) return body.trim();
  return statusText;
}

/** HTTP/2 responses carry no reason phrase; name the common statuses ourselves. */
function defaultStatusText(status: number): string {
  const known: Record<number, string> = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    406: "Not Acceptable",
    409: "Conflict",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
  };
  return known[status] ?? `HTTP ${status}`;
}

/** A message fit to show a user for any thrown value. */
export function errorMessage(error: unknown, fallback = SERVER_ERROR_MESSAGE): string {
  if (error instanceof ApiError) {
    return error.status >= 500 && !isEnvelope(error.body) ? fallback : error.message;
  }
  if (error instanceof TypeError) return fallback; // network failure
  if (error instanceof Error && error.message) return error.message;
  return fallback;
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
