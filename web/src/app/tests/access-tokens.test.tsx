/**
 * /access-tokens, Access tokens (README "Automation"; docs/integrators/access-tokens.md): the
 * list, creating a token (its secret shown once), revoking one, the Owner's switch that Admins
 * see read-only, the scopes an Admin's role does not hold, and the API's refusals where they
 * belong; rendered with the app's routes against the fake API.
 */
import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { queryClient } from "@/api/query-client";
import { tokenStore } from "@/lib/token-store";
import { api } from "@/test/fake-api";
import { type AccessToken, GRACE, accessToken, signedIn } from "@/test/fixtures";
import { descriptionOf, expectDisabledWithTooltip, location, renderRoute } from "@/test/render";

const SECRET = "cat_0123456789abcdefghijklmnopqrst4Fz9Qw";
const SCOPE_OWNERS_ONLY = "Only Owners can give a token this scope.";
const SWITCH_OWNERS_ONLY = "Only Owners can turn access tokens on or off.";
const TURNED_OFF = "Access tokens are turned off for this account.";

/** The UTC day `days` after today, "YYYY-MM-DD" (what a preset sends as `expiresOn`). */
const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** GET /web/access-tokens answers with `tokens` (a live array: changes show at the next read). */
function serveTokens(tokens: AccessToken[], state = { enabled: true }) {
  api().on("get", "/web/access-tokens", () => ({
    status: 200,
    body: { enabled: state.enabled, maxTokens: 50, tokens: [...tokens] },
  }));
  return state;
}

async function openPage() {
  const view = renderRoute("/access-tokens");
  await screen.findByRole("heading", { name: "Access tokens", level: 1 });
  return view;
}

const rows = () => screen.getAllByTestId("access-token-row");
const cells = (row: HTMLElement) => within(row).getAllByRole("cell").map((cell) => cell.textContent);
const button = (name: string) => screen.getByRole("button", { name });

