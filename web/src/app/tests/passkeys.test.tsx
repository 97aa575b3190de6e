/**
 * /passkeys, Passkeys (docs/users/passkeys.md): the list, renaming, removing, adding one
 * (password, the browser's prompt, a name), the prompt closed, and who cannot have passkeys;
 * rendered with the app's routes against the fake API and a stubbed `navigator.credentials`
 * (happy-dom has none).
 */
import { screen, waitFor, within } from "@testing-library/preact";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { components } from "@/api/schema";
import { api } from "@/test/fake-api";
import { KATHERINE, signedIn } from "@/test/fixtures";
import { renderRoute } from "@/test/render";

type Passkey = components["schemas"]["PasskeyView"];
type TwoStep = components["schemas"]["TwoStepSignIn"];

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

const MACBOOK: Passkey = {
  id: "q1rS",
  name: "MacBook",
  createdAt: minutesAgo(3 * 24 * 60),
  lastUsedAt: minutesAgo(5),
  authenticatorAttachment: "platform",
};
const YUBIKEY: Passkey = {
  id: "Yk9",
  name: "YubiKey",
  createdAt: minutesAgo(2 * 60),
  lastUsedAt: null,
  authenticatorAttachment: "cross-platform",
};
const OPTIONS = {
  rp: { id: "localhost", name: "Console" },
  user: { id: "AQID", name: "ada@acme-robotics.dev", displayName: "Ada Lovelace" },
  challenge: "BAUG",
  pubKeyCredParams: [{ type: "public-key", alg: -7 }],
};
const CREDENTIAL_JSON = { id: "Bwg", rawId: "Bwg", type: "public-key", response: { clientDataJSON: "AQ", attestationObject: "Ag" } };

function twoStep(fields: Partial<TwoStep> = {}): TwoStep {
  return { available: true, enabled: false, enabledAt: null, recoveryCodesLeft: 0, requiredByAccount: false, setupDue: false, ...fields };
}

function servePasskeys(passkeys: Passkey[], state: TwoStep = twoStep()) {
  api()
    .on("get", "/web/passkeys", () => ({ status: 200, body: { passkeys: [...passkeys] } }))
    .on("get", "/web/two-step-sign-in", { status: 200, body: { twoStepSignIn: state } });
}

const create = vi.fn<(options: CredentialCreationOptions) => Promise<unknown>>();

beforeEach(() => {
  create.mockReset();
  vi.stubGlobal("PublicKeyCredential", function PublicKeyCredential() {});
  Object.defineProperty(navigator, "credentials", { value: { create }, configurable: true });
});

afterEach(() => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, "credentials");
});

async function openPage() {
  const view = renderRoute("/passkeys");
  await screen.findByRole("heading", { name: "Passkeys", level: 1 });
  return view;
}

const rows = () => screen.queryAllByTestId("passkey-row");
const cells = (row: HTMLElement) => within(row).getAllByRole("cell").map((cell) => cell.textContent);

