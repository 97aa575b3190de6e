/**
 * /sessions, Sessions (README "Sessions"; docs/users/sessions.md), and the account menu that
 * leads there (SPEC 1 "popovers"): the list with this browser's first and marked, signing one
 * session out, signing out every other, an ended session sent to the sign-in page, and the
 * menu by keyboard; rendered with the app's routes against the fake API.
 */
import { screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { api } from "@/test/fake-api";
import { type SessionView, sessionView, signedIn } from "@/test/fixtures";
import { expectDisabledWithTooltip, expectLocation, renderRoute } from "@/test/render";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

const THIS_BROWSER = sessionView({
  id: "20000000-0000-4000-8000-000000000001",
  current: true,
  startedAt: minutesAgo(3 * 60 + 5),
  lastActiveAt: minutesAgo(0.5),
});
const FIREFOX = sessionView({
  id: "20000000-0000-4000-8000-000000000002",
  method: "google",
  browser: "Firefox 133",
  os: "Windows 10",
  clientAddress: "198.51.100.4",
  startedAt: minutesAgo(2 * 24 * 60 + 30),
  lastActiveAt: minutesAgo(5),
});
const UNKNOWN = sessionView({
  id: "20000000-0000-4000-8000-000000000003",
  method: "saml",
  browser: null,
  os: null,
  clientAddress: "192.0.2.9",
  startedAt: minutesAgo(3 * 24 * 60 + 10),
  lastActiveAt: minutesAgo(61),
});

/** GET /web/sessions answers with `sessions` (a live array: changes show at the next read). */
function serveSessions(sessions: SessionView[]) {
  api().on("get", "/web/sessions", () => ({ status: 200, body: { sessions: [...sessions] } }));
}

async function openPage() {
  const view = renderRoute("/sessions");
  await screen.findByRole("heading", { name: "Sessions", level: 1 });
  return view;
}

const rows = () => screen.getAllByTestId("session-row");
const cells = (row: HTMLElement) => within(row).getAllByRole("cell").map((cell) => cell.textContent);
const othersButton = () => screen.getByRole("button", { name: "Sign out all other sessions" });

describe("Sessions", () => {
  it("lists the sessions, this browser's first and marked, with Logout on it and Sign out on the others", async () => {
    signedIn("Member");
    // The API's order, the latest active first: this browser's is not first.
    serveSessions([FIREFOX, THIS_BROWSER, UNKNOWN]);
    await openPage();
    await waitFor(() => expect(rows()).toHaveLength(3));
    await waitFor(() => expect(document.title).toBe("Sessions"));

    const [first, second, third] = rows() as [HTMLElement, HTMLElement, HTMLElement];
    expect(cells(first)).toEqual(["Chrome 120 on macOSThis browser", "Password", "203.0.113.7", "3 hours ago", "just now", "Logout"]);
    expect(within(first).getByRole("link", { name: "Logout" }).getAttribute("href")).toBe("/logout");
    expect(cells(second)).toEqual(["Firefox 133 on Windows 10", "Google", "198.51.100.4", "2 days ago", "5 minutes ago", "Sign out"]);
    expect(cells(third)).toEqual(["Unknown browser", "SAML single sign-on", "192.0.2.9", "3 days ago", "1 hour ago", "Sign out"]);
    expect(screen.getAllByText("This browser")).toHaveLength(1);
    const list = screen.getByRole("region", { name: "Signed-in sessions" });
    expect(within(list).getAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual([
      "Sign out Firefox 133 on Windows 10",
      "Sign out Unknown browser",
    ]);
    expect(list.textContent).toContain("3 sessions, this browser's first.");
    expect(othersButton()).toHaveProperty("disabled", false);
  });

  it("signs one session out after a confirmation", async () => {
    signedIn("Owner");
    const sessions = [THIS_BROWSER, FIREFOX, UNKNOWN];
    serveSessions(sessions);
    api().on("delete", "/web/sessions/{session_id}", ({ params }) => {
      sessions.splice(
        sessions.findIndex((s) => s.id === params.session_id),
        1,
      );
      return { status: 204, body: undefined };
    });
    const { user } = await openPage();

    await user.click(await screen.findByRole("button", { name: "Sign out Firefox 133 on Windows 10" }));
    const dialog = await screen.findByRole("dialog", { name: "Sign out this session" });
    expect(dialog.textContent).toContain(
      "Firefox 133 on Windows 10 (198.51.100.4), last active 5 minutes ago, will be signed out.",
    );
    expect(api().callsTo("delete", "/web/sessions/{session_id}")).toEqual([]);
    await user.click(within(dialog).getByRole("button", { name: "Sign out" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("delete", "/web/sessions/{session_id}").map((c) => c.url.pathname)).toEqual([
      `/web/sessions/${FIREFOX.id}`,
    ]);
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(screen.queryByRole("button", { name: "Sign out Firefox 133 on Windows 10" })).toBeNull();
    expect(screen.getByRole("status").textContent).toBe("Signed out Firefox 133 on Windows 10.");
  });

  it("says so when the session had ended already, and shows the list as it is now", async () => {
    signedIn("Owner");
    const sessions = [THIS_BROWSER, FIREFOX];
    serveSessions(sessions);
    api().on("delete", "/web/sessions/{session_id}", () => {
      sessions.splice(1, 1); // ended elsewhere meanwhile
      return { status: 404, body: { code: "SessionNotFound", message: "This session has ended or is not yours." } };
    });
    const { user } = await openPage();

    await user.click(await screen.findByRole("button", { name: "Sign out Firefox 133 on Windows 10" }));
    const dialog = await screen.findByRole("dialog", { name: "Sign out this session" });
    await user.click(within(dialog).getByRole("button", { name: "Sign out" }));
    expect((await within(dialog).findByRole("alert")).textContent).toBe("This session has ended or is not yours.");
    await waitFor(() => expect(rows()).toHaveLength(1));
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("signs out every other session after a confirmation, says how many, then has none to sign out", async () => {
    signedIn("Admin");
    const sessions = [FIREFOX, THIS_BROWSER, UNKNOWN];
    serveSessions(sessions);
    api().on("post", "/web/session/sign-out-others", () => {
      const ended = sessions.filter((s) => !s.current).length;
      sessions.splice(0, sessions.length, THIS_BROWSER);
      return { status: 200, body: { ended } };
    });
    const { user } = await openPage();
    await waitFor(() => expect(rows()).toHaveLength(3));

    await user.click(othersButton());
    const dialog = await screen.findByRole("dialog", { name: "Sign out all other sessions" });
    expect(dialog.textContent).toContain("All 2 other sessions will be signed out");
    expect(dialog.textContent).toContain("This browser stays signed in.");
    await user.click(within(dialog).getByRole("button", { name: "Sign out other sessions" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("post", "/web/session/sign-out-others")).toHaveLength(1);
    expect((await screen.findByRole("status")).textContent).toBe("Signed out 2 other sessions.");
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(cells(rows()[0]!)[0]).toBe("Chrome 120 on macOSThis browser");
    await expectDisabledWithTooltip(user, othersButton(), "You are signed in in this browser only.");
  });

  it("sends a browser whose session was ended to the sign-in page, saying why", async () => {
    signedIn("Owner");
    // Every request of an ended session is refused, its refresh too (the client tries one).
    const ended = { status: 401, body: { code: "SessionEnded", message: "Your session has ended. Please sign in again." } } as const;
    api().on("get", "/web/sessions", ended).on("post", "/web/session/refresh", ended);
    renderRoute("/sessions");
    await expectLocation("/login?next=%2Fsessions");
    expect((await screen.findByRole("alert")).textContent).toBe("Your session has ended. Please sign in again.");
  });
});

describe("the account menu", () => {
  it("opens from who is signed in by keyboard, moves with the arrows, closes on Escape and leads to Sessions", async () => {
    const { me } = signedIn("Member");
    serveSessions([THIS_BROWSER]);
    const { user } = renderRoute("/account");
    await screen.findByRole("heading", { name: "Account Information" });

    const button = screen.getByRole("button", { name: `${me.firstName} ${me.lastName} ${me.email}` });
    expect(button.getAttribute("aria-haspopup")).toBe("menu");
    expect(button.getAttribute("aria-expanded")).toBe("false");
    button.focus();
    await user.keyboard("{Enter}");
    const menu = await screen.findByRole("menu", { name: "Your account" });
    const items = within(menu).getAllByRole("menuitem");
    expect(items.map((item) => [item.textContent, item.getAttribute("href")])).toEqual([
      ["Sessions", "/sessions"],
      ["Passkeys", "/passkeys"],
      ["Two-step sign-in", "/two-step-sign-in"],
      ["Logout", "/logout"],
    ]);
    await waitFor(() => expect(document.activeElement).toBe(items[0]));
    await user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(items[1]);
    await user.keyboard("{End}");
    expect(document.activeElement).toBe(items[3]);
    await user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(items[0]);

    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("menu")).toBeNull());
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute("aria-expanded")).toBe("false");

    // Arrow Up opens it on the last item; Home goes back to Sessions, Enter follows it.
    await user.keyboard("{ArrowUp}");
    await waitFor(() => expect(document.activeElement?.textContent).toBe("Logout"));
    await user.keyboard("{Home}");
    expect(document.activeElement?.textContent).toBe("Sessions");
    await user.keyboard("{Enter}");
    await expectLocation("/sessions");
    expect(await screen.findByRole("heading", { name: "Sessions", level: 1 })).toBeDefined();
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(button);

    // On its page, the menu marks Sessions as the current page.
    await user.keyboard(" ");
    const current = await screen.findByRole("menuitem", { name: "Sessions" });
    expect(current.getAttribute("aria-current")).toBe("page");
    await user.keyboard("{Tab}");
    await waitFor(() => expect(screen.queryByRole("menu")).toBeNull());
  });

  it("signs out with Logout", async () => {
    signedIn("Owner");
    api().on("post", "/web/session/sign-out", { status: 204, body: undefined });
    const { user } = renderRoute("/account");
    await screen.findByRole("heading", { name: "Account Information" });

    await user.click(screen.getByTestId("account-menu"));
    await user.click(await screen.findByRole("menuitem", { name: "Logout" }));
    await expectLocation("/login");
    expect(api().callsTo("post", "/web/session/sign-out")).toHaveLength(1);
  });
});
