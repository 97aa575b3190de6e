/**
 * /users, User Management (SPEC 2, 5 "Invite user is disabled when SSO is on"; README "Roles
 * and invitations"): which of Edit, Delete and '+ Invite User' each role may use, the reason a
 * disabled one gives, and a refusal of the API (403 Forbidden) that keeps the session; the
 * access tokens a member made, listed before removing them (README "Automation"); each user's
 * sessions and Sign out everywhere, for Owners and Admins (README "Sessions"); rendered with
 * the app's routes against the fake API.
 */
import { screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { tokenStore } from "@/lib/token-store";
import { api } from "@/test/fake-api";
import { ADA, GRACE, KATHERINE, accessToken, signedIn } from "@/test/fixtures";
import { expectDisabledWithTooltip, location, renderRoute } from "@/test/render";

const MANAGE_USERS = "Only Owners and Admins can manage users.";
const OWNER_ONLY = "Only Owners can change an Owner.";
const SSO_ON = "Instruct other users to sign in with SSO to join the account.";
const ROLE_REFUSED = "Only an Owner or an Admin of this account can do this. Ask one of them to do it for you.";

async function openUsers() {
  const view = renderRoute("/users");
  await screen.findByRole("heading", { name: "User Management" });
  return view;
}

const button = (name: string) => screen.getByRole("button", { name });
const inviteButton = () => button("+ Invite User");
const fullName = (u: { firstName: string; lastName: string }) => `${u.firstName} ${u.lastName}`;

describe("User Management", () => {
  it("lets an Owner invite, edit and delete anyone but themselves", async () => {
    signedIn("Owner");
    const { user } = await openUsers();

    expect(inviteButton()).toHaveProperty("disabled", false);
    for (const other of [GRACE, KATHERINE]) {
      expect(button(`Edit ${fullName(other)}`)).toHaveProperty("disabled", false);
      expect(button(`Delete ${fullName(other)}`)).toHaveProperty("disabled", false);
    }
    expect(screen.queryByRole("button", { name: `Delete ${fullName(ADA)}` })).toBeNull();

    // SPEC 2: the delete confirmation.
    await user.click(button(`Delete ${fullName(GRACE)}`));
    const confirm = await screen.findByRole("dialog", { name: "Delete User" });
    expect(within(confirm).getByText("This will delete Grace Hopper from your account.")).toBeDefined();
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    expect(api().callsTo("delete", "/web/users/{user_id}")).toEqual([]);

    // One's own role is another Owner's to change.
    await user.click(button(`Edit ${fullName(ADA)}`));
    const edit = await screen.findByRole("dialog", { name: "Edit User" });
    expect(within(edit).queryAllByRole("radio")).toEqual([]);
    expect(edit.textContent).toContain("Role: Owner. You cannot change your own role. Ask another Owner to change it.");
    expect(within(edit).getByLabelText<HTMLInputElement>("Email").readOnly).toBe(true);
  });

  it("offers an Owner every role in the invitation, Admin first chosen", async () => {
    signedIn("Owner");
    const { user } = await openUsers();
    await user.click(inviteButton());
    const dialog = await screen.findByRole("dialog", { name: "Invite User" });
    const roles = within(within(dialog).getByRole("group", { name: "Role" })).getAllByRole<HTMLInputElement>("radio");
    expect(roles.map((r) => [r.value, r.checked])).toEqual([
      ["Owner", false],
      ["Admin", true],
      ["Member", false],
    ]);
  });

  it("keeps an Admin from changing an Owner, and from giving the Owner role", async () => {
    signedIn("Admin");
    const { user } = await openUsers();

    expect(inviteButton()).toHaveProperty("disabled", false);
    await expectDisabledWithTooltip(user, button(`Edit ${fullName(ADA)}`), OWNER_ONLY);
    await expectDisabledWithTooltip(user, button(`Delete ${fullName(ADA)}`), OWNER_ONLY);
    expect(button(`Delete ${fullName(KATHERINE)}`)).toHaveProperty("disabled", false);

    await user.click(button(`Edit ${fullName(KATHERINE)}`));
    const dialog = await screen.findByRole("dialog", { name: "Edit User" });
    expect(within(dialog).getAllByRole<HTMLInputElement>("radio").map((r) => r.value)).toEqual(["Admin", "Member"]);
  });

  it("disables every change for a Member, with the role it needs", async () => {
    signedIn("Member");
    const { user } = await openUsers();

    await expectDisabledWithTooltip(user, inviteButton(), MANAGE_USERS);
    await expectDisabledWithTooltip(user, button(`Edit ${fullName(ADA)}`), MANAGE_USERS);
    await expectDisabledWithTooltip(user, button(`Delete ${fullName(GRACE)}`), MANAGE_USERS);
    // Their own row too: a Member changes nothing, their own names included.
    await expectDisabledWithTooltip(user, button(`Edit ${fullName(KATHERINE)}`), MANAGE_USERS);
  });

  it("disables inviting while Google SSO is on, for an Owner too", async () => {
    signedIn("Owner", { sso: { isGoogleSSO: true, isSamlSSO: false, domains: ["acme-robotics.dev"] } });
    const { user } = await openUsers();
    await expectDisabledWithTooltip(user, inviteButton(), SSO_ON);
  });

  it("shows a refusal of the API in the dialog and keeps the session", async () => {
    // The page still shows what an Admin may do; an Owner has made them a Member meanwhile.
    signedIn("Admin");
    api().on("post", "/web/users", { status: 403, body: { code: "Forbidden", message: ROLE_REFUSED } });
    const { user } = await openUsers();
    await user.click(inviteButton());
    const dialog = await screen.findByRole("dialog", { name: "Invite User" });
    await user.type(within(dialog).getByLabelText("First name"), "Not");
    await user.type(within(dialog).getByLabelText("Last name"), "Invited");
    await user.type(within(dialog).getByLabelText("Email"), "Not-Invited@acme-robotics.dev");
    await user.click(within(dialog).getByRole("button", { name: "Invite User" }));

    expect((await within(dialog).findByRole("alert")).textContent).toBe(ROLE_REFUSED);
    expect(api().callsTo("post", "/web/users").map((c) => c.body)).toEqual([
      { firstName: "Not", lastName: "Invited", email: "not-invited@acme-robotics.dev", role: "Admin" },
    ]);
    expect(location()).toBe("/users");
    expect(tokenStore.read()).not.toBeNull();
    expect(screen.getByRole("heading", { name: "User Management" })).toBeDefined();
  });

  it("lists the active access tokens of a member being removed, and lets an Owner keep them", async () => {
    signedIn("Owner");
    api().on("get", "/web/access-tokens", {
      status: 200,
      body: {
        enabled: true,
        maxTokens: 50,
        tokens: [
          accessToken({ id: "10000000-0000-4000-8000-000000000001", name: "Deploy", masked: "cat_…d3p1", scopes: ["api_keys:write"] }, GRACE),
          accessToken({ id: "10000000-0000-4000-8000-000000000002", name: "Usage export" }, GRACE),
          accessToken({ id: "10000000-0000-4000-8000-000000000003", name: "Revoked one", status: "revoked" }, GRACE),
          accessToken({ id: "10000000-0000-4000-8000-000000000004", name: "Ada's own" }, ADA),
        ],
      },
    });
    api().on("delete", "/web/users/{user_id}", { status: 204, body: undefined });
    const { user } = await openUsers();

    await user.click(button(`Delete ${fullName(GRACE)}`));
    const dialog = await screen.findByRole("dialog", { name: "Delete User" });
    const tokens = await within(dialog).findByRole("group", { name: "Access tokens Grace Hopper made" });
    expect(tokens.textContent).toContain("The 2 access tokens Grace made will be revoked with them:");
    expect(within(tokens).getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "Deploy cat_…d3p1 · api_keys:write",
      "Usage export cat_…a1b2 · usage:read",
    ]);

    await user.click(within(tokens).getByRole("checkbox", { name: /Keep their access tokens/ }));
    expect(tokens.textContent).toContain("These 2 access tokens Grace made will keep working");
    await user.click(within(dialog).getByRole("button", { name: "Delete" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("delete", "/web/users/{user_id}").map((c) => c.url.pathname + c.url.search)).toEqual([
      `/web/users/${GRACE.id}?keepAccessTokens=true`,
    ]);
  });

  it("tells an Admin removing a member that their tokens will be revoked, with no choice to keep them", async () => {
    signedIn("Admin");
    api().on("get", "/web/access-tokens", {
      status: 200,
      body: {
        enabled: true,
        maxTokens: 50,
        tokens: [accessToken({ id: "10000000-0000-4000-8000-000000000001", name: "Dashboard" }, KATHERINE)],
      },
    });
    api().on("delete", "/web/users/{user_id}", { status: 204, body: undefined });
    const { user } = await openUsers();

    await user.click(button(`Delete ${fullName(KATHERINE)}`));
    const dialog = await screen.findByRole("dialog", { name: "Delete User" });
    const tokens = await within(dialog).findByRole("group", { name: "Access tokens Katherine Johnson made" });
    expect(tokens.textContent).toContain("The access token Katherine made will be revoked with them:");
    expect(tokens.textContent).toContain("Only an Owner can keep them.");
    expect(within(dialog).queryByRole("checkbox")).toBeNull();
    await user.click(within(dialog).getByRole("button", { name: "Delete" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("delete", "/web/users/{user_id}").map((c) => c.url.pathname + c.url.search)).toEqual([
      `/web/users/${KATHERINE.id}`,
    ]);
  });

  it("shows an Owner each user's sessions and signs one out everywhere", async () => {
    signedIn("Owner");
    api().on("get", "/web/member-sessions", {
      status: 200,
      body: {
        users: [
          { userId: ADA.id, activeSessions: 1 },
          { userId: GRACE.id, activeSessions: 2 },
          { userId: KATHERINE.id, activeSessions: 0 },
        ],
      },
    });
    api().on("delete", "/web/member-sessions/{user_id}", { status: 204, body: undefined });
    const { user } = await openUsers();

    const cells = await screen.findAllByTestId("sessions-cell");
    expect(cells.map((cell) => cell.textContent)).toEqual(["1", "2", "0"]);
    // Not oneself (the Sessions page is for that), nor someone signed in nowhere.
    expect(screen.queryByRole("button", { name: `Sign out ${fullName(ADA)}` })).toBeNull();
    expect(screen.queryByRole("button", { name: `Sign out ${fullName(KATHERINE)}` })).toBeNull();

    await user.click(button(`Sign out ${fullName(GRACE)}`));
    const dialog = await screen.findByRole("dialog", { name: "Sign out everywhere" });
    expect(dialog.textContent).toContain("Grace Hopper is signed out of every browser and device at once.");
    await user.click(within(dialog).getByRole("button", { name: "Sign out" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("delete", "/web/member-sessions/{user_id}").map((c) => c.url.pathname)).toEqual([
      `/web/member-sessions/${GRACE.id}`,
    ]);
  });

  it("keeps an Admin from signing an Owner out, and asks nothing for a Member", async () => {
    signedIn("Admin");
    api().on("get", "/web/member-sessions", {
      status: 200,
      body: { users: [{ userId: ADA.id, activeSessions: 1 }] },
    });
    const { user } = await openUsers();
    const signOut = await screen.findByRole("button", { name: `Sign out ${fullName(ADA)}` });
    await expectDisabledWithTooltip(user, signOut, OWNER_ONLY);
  });

  it("asks a Member for no one's sessions", async () => {
    signedIn("Member");
    await openUsers();
    expect(screen.queryByRole("columnheader", { name: "Sessions" })).toBeNull();
    expect(api().callsTo("get", "/web/member-sessions")).toEqual([]);
  });
});

