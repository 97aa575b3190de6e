import { afterEach, describe, expect, it, vi } from "vitest";

import { ApiError } from "./errors";

import { onAuthError, queryClient } from "./query-client";

const refusal = (status: number, code: string) =>
  new ApiError(status, "Forbidden", { code, message: `${code} message` }, true);

/** Runs a mutation of the app's QueryClient that fails with `error`. */
async function failMutation(error: Error, meta?: { skipAuthRedirect: boolean }) {
  const mutation = queryClient.getMutationCache().build(queryClient, {
    mutationFn: () => Promise.reject(error),
    meta,
  });
  await mutation.execute(undefined).catch(() => undefined);
}

describe("the auth error redirect (SPEC 8)", () => {
  const handler = vi.fn();
  let uninstall = onAuthError(handler);
  afterEach(() => {
    handler.mockClear();
    uninstall();
    uninstall = onAuthError(handler);
  });

  it("signs out on a 403 AccountRequired of a protected call", async () => {
    await failMutation(refusal(403, "AccountRequired"));
    expect(handler).toHaveBeenCalledOnce();
  });

  it("keeps the session on a role refusal (403 Forbidden)", async () => {
    await failMutation(refusal(403, "Forbidden"));
    expect(handler).not.toHaveBeenCalled();
  });

  it("leaves the call's own handling alone when it opted out", async () => {
    await failMutation(refusal(401, "NotAuthenticated"), { skipAuthRedirect: true });
    expect(handler).not.toHaveBeenCalled();
  });
});
