/**
 * /login (SPEC 2 "Login screen", 4 "Login mode", 5 "Login", "Password change", "Other reset
 * screens", 8 "Sign-in") rendered with the app's routes against the fake API.
 */
import { screen, within } from "@testing-library/preact";
import { afterEach, describe, expect, it, vi } from "vitest";

import { api } from "@/test/fake-api";
import { TOKENS, serveAccount } from "@/test/fixtures";
import { expectLocation, location, renderRoute } from "@/test/render";

const PASSWORD_RULE =
  "Password must be at least twelve characters long and contain at least one number and one special character";

async function openLogin() {
  const view = renderRoute("/login");
  await screen.findByRole("heading", { name: "Sign in to your account" });
  return view;
}

/** The error box above the form. */
async function errorText(): Promise<string | null> {
  return (await screen.findByRole("alert")).textContent;
}

const signInButton = () => screen.getByRole("button", { name: "Sign in with Email" });

describe("login", () => {
  it("asks for the email, then the password, before calling the API", async () => {
    const { user } = await openLogin();
    await user.click(signInButton());
    expect(await errorText()).toBe("Email address is required");
    expect(screen.getByLabelText("Email").getAttribute("aria-invalid")).toBe("true");

    await user.type(screen.getByLabelText("Email"), "someone@example.com");
    await user.click(signInButton());
    expect(await errorText()).toBe("Password is required");
    expect(screen.getByLabelText("Password").getAttribute("aria-invalid")).toBe("true");
    expect(api().callsTo("post", "/web/session/sign-in")).toEqual([]);
  });

  it.each([
    ["NotAuthorizedException", "Incorrect username or password."],
    ["UserNotConfirmedException", "This user must sign in with Google"],
  ] as const)("shows the provider's message for %s and stays on /login", async (code, message) => {
    api().on("post", "/web/session/sign-in", { status: 400, body: { code, message } });
    const { user } = await openLogin();
    await user.type(screen.getByLabelText("Email"), "  Ada@Acme-Robotics.dev ");
    await user.type(screen.getByLabelText("Password"), "not-the-password");
    await user.click(signInButton());

    expect(await errorText()).toBe(message);
    expect(location()).toBe("/login");
    // SPEC 5: the email is lowercased and trimmed before sign-in.
    expect(api().callsTo("post", "/web/session/sign-in").map((c) => c.body)).toEqual([
      { email: "ada@acme-robotics.dev", password: "not-the-password" },
    ]);
  });

  it("offers the reset flow when the password has expired", async () => {
    api().on("post", "/web/session/sign-in", {
      status: 400,
      body: { code: "PasswordResetRequiredException", message: "Password reset required for the user" },
    });
    const { user } = await openLogin();
    await user.type(screen.getByLabelText("Email"), "ada@acme-robotics.dev");
    await user.type(screen.getByLabelText("Password"), "old-password");
    await user.click(signInButton());

    const alert = await screen.findByRole("alert");
    await user.click(within(alert).getByRole("button", { name: "Reset your password" }));
    expect(await screen.findByRole("heading", { name: "Reset your password" })).toBeDefined();
    expect(screen.getByLabelText<HTMLInputElement>("Email").value).toBe("ada@acme-robotics.dev");
  });

  it("goes to the attempted page once signed in", async () => {
    api().on("post", "/web/session/sign-in", { status: 200, body: { tokens: TOKENS, challenge: null, twoStepSetupRequired: false } });
    const { user } = renderRoute("/login?next=%2Fbilling");
    await user.type(await screen.findByLabelText("Email"), "ada@acme-robotics.dev");
    await user.type(screen.getByLabelText("Password"), "Sturdy-password-42!");
    serveAccount("Owner");
    await user.click(signInButton());

    await expectLocation("/billing");
    expect(await screen.findByRole("heading", { name: "Billing & Subscription" })).toBeDefined();
  });
});

