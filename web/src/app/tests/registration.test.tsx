/**
 * /registration (SPEC 2 "Registration screen", 4 "Registration", 5 "Registration", 8
 * "Registration") rendered with the app's routes against the fake API.
 */
import { screen, waitFor } from "@testing-library/preact";
import { describe, expect, it } from "vitest";

import { api } from "@/test/fake-api";
import { TOKENS, serveAccount } from "@/test/fixtures";
import { descriptionOf, expectLocation, renderRoute } from "@/test/render";

const FIELDS = ["First name", "Last name", "Work email", "Company name", "Password"] as const;
const PASSWORD_RULE =
  "Password must be at least twelve characters long and contain at least one number and one special character";

async function openRegistration() {
  const view = renderRoute("/registration");
  expect(await screen.findByText("Sign up for free. No credit card required.")).toBeDefined();
  return view;
}

type User = Awaited<ReturnType<typeof openRegistration>>["user"];

async function fill(user: User, values: Partial<Record<(typeof FIELDS)[number], string>>) {
  for (const [label, value] of Object.entries(values)) {
    const field = screen.getByLabelText(label);
    await user.clear(field);
    await user.type(field, value);
  }
}

const COMPLETE = {
  "First name": " Nia ",
  "Last name": " Register ",
  "Work email": "Nia@Register-Labs.com ",
  "Company name": " Register Labs ",
  Password: "Sturdy-password-42!",
};

/** The message under the field labelled `label` (its error, linked by aria-describedby). */
async function expectFieldMessage(label: string, message: string) {
  await waitFor(() => expect(descriptionOf(screen.getByLabelText(label))).toBe(message));
}

const signUp = () => screen.getByRole("button", { name: "Sign up" });

describe("registration", () => {
  it("marks every empty field Required", async () => {
    const { user } = await openRegistration();
    await user.click(signUp());
    for (const label of FIELDS) {
      await expectFieldMessage(label, "Required");
      expect(screen.getByLabelText(label).getAttribute("aria-invalid")).toBe("true");
    }
    expect(api().callsTo("post", "/web/registration")).toEqual([]);
  });

  it("refuses a free email provider and a weak password", async () => {
    const { user } = await openRegistration();
    await fill(user, { ...COMPLETE, "Work email": "someone@gmail.com", Password: "short" });
    await user.click(signUp());
    await expectFieldMessage("Work email", "Must be a valid business email address");
    await expectFieldMessage("Password", PASSWORD_RULE);
    for (const label of ["First name", "Last name", "Company name"]) {
      expect(screen.getByLabelText(label).getAttribute("aria-invalid")).toBeNull();
    }
    expect(api().callsTo("post", "/web/registration")).toEqual([]);
  });

  it("says on the email field that the address is in use", async () => {
    api().on("post", "/web/registration", {
      status: 409,
      body: { code: "EmailInUse", message: "An account with the given email already exists." },
    });
    const { user } = await openRegistration();
    await fill(user, COMPLETE);
    await user.click(signUp());
    await expectFieldMessage("Work email", "This email address is already in use");
    expect(screen.queryByRole("alert")).toBeNull();
    // SPEC 5: the email lowercased and trimmed, the names trimmed.
    expect(api().callsTo("post", "/web/registration").map((c) => c.body)).toEqual([
      {
        firstName: "Nia",
        lastName: "Register",
        emailAddress: "nia@register-labs.com",
        organizationName: "Register Labs",
        newPassword: "Sturdy-password-42!",
      },
    ]);
  });

  it("asks for a business address when the server refuses the provider", async () => {
    api().on("post", "/web/registration", {
      status: 400,
      body: { code: "InvalidEmailProvider", message: "Invalid email provider" },
    });
    const { user } = await openRegistration();
    await fill(user, { ...COMPLETE, "Work email": "x@123india.com" });
    await user.click(signUp());
    expect((await screen.findByRole("alert")).textContent).toBe(
      "Sorry, registration failed. Please use a business email address.",
    );
    expect(signUp()).toHaveProperty("disabled", false);
  });

  it("signs the new user in and goes to /", async () => {
    api().on("post", "/web/registration", { status: 201, body: TOKENS });
    serveAccount("Owner");
    const { user } = await openRegistration();
    await fill(user, COMPLETE);
    await user.click(signUp());
    await expectLocation("/account");
  });
});