describe("Access tokens", () => {
  it("lists each token with its scopes, creator, dates, last use and status, and Revoke while active", async () => {
    signedIn("Owner");
    serveTokens([
      accessToken({
        id: "10000000-0000-4000-8000-000000000001",
        name: "Nightly usage report",
        scopes: ["account:read", "usage:read"],
        lastUsedAt: minutesAgo(5),
        lastUsedAddress: "203.0.113.7",
      }),
      accessToken(
        {
          id: "10000000-0000-4000-8000-000000000002",
          name: "Old deploy",
          masked: "cat_…9zz9",
          createdByUserId: null,
          creatorRemoved: true,
          status: "revoked",
          revokedAt: "2026-11-20T08:00:00Z",
        },
        GRACE,
      ),
      accessToken({
        id: "10000000-0000-4000-8000-000000000003",
        name: "Dashboard",
        status: "expired",
        expiresAt: "2026-11-08T00:00:00Z",
      }),
    ]);
    await openPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    await waitFor(() => expect(document.title).toBe("Access tokens"));

    const [nightly, old, dashboard] = rows() as [HTMLElement, HTMLElement, HTMLElement];
    expect(cells(nightly)).toEqual([
      "Nightly usage reportcat_…a1b2",
      "account:readusage:read",
      "Nov 1, 2026by Ada Lovelace",
      "Jan 30, 2027",
      "5 minutes ago203.0.113.7",
      "Active",
      "Revoke",
    ]);
    expect(cells(old)).toEqual([
      "Old deploycat_…9zz9",
      "usage:read",
      "Nov 1, 2026by Grace Hopperremoved",
      "Jan 30, 2027revoked Nov 20, 2026",
      "Never",
      "Revoked",
      "",
    ]);
    expect(cells(dashboard)[3]).toBe("Nov 7, 2026");
    expect(cells(dashboard)[5]).toBe("Expired");
    expect(screen.getAllByRole("button", { name: /^Revoke / }).map((b) => b.getAttribute("aria-label"))).toEqual([
      "Revoke Nightly usage report",
    ]);
    expect(screen.getByRole("region", { name: "Tokens" }).textContent).toContain("1 active token, of at most 50.");
  });

  it("explains what tokens are for when there is none, with the handbook page", async () => {
    signedIn("Admin");
    await openPage();
    expect(await screen.findByText("No access tokens yet")).toBeDefined();
    const guide = screen.getByRole("link", { name: "Read the guide" });
    expect(guide.getAttribute("href")).toBe(
      "https://github.com/autostep/autostep/blob/main/docs/integrators/access-tokens.md",
    );
    expect(guide.getAttribute("target")).toBe("_blank");
    expect(button("Create token")).toHaveProperty("disabled", false);
  });

  it("creates a token with two scopes and shows its secret once", async () => {
    signedIn("Owner");
    const tokens: AccessToken[] = [];
    serveTokens(tokens);
    api().on("post", "/web/access-tokens", ({ body }) => {
      const created = accessToken({
        id: "10000000-0000-4000-8000-000000000009",
        name: body.name,
        masked: "cat_…Qw",
        scopes: [...body.scopes].sort(),
        createdAt: new Date().toISOString(),
        expiresAt: `${daysFromToday(91)}T00:00:00Z`,
      });
      tokens.unshift(created);
      return { status: 201, body: { token: created, secret: SECRET } };
    });
    const { user } = await openPage();

    await user.click(await screen.findByRole("button", { name: "Create token" }));
    const dialog = await screen.findByRole("dialog", { name: "Create access token" });
    const form = within(dialog);
    await user.type(form.getByLabelText("Name"), "  CI usage export ");
    await user.selectOptions(form.getByLabelText("Expiration"), "90 days");
    expect(form.getByTestId("expiry-summary").textContent).toMatch(/^Works through \w{3} \d{1,2}, \d{4}, to the end of that day \(UTC\)\.$/);
    await user.click(form.getByRole("checkbox", { name: "Usage: read (usage:read)" }));
    await user.click(form.getByRole("checkbox", { name: "Account: read (account:read)" }));
    await user.click(form.getByRole("button", { name: "Create token" }));

    const shown = await screen.findByRole("dialog", { name: "Access token created" });
    expect(api().callsTo("post", "/web/access-tokens").map((c) => c.body)).toEqual([
      { name: "CI usage export", expiresOn: daysFromToday(90), scopes: ["account:read", "usage:read"] },
    ]);
    expect(within(shown).getByTestId("access-token-secret").textContent).toBe(SECRET);
    expect(shown.textContent).toContain("Copy the token now: you won't see it again.");
    await user.click(within(shown).getByRole("button", { name: "Copy access token" }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);

    // The list has the new token; closing the dialog drops the secret.
    await waitFor(() => expect(rows()).toHaveLength(1));
    await user.click(within(shown).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(document.body.textContent).not.toContain(SECRET);
    const kept = () => JSON.stringify(queryClient.getMutationCache().getAll().map((m) => m.state.data));
    await waitFor(() => expect(kept()).not.toContain(SECRET));

    // A second Create starts empty and never shows the first secret again.
    await user.click(button("Create token"));
    const again = await screen.findByRole("dialog", { name: "Create access token" });
    expect(within(again).getByLabelText<HTMLInputElement>("Name").value).toBe("");
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it("says what is missing before sending anything, and where the API refuses the name", async () => {
    signedIn("Owner");
    api().on("post", "/web/access-tokens", {
      status: 409,
      body: { code: "AccessTokenNameTaken", message: "Another access token is named 'Deploy'. Choose another name." },
    });
    const { user } = await openPage();
    await user.click(await screen.findByRole("button", { name: "Create token" }));
    const dialog = within(await screen.findByRole("dialog", { name: "Create access token" }));

    await user.click(dialog.getByRole("button", { name: "Create token" }));
    expect(descriptionOf(dialog.getByLabelText("Name"))).toBe("Give the token a name");
    expect(dialog.getByText("Choose at least one scope.")).toBeDefined();
    await user.selectOptions(dialog.getByLabelText("Expiration"), "Custom date…");
    expect(dialog.getByTestId("expiry-summary").textContent).toMatch(/^Choose a day from /);
    fireEvent.input(dialog.getByLabelText("Last day the token works"), { target: { value: daysFromToday(400) } });
    await user.click(dialog.getByRole("button", { name: "Create token" }));
    expect(descriptionOf(dialog.getByLabelText("Last day the token works"))).toBe(
      "The expiry date must be between tomorrow and one year from today.",
    );
    expect(api().callsTo("post", "/web/access-tokens")).toEqual([]);

    await user.type(dialog.getByLabelText("Name"), "Deploy");
    await user.selectOptions(dialog.getByLabelText("Expiration"), "7 days");
    await user.click(dialog.getByRole("checkbox", { name: "Billing: write (billing:write)" }));
    await user.click(dialog.getByRole("button", { name: "Create token" }));
    await waitFor(() =>
      expect(descriptionOf(dialog.getByLabelText("Name"))).toBe(
        "Another access token is named 'Deploy'. Choose another name.",
      ),
    );
    expect(api().callsTo("post", "/web/access-tokens")[0]?.body).toEqual({
      name: "Deploy",
      expiresOn: daysFromToday(7),
      scopes: ["billing:write"],
    });
  });

  it("keeps an Admin to their role's scopes and shows the switch read-only", async () => {
    signedIn("Admin");
    api().on("post", "/web/access-tokens", {
      status: 403,
      body: { code: "ScopeBeyondRole", message: "As a Member you cannot give a token usage:write." },
    });
    const { user } = await openPage();

    const toggle = await screen.findByRole("switch", { name: "Access tokens work in this account" });
    expect(toggle).toHaveProperty("checked", true);
    await expectDisabledWithTooltip(user, toggle, SWITCH_OWNERS_ONLY);

    await user.click(button("Create token"));
    const dialog = within(await screen.findByRole("dialog", { name: "Create access token" }));
    for (const scope of ["Owners: write (owners:write)", "Billing: write (billing:write)"]) {
      await expectDisabledWithTooltip(user, dialog.getByRole("checkbox", { name: scope }), SCOPE_OWNERS_ONLY);
    }
    expect(dialog.getByRole("checkbox", { name: "Users: write (users:write)" })).toHaveProperty("disabled", false);
    expect(dialog.getByRole("checkbox", { name: "Activity: read (audit:read)" })).toHaveProperty("disabled", false);

    // Made a Member meanwhile: the API's refusal shows at the scopes, and the session stays.
    await user.type(dialog.getByLabelText("Name"), "Alerts");
    await user.click(dialog.getByRole("checkbox", { name: "Usage: write (usage:write)" }));
    await user.click(dialog.getByRole("button", { name: "Create token" }));
    expect((await dialog.findByRole("alert")).textContent).toBe("As a Member you cannot give a token usage:write.");
    expect(location()).toBe("/access-tokens");
    expect(tokenStore.read()).not.toBeNull();
  });

  it("revokes an active token after a confirmation", async () => {
    signedIn("Owner");
    const tokens = [accessToken({ id: "10000000-0000-4000-8000-000000000001", name: "Nightly usage report" })];
    serveTokens(tokens);
    api().on("delete", "/web/access-tokens/{token_id}", ({ params }) => {
      const i = tokens.findIndex((t) => t.id === params.token_id);
      tokens[i] = { ...tokens[i]!, status: "revoked", revokedAt: new Date().toISOString() };
      return { status: 204, body: undefined };
    });
    const { user } = await openPage();

    await user.click(await screen.findByRole("button", { name: "Revoke Nightly usage report" }));
    const dialog = await screen.findByRole("dialog", { name: "Revoke access token" });
    expect(dialog.textContent).toContain("Every request made with Nightly usage report (cat_…a1b2) will be refused");
    await user.click(within(dialog).getByRole("button", { name: "Revoke" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("delete", "/web/access-tokens/{token_id}").map((c) => c.url.pathname)).toEqual([
      "/web/access-tokens/10000000-0000-4000-8000-000000000001",
    ]);
    await waitFor(() => expect(cells(rows()[0]!)[5]).toBe("Revoked"));
    expect(screen.queryByRole("button", { name: "Revoke Nightly usage report" })).toBeNull();
  });

  it("lets an Owner turn tokens off after a confirmation, and on again", async () => {
    signedIn("Owner");
    const state = serveTokens([accessToken({ id: "10000000-0000-4000-8000-000000000001", name: "Deploy" })]);
    api().on("put", "/web/access-token-policy", ({ body }) => {
      state.enabled = body.enabled;
      return { status: 200, body };
    });
    const { user } = await openPage();

    await user.click(await screen.findByRole("switch", { name: "Access tokens work in this account" }));
    const confirm = await screen.findByRole("dialog", { name: "Turn off access tokens" });
    expect(api().callsTo("put", "/web/access-token-policy")).toEqual([]);
    await user.click(within(confirm).getByRole("button", { name: "Turn off" }));

    const warning = await screen.findByText(TURNED_OFF, { selector: "p" });
    expect(warning.closest("[data-variant]")?.textContent).toContain(
      "Every request made with one of its tokens is refused, and no token can be created.",
    );
    expect(screen.getByRole("switch", { name: "Access tokens work in this account" })).toHaveProperty("checked", false);
    await expectDisabledWithTooltip(user, button("Create token"), TURNED_OFF);

    await user.click(screen.getByRole("switch", { name: "Access tokens work in this account" }));
    await waitFor(() => expect(screen.queryByText(TURNED_OFF, { selector: "p" })).toBeNull());
    expect(api().callsTo("put", "/web/access-token-policy").map((c) => c.body)).toEqual([
      { enabled: false },
      { enabled: true },
    ]);
  });

  it("shows a Member why the page is not theirs, without asking for the tokens", async () => {
    signedIn("Member");
    await openPage();
    expect(screen.getByText("Only Owners and Admins can see the access tokens")).toBeDefined();
    expect(api().callsTo("get", "/web/access-tokens")).toEqual([]);
  });
});