describe("new-password-required mode", () => {
  it("asks for a new password under the rules, then signs in and goes to /", async () => {
    api()
      .on("post", "/web/session/sign-in", {
        status: 200,
        body: {
          tokens: null,
          challenge: { name: "NEW_PASSWORD_REQUIRED", session: "challenge-session", username: "mia@acme-robotics.dev" },
          twoStepSetupRequired: false,
        },
      })
      .on("post", "/web/session/complete-new-password", {
        status: 200,
        body: { tokens: TOKENS, challenge: null, twoStepSetupRequired: false },
      });
    const { user } = await openLogin();
    await user.type(screen.getByLabelText("Email"), "mia@acme-robotics.dev");
    await user.type(screen.getByLabelText("Password"), "Temporary-1!");
    await user.click(signInButton());

    expect(await screen.findByRole("heading", { name: "Choose a new password" })).toBeDefined();
    const password = screen.getByPlaceholderText("Password");
    const change = screen.getByRole("button", { name: "Change Password" });
    await user.click(change);
    expect(await errorText()).toBe("A new password is required");
    await user.type(password, "weak");
    await user.click(change);
    expect(await errorText()).toBe(PASSWORD_RULE);
    expect(api().callsTo("post", "/web/session/complete-new-password")).toEqual([]);

    await user.clear(password);
    await user.type(password, "Invited-member-2026!");
    serveAccount("Member");
    await user.click(change);
    await expectLocation("/account");
    // The temporary password's challenge is answered, not the temporary password sent again.
    expect(api().callsTo("post", "/web/session/complete-new-password").map((c) => c.body)).toEqual([
      { username: "mia@acme-robotics.dev", session: "challenge-session", newPassword: "Invited-member-2026!" },
    ]);
  });
});

describe("forgot-password mode", () => {
  it("sends the code, then checks the code and the new password in order, then signs in", async () => {
    api()
      .on("post", "/web/session/forgot-password", {
        status: 200,
        body: { codeDelivery: { destination: "a***@a***", deliveryMedium: "EMAIL", attributeName: "email" } },
      })
      .on("post", "/web/session/confirm-forgot-password", {
        status: 200,
        body: { tokens: TOKENS, challenge: null, twoStepSetupRequired: false },
      });
    const { user } = await openLogin();
    await user.click(screen.getByRole("link", { name: "Forgot your password?" }));
    expect(await screen.findByRole("heading", { name: "Reset your password" })).toBeDefined();
    const reset = screen.getByRole("button", { name: "Reset Password" });
    await user.click(reset);
    expect(await errorText()).toBe("Email address is required");
    expect(api().callsTo("post", "/web/session/forgot-password")).toEqual([]);

    await user.type(screen.getByLabelText("Email"), " Ada@Acme-Robotics.dev");
    await user.click(reset);
    expect(await screen.findByRole("heading", { name: "Choose a new password" })).toBeDefined();
    const email = screen.getByLabelText<HTMLInputElement>("Email");
    expect(email.value).toBe("ada@acme-robotics.dev");
    expect(email.readOnly).toBe(true);

    const change = screen.getByRole("button", { name: "Change Password" });
    const steps: [field: string | null, value: string, message: string][] = [
      [null, "", "Verification code is required"],
      ["Verification code", "123456", "Enter a new password"],
      ["New password", "Even-sturdier-pass-7!", "You must confirm your password"],
      ["Confirm password", "Even-sturdier-pass-7!x", "New password and confirm password must match"],
    ];
    for (const [field, value, message] of steps) {
      if (field) await user.type(screen.getByLabelText(field), value);
      await user.click(change);
      expect(await errorText()).toBe(message);
    }
    expect(api().callsTo("post", "/web/session/confirm-forgot-password")).toEqual([]);

    await user.clear(screen.getByLabelText("Confirm password"));
    await user.type(screen.getByLabelText("Confirm password"), "Even-sturdier-pass-7!");
    serveAccount("Owner");
    await user.click(change);
    await expectLocation("/account");
    expect(api().callsTo("post", "/web/session/confirm-forgot-password").map((c) => c.body)).toEqual([
      { email: "ada@acme-robotics.dev", code: "123456", newPassword: "Even-sturdier-pass-7!" },
    ]);
  });

  it("says so when the reset code could not be delivered", async () => {
    api().on("post", "/web/session/forgot-password", {
      status: 200,
      body: { codeDelivery: { destination: "", deliveryMedium: "", attributeName: "email" } },
    });
    const { user } = await openLogin();
    await user.type(screen.getByLabelText("Email"), "ada@acme-robotics.dev");
    await user.click(screen.getByRole("link", { name: "Forgot your password?" }));
    await user.click(await screen.findByRole("button", { name: "Reset Password" }));
    expect(await errorText()).toBe(
      "There was an error resetting your password. Please email support to reset your password.",
    );
    expect(screen.getByRole("heading", { name: "Reset your password" })).toBeDefined();
  });
});