describe("Passkeys", () => {
  it("lists the passkeys with their kind, when added and when last used", async () => {
    signedIn("Owner");
    servePasskeys([MACBOOK, YUBIKEY]);
    await openPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    await waitFor(() => expect(document.title).toBe("Passkeys"));
    const [first, second] = rows() as [HTMLElement, HTMLElement];
    expect(cells(first)).toEqual(["MacBookThis device's screen lock", "3 days ago", "5 minutes ago", "RenameRemove"]);
    expect(cells(second)).toEqual(["YubiKeySecurity key or other device", "2 hours ago", "Never", "RenameRemove"]);
    expect(await screen.findByRole("button", { name: "Add a passkey" })).toBeDefined();
  });

  it("says so when there is none", async () => {
    signedIn("Member");
    servePasskeys([]);
    await openPage();
    expect(await screen.findByText("You have no passkeys yet.")).toBeDefined();
  });

  it("renames one, and shows a taken name's message", async () => {
    signedIn("Owner");
    const passkeys = [MACBOOK, YUBIKEY];
    servePasskeys(passkeys);
    let calls = 0;
    api().on("patch", "/web/passkeys/{passkey_id}", ({ params, body }) => {
      calls += 1;
      if (calls === 1) return { status: 409, body: { code: "PasskeyNameTaken", message: "You have a passkey of that name already." } };
      const renamed = { ...MACBOOK, name: body.name };
      passkeys.splice(passkeys.findIndex((p) => p.id === params.passkey_id), 1, renamed);
      return { status: 200, body: { passkey: renamed } };
    });
    const { user } = await openPage();

    await user.click(await screen.findByRole("button", { name: "Rename MacBook" }));
    const dialog = await screen.findByRole("dialog", { name: "Rename passkey" });
    const field = within(dialog).getByLabelText("Name");
    await user.clear(field);
    await user.type(field, "YubiKey");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect((await within(dialog).findByRole("alert")).textContent).toBe("You have a passkey of that name already.");
    await user.clear(field);
    await user.type(field, "  Work laptop ");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("patch", "/web/passkeys/{passkey_id}").map((c) => [c.url.pathname, c.body])).toEqual([
      ["/web/passkeys/q1rS", { name: "YubiKey" }],
      ["/web/passkeys/q1rS", { name: "Work laptop" }],
    ]);
    expect((await screen.findByRole("status")).textContent).toBe("Renamed to Work laptop.");
    await waitFor(() => expect(cells(rows()[0]!)[0]).toBe("Work laptopThis device's screen lock"));
  });

  it("removes one after a confirmation", async () => {
    signedIn("Owner");
    const passkeys = [MACBOOK, YUBIKEY];
    servePasskeys(passkeys);
    api().on("delete", "/web/passkeys/{passkey_id}", ({ params }) => {
      passkeys.splice(passkeys.findIndex((p) => p.id === params.passkey_id), 1);
      return { status: 204, body: undefined };
    });
    const { user } = await openPage();

    await user.click(await screen.findByRole("button", { name: "Remove YubiKey" }));
    const dialog = await screen.findByRole("dialog", { name: "Remove this passkey" });
    expect(dialog.textContent).toContain("YubiKey will no longer sign you in.");
    expect(api().callsTo("delete", "/web/passkeys/{passkey_id}")).toEqual([]);
    await user.click(within(dialog).getByRole("button", { name: "Remove" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("delete", "/web/passkeys/{passkey_id}").map((c) => c.url.pathname)).toEqual(["/web/passkeys/Yk9"]);
    expect((await screen.findByRole("status")).textContent).toBe("Removed YubiKey.");
    await waitFor(() => expect(rows()).toHaveLength(1));
  });

  it("adds one: the password, the browser's prompt, then a name (asking for the code when the API does)", async () => {
    signedIn("Owner");
    const passkeys = [MACBOOK];
    servePasskeys(passkeys);
    api()
      .on("post", "/web/passkey-registration", ({ body }) =>
        body.code
          ? { status: 200, body: { options: OPTIONS } }
          : { status: 400, body: { code: "TwoStepCodeRequired", message: "Enter the code from your authenticator app." } },
      )
      .on("post", "/web/passkeys", ({ body }) => {
        const added: Passkey = { id: "Bwg", name: body.name, createdAt: minutesAgo(0), lastUsedAt: null, authenticatorAttachment: "platform" };
        passkeys.push(added);
        return { status: 201, body: { passkey: added } };
      });
    create.mockResolvedValue({ toJSON: () => CREDENTIAL_JSON });
    const { user } = await openPage();

    await user.click(await screen.findByRole("button", { name: "Add a passkey" }));
    let dialog = await screen.findByRole("dialog", { name: "Add a passkey" });
    expect(within(dialog).queryByLabelText("Authentication code")).toBeNull();
    await user.type(within(dialog).getByLabelText("Password"), "correct horse");
    await user.click(within(dialog).getByRole("button", { name: "Continue" }));
    const code = await within(dialog).findByLabelText("Authentication code");
    expect(create).not.toHaveBeenCalled();
    await user.type(code, "123456");
    await user.click(within(dialog).getByRole("button", { name: "Continue" }));

    dialog = await screen.findByRole("dialog", { name: "Name your passkey" });
    expect(create).toHaveBeenCalledTimes(1);
    const publicKey = create.mock.calls[0]![0].publicKey!;
    expect(Array.from(new Uint8Array(publicKey.challenge as ArrayBuffer))).toEqual([4, 5, 6]);
    expect(publicKey.rp.id).toBe("localhost");
    const name = within(dialog).getByLabelText("Name");
    expect((name as HTMLInputElement).value).not.toBe("");
    await user.clear(name);
    await user.type(name, "Work laptop");
    await user.click(within(dialog).getByRole("button", { name: "Add passkey" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(api().callsTo("post", "/web/passkey-registration").map((c) => c.body)).toEqual([
      { password: "correct horse", code: null },
      { password: "correct horse", code: "123456" },
    ]);
    expect(api().callsTo("post", "/web/passkeys").map((c) => c.body)).toEqual([{ credential: CREDENTIAL_JSON, name: "Work laptop" }]);
    expect((await screen.findByRole("status")).textContent).toBe("Added Work laptop. You can sign in with it now.");
    await waitFor(() => expect(rows()).toHaveLength(2));
  });

  it("asks for the code from the start when two-step sign-in is on", async () => {
    signedIn("Owner");
    servePasskeys([], twoStep({ enabled: true }));
    const { user } = await openPage();
    await user.click(await screen.findByRole("button", { name: "Add a passkey" }));
    const dialog = await screen.findByRole("dialog", { name: "Add a passkey" });
    expect(within(dialog).getByLabelText("Authentication code")).toBeDefined();
  });

  it("says calmly that nothing was added when the browser's prompt is closed", async () => {
    signedIn("Owner");
    servePasskeys([]);
    api().on("post", "/web/passkey-registration", { status: 200, body: { options: OPTIONS } });
    create.mockRejectedValue(new DOMException("The operation either timed out or was not allowed.", "NotAllowedError"));
    const { user } = await openPage();

    await user.click(await screen.findByRole("button", { name: "Add a passkey" }));
    const dialog = await screen.findByRole("dialog", { name: "Add a passkey" });
    await user.type(within(dialog).getByLabelText("Password"), "correct horse");
    await user.click(within(dialog).getByRole("button", { name: "Continue" }));

    expect((await within(dialog).findByRole("status")).textContent).toBe(
      "No passkey was added: the browser's prompt was closed. Continue to try again.",
    );
    expect(within(dialog).queryByRole("alert")).toBeNull();
    expect(api().callsTo("post", "/web/passkeys")).toEqual([]);
  });

  it("shows who signs in with an identity provider why there is no Add button", async () => {
    signedIn(KATHERINE);
    servePasskeys([], twoStep({ available: false }));
    await openPage();
    expect(await screen.findByText(/your identity provider protects your sign-in/)).toBeDefined();
    expect(screen.queryByRole("button", { name: "Add a passkey" })).toBeNull();
  });

  it("says so in a browser without passkeys", async () => {
    vi.stubGlobal("PublicKeyCredential", undefined);
    signedIn("Owner");
    servePasskeys([]);
    await openPage();
    expect(await screen.findByText(/This browser does not support passkeys/)).toBeDefined();
    expect(screen.queryByRole("button", { name: "Add a passkey" })).toBeNull();
  });
});
