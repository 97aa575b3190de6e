/**
 * The route guard and the signed-in shell (SPEC 2 "Route guard", "Shell", 8 "Status 401, 403
 * or 406"; README "Roles and invitations", "Automation": Activity and Access tokens for Owners
 * and Admins; the account menu of who is signed in, with Sessions, Two-step sign-in and
 * Logout), rendered with the app's routes against the fake API.
 */
import { screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { SESSION_HINT_KEY, tokenStore } from "@/lib/token-store";
import { api } from "@/test/fake-api";
import { ACCOUNT_NAME, signedIn } from "@/test/fixtures";
import { expectLocation, renderRoute } from "@/test/render";

const MENU = ["Account Information", "User Management", "Billing & Subscription"];

function menuItems(): string[] {
  return within(screen.getByRole("navigation", { name: "Main" }))
    .getAllByRole("link")
    .map((link) => link.textContent ?? "");
}

describe("route guard", () => {
  it("sends a signed-out visit of a signed-in path to /login with next and extension", async () => {
    renderRoute("/users?extension=chrome");
    await expectLocation("/login?next=%2Fusers&extension=chrome");
    expect(await screen.findByRole("button", { name: "Sign in with Google" })).toBeDefined();
    expect(screen.getByRole("button", { name: "Sign in with GitHub" })).toBeDefined();
    expect(screen.getByRole("link", { name: "create your free account" }).getAttribute("href")).toBe("/registration");
    await waitFor(() => expect(document.title).toBe("Login"));
    expect(api().calls).toEqual([]); // no session was ever noted here: nothing to ask the API
  });

  it("sends a reload whose session cannot be restored to /login, saying why", async () => {
    // A session was noted before the reload (no tokens in memory); the API refuses its refresh.
    const now = Date.now();
    window.localStorage.setItem(
      SESSION_HINT_KEY,
      JSON.stringify({ value: { signedIn: true }, createdAt: now, expiresAt: now + 3_600_000 }),
    );
    api()
      .on("post", "/web/session/refresh", {
        status: 401,
        body: { code: "UserRemoved", message: "You were removed from Acme Robotics. Ask an Owner or Admin to invite you again." },
      })
      .on("get", "/web/session", { status: 401, body: { code: "NotAuthenticated", message: "Not signed in" } });
    renderRoute("/billing");
    await expectLocation("/login?next=%2Fbilling");
    expect((await screen.findByRole("alert")).textContent).toBe(
      "You were removed from Acme Robotics. Ask an Owner or Admin to invite you again.",
    );
    expect(tokenStore.mayHaveSession()).toBe(false);
  });

  it("sends a signed-in user from /login to /", async () => {
    signedIn("Owner");
    renderRoute("/login");
    await expectLocation("/account");
  });

  it("redirects to / when a deviceId is in the query", async () => {
    signedIn("Owner");
    renderRoute("/users?deviceId=abc");
    await expectLocation("/account");
  });

  it("sends the user to /login when the API refuses their token (401)", async () => {
    signedIn("Owner");
    api().on("get", "/web/invoices", { status: 401, body: { code: "NotAuthenticated", message: "Not signed in" } });
    renderRoute("/billing");
    await expectLocation("/login?next=%2Fbilling");
    expect(tokenStore.read()).toBeNull();
  });
});

describe("shell", () => {
  it("shows the account, the menu, Documentation and who is signed in", async () => {
    const { me } = signedIn("Owner");
    const { user } = renderRoute("/users");
    await screen.findByRole("heading", { name: "User Management" });

    expect(screen.getByTestId("sidebar-account-name").textContent).toBe(ACCOUNT_NAME);
    expect(screen.getByRole("link", { name: "Documentation" }).getAttribute("href")).toBe(
      "https://github.com/autostep/autostep",
    );
    // Who is signed in opens the account menu: their own pages and Logout are in it.
    const who = screen.getByTestId("account-menu");
    expect(who.textContent).toContain(`${me.firstName} ${me.lastName}`);
    expect(who.textContent).toContain(me.email);
    expect(who.getAttribute("aria-haspopup")).toBe("menu");
    expect(screen.queryByRole("link", { name: "Two-step sign-in" })).toBeNull();
    expect(screen.queryByTestId("logout-link")).toBeNull();
    await user.click(who);
    const menu = await screen.findByRole("menu", { name: "Your account" });
    expect(
      within(menu)
        .getAllByRole("menuitem")
        .map((item) => [item.textContent, item.getAttribute("href")]),
    ).toEqual([
      ["Sessions", "/sessions"],
      ["Passkeys", "/passkeys"],
      ["Two-step sign-in", "/two-step-sign-in"],
      ["Logout", "/logout"],
    ]);
    expect(screen.getByTestId("logout-link").getAttribute("href")).toBe("/logout");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("menu")).toBeNull());
    expect(screen.getByRole("link", { name: "Terms of Service" })).toBeDefined();
    expect(screen.getByRole("link", { name: "Privacy Policy" })).toBeDefined();
    await waitFor(() => expect(document.title).toBe("User Management"));
  });

  it.each([
    ["Owner", [...MENU, "Activity", "Access tokens"]],
    ["Admin", [...MENU, "Activity", "Access tokens"]],
    ["Member", MENU],
  ] as const)("shows the %s role the menu items %j", async (role, items) => {
    signedIn(role);
    renderRoute("/billing");
    await screen.findByRole("heading", { name: "Billing & Subscription" });
    expect(menuItems()).toEqual(items);
  });
});
