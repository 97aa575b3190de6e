import { describe, expect, it } from "vitest";

import { ApiError, SERVER_ERROR_MESSAGE, errorMessage } from "./errors";

const json = (status: number, body: unknown, statusText = "") =>
  new Response(JSON.stringify(body), { status, statusText, headers: { "Content-Type": "application/json" } });

describe("ApiError (SPEC 7, SPEC 8)", () => {
  it("carries the status, status text and parsed body", async () => {
    const body = { code: "NotAuthorized", message: "Incorrect username or password." };
    const error = await ApiError.fromResponse(json(400, body, "Bad Request"), false);
    expect(error.status).toBe(400);
    expect(error.statusText).toBe("Bad Request");
    expect(error.body).toEqual(body);
    expect(error.code).toBe("NotAuthorized");
    expect(error.message).toBe("Incorrect username or password.");
    expect(error.isAuthError).toBe(false);
  });

  it("keeps the raw text when the body is not JSON", async () => {
    const error = await ApiError.fromResponse(new Response("upstream timeout", { status: 502 }), true);
    expect(error.body).toBe("upstream timeout");
    expect(error.code).toBeUndefined();
  });

  it.each([401, 403, 406])("names %i on a protected call 'Authorization error' with the status text", async (status) => {
    const error = await ApiError.fromResponse(json(status, { code: "X", message: "m" }, "Nope"), true);
    expect(error.isAuthError).toBe(true);
    expect(error.message).toBe("Authorization error: Nope");
  });

  it("keeps a role refusal (403 Forbidden) out of the auth errors, with the API's message", async () => {
    const message = "Only an Owner of this account can do this. Ask an Owner to do it for you.";
    const error = await ApiError.fromResponse(json(403, { code: "Forbidden", message }, "Forbidden"), true);
    expect(error.isAuthError).toBe(false);
    expect(error.code).toBe("Forbidden");
    expect(errorMessage(error)).toBe(message);
  });

  it("keeps an unverified email (403 EmailVerificationRequired) out of the auth errors", async () => {
    const message = "Verify your email address first: enter the code we sent to a@b.com.";
    const body = { code: "EmailVerificationRequired", message };
    const error = await ApiError.fromResponse(json(403, body, "Forbidden"), true);
    expect(error.isAuthError).toBe(false);
    expect(errorMessage(error)).toBe(message);
  });

  it("keeps a token scope beyond the caller's role (403 ScopeBeyondRole) out of the auth errors", async () => {
    const message = "As an Admin you cannot give a token billing:write.";
    const error = await ApiError.fromResponse(json(403, { code: "ScopeBeyondRole", message }, "Forbidden"), true);
    expect(error.isAuthError).toBe(false);
    expect(errorMessage(error)).toBe(message);
  });

  it("still treats a 403 AccountRequired (an identity without an account) as an auth error", async () => {
    const body = { code: "AccountRequired", message: "This identity has no account yet" };
    const error = await ApiError.fromResponse(json(403, body, "Forbidden"), true);
    expect(error.isAuthError).toBe(true);
    expect(error.message).toBe("Authorization error: Forbidden");
  });

  it("supplies a status text when the response has none (HTTP/2)", async () => {
    const error = await ApiError.fromResponse(json(401, { code: "X", message: "m" }), true);
    expect(error.message).toBe("Authorization error: Unauthorized");
  });

  it("does not treat a 401 of a public call as an auth error", async () => {
    const error = await ApiError.fromResponse(json(401, { code: "X", message: "m" }), false);
    expect(error.isAuthError).toBe(false);
  });

  it("shows the server error text for unexplained server errors and network failures", async () => {
    expect(errorMessage(await ApiError.fromResponse(new Response("", { status: 500 }), true))).toBe(
      SERVER_ERROR_MESSAGE,
    );
    expect(errorMessage(new TypeError("Failed to fetch"))).toBe(SERVER_ERROR_MESSAGE);
  });
});