describe("passkey sign-in", () => {
  const get = vi.fn<(options: CredentialRequestOptions) => Promise<unknown>>();
  const ASSERTION = { id: "Bwg", rawId: "Bwg", type: "public-key", response: { clientDataJSON: "AQ", signature: "Ag" } };
  const passkeyButton = () => screen.getByRole("button", { name: "Sign in with a passkey" });

  function stubCredentials() {
    get.mockReset();
    vi.stubGlobal("PublicKeyCredential", function PublicKeyCredential() {});
    Object.defineProperty(navigator, "credentials", { value: { get }, configurable: true });
  }

  afterEach(() => {
    vi.unstubAllGlobals();
    Reflect.deleteProperty(navigator, "credentials");
  });

  it("asks for the email first, then signs in with the passkey and goes on as a password sign-in does", async () => {
    stubCredentials();
    api()
      .on("post", "/web/session/passkey/options", {
        status: 200,
        body: { session: "cognito-session", options: { challenge: "AQID", rpId: "localhost", allowCredentials: [] } },
      })
      .on("post", "/web/session/passkey", { status: 200, body: { tokens: TOKENS, challenge: null, twoStepSetupRequired: false } });
    get.mockResolvedValue({ toJSON: () => ASSERTION });
    const { user } = renderRoute("/login?next=%2Fbilling");
    await screen.findByRole("heading", { name: "Sign in to your account" });

    await user.click(passkeyButton());
    expect(await errorText()).toBe("Enter your email address, then sign in with a passkey.");
    expect(document.activeElement).toBe(screen.getByLabelText("Email"));
    expect(api().callsTo("post", "/web/session/passkey/options")).toEqual([]);

    await user.type(screen.getByLabelText("Email"), " Ada@Acme-Robotics.dev ");
    serveAccount("Owner");
    await user.click(passkeyButton());

    await expectLocation("/billing");
    expect(await screen.findByRole("heading", { name: "Billing & Subscription" })).toBeDefined();
    expect(api().callsTo("post", "/web/session/passkey/options").map((c) => c.body)).toEqual([{ email: "ada@acme-robotics.dev" }]);
    expect(Array.from(new Uint8Array(get.mock.calls[0]![0].publicKey!.challenge as ArrayBuffer))).toEqual([1, 2, 3]);
    expect(api().callsTo("post", "/web/session/passkey").map((c) => c.body)).toEqual([
      { email: "ada@acme-robotics.dev", session: "cognito-session", credential: ASSERTION },
    ]);
  });

  it("shows NoPasskey's message, and asks the browser for nothing", async () => {
    stubCredentials();
    const message = "There is no passkey for this email address. Sign in with your password, then add a passkey under Passkeys.";
    api().on("post", "/web/session/passkey/options", { status: 400, body: { code: "NoPasskey", message } });
    const { user } = await openLogin();
    await user.type(screen.getByLabelText("Email"), "nobody@example.com");
    await user.click(passkeyButton());

    expect(await errorText()).toBe(message);
    expect(get).not.toHaveBeenCalled();
    expect(location()).toBe("/login");
  });

  it("says the passkey was not accepted, and that a closed prompt cancelled the sign-in", async () => {
    stubCredentials();
    api()
      .on("post", "/web/session/passkey/options", { status: 200, body: { session: "s", options: { challenge: "AQID" } } })
      .on("post", "/web/session/passkey", { status: 400, body: { code: "NotAuthorizedException", message: "Incorrect username or password." } });
    get.mockResolvedValueOnce({ toJSON: () => ASSERTION });
    const { user } = await openLogin();
    await user.type(screen.getByLabelText("Email"), "ada@acme-robotics.dev");
    await user.click(passkeyButton());
    expect(await errorText()).toBe("That passkey was not accepted.");

    get.mockRejectedValueOnce(new DOMException("The operation either timed out or was not allowed.", "NotAllowedError"));
    await user.click(passkeyButton());
    expect((await screen.findByRole("status")).textContent).toBe(
      "Passkey sign-in was cancelled. Try again, or sign in with your password.",
    );
    expect(screen.queryByRole("alert")).toBeNull();
    expect(api().callsTo("post", "/web/session/passkey")).toHaveLength(1);
  });
});
