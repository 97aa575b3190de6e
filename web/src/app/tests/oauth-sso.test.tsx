/**
 * /oauth/sso, the return point after Google or GitHub sign-in (SPEC 2 "OAuth landing", 4
 * "Third-party sign-in", 8 "Code exchange"), rendered with the app's routes against the fake
 * API.
 */
import { screen, waitFor } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { api } from "@/test/fake-api";
import { TOKENS } from "@/test/fixtures";
import { renderRoute } from "@/test/render";

async function shownError(): Promise<string | null> {
  return (await screen.findByRole("alert")).textContent;
}

const FAY = { username: "google_1234", email: "fay@fay-robots.com", firstName: "Fay", lastName: "Founder" };

/** The identity has no account yet: GET /web/session refuses it. */
function noAccountYet() {
  api().on("get", "/web/session", {
    status: 403,
    body: { code: "AccountRequired", message: "Create an account or join one first." },
  });
}

describe("/oauth/sso", () => {
  it("says the code is missing when there is none", async () => {
    renderRoute("/oauth/sso");
    expect(await shownError()).toBe("Authorization code is not present in request");
    expect(screen.getByRole("link", { name: "Back to sign in" }).getAttribute("href")).toBe("/login");
    expect(api().callsTo("post", "/web/session/token")).toEqual([]);
  });

  it("refuses a code this browser did not ask for (no state) without exchanging it", async () => {
    renderRoute("/oauth/sso?code=not-a-real-code");
    expect(await shownError()).toBe("Unable to authenticate user");
    expect(api().callsTo("post", "/web/session/token")).toEqual([]);
  });

  it.each([
    ["ValidationCodeExpired", "Validation code has expired"],
    ["UnableToAuthenticate", "Unable to authenticate user"],
  ] as const)("shows the exchange's %s", async (code, message) => {
    api().on("post", "/web/session/token", { status: 400, body: { code, message } });
    renderRoute("/oauth/sso?code=used-code&state=browser-state");
    expect(await shownError()).toBe(message);
    expect(api().callsTo("post", "/web/session/token").map((c) => c.body)).toEqual([
      { code: "used-code", state: "browser-state", redirectUri: "http://console.test/oauth/sso" },
    ]);
  });

  it("offers to create an account when the identity has none and no account to join", async () => {
    api().on("post", "/web/session/token", { status: 200, body: { tokens: TOKENS, identity: { ...FAY, username: "github_77" } } });
    noAccountYet();
    const { user } = renderRoute("/oauth/sso?code=good&state=browser-state");

    expect(await screen.findByRole("heading", { name: "Welcome to Autostep, Fay!" })).toBeDefined();
    expect(screen.getByRole("radio", { name: "Create a new account" })).toHaveProperty("checked", true);
    expect(screen.getByRole("radio", { name: /^Join an existing account/ })).toHaveProperty("disabled", true);
    await user.type(screen.getByLabelText("Account name"), "   ");
    await user.click(screen.getByRole("button", { name: "Complete Registration" }));
    expect(await shownError()).toBe("Account name must not be empty");
    expect(api().callsTo("post", "/web/sso-accounts/create")).toEqual([]);
  });

  it("preselects joining when the Google identity's domain has accounts", async () => {
    api()
      .on("post", "/web/session/token", { status: 200, body: { tokens: TOKENS, identity: FAY } })
      .on("get", "/web/sso-accounts", {
        status: 200,
        body: {
          domain: "fay-robots.com",
          accounts: [{ accountId: "acc-1", accountName: "Fay's Robots", usersCount: 1, refusal: null }],
        },
      });
    noAccountYet();
    renderRoute("/oauth/sso?code=good&state=browser-state");

    const join = await screen.findByRole("radio", { name: /^Join an existing account/ });
    await waitFor(() => expect(join).toHaveProperty("checked", true));
    expect(join.parentElement?.textContent).toBe("Join an existing account for fay-robots.com");
    expect(screen.getByText("Fay's Robots")).toBeDefined();
    expect(screen.getByText("1 user(s)")).toBeDefined();
    expect(screen.getByRole("button", { name: "Join Account" })).toHaveProperty("disabled", false);
    expect(api().callsTo("get", "/web/sso-accounts").map((c) => c.url.search)).toEqual([
      "?cognitoId=google_1234&email=fay%40fay-robots.com",
    ]);
  });
});
