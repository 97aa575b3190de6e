import { describe, expect, it } from "vitest";

import { groupSecret, nextStep, otpauthUri, recoveryCodesText } from "./two-step";

const tokens = { accessToken: "a", idToken: "i", expiresIn: 3600 };

describe("nextStep", () => {
  it("goes on once signed in, or to the set-up first", () => {
    expect(nextStep({ tokens, twoStepSetupRequired: false }, "ada@x.dev")).toEqual({ kind: "signedIn" });
    expect(nextStep({ tokens, twoStepSetupRequired: true }, "ada@x.dev")).toEqual({
      kind: "twoStepSetup",
      username: "ada@x.dev",
    });
  });

  it("asks for the authenticator app's code on its challenge", () => {
    const challenge = { name: "SOFTWARE_TOKEN_MFA", session: "s", username: "ada@x.dev" };
    expect(nextStep({ challenge, twoStepSetupRequired: false }, "typed@x.dev")).toEqual({
      kind: "twoStepCode",
      username: "ada@x.dev",
      session: "s",
    });
  });

  it("passes other challenges on by name", () => {
    const challenge = { name: "NEW_PASSWORD_REQUIRED", session: "s", username: "" };
    expect(nextStep({ challenge, twoStepSetupRequired: false }, "ada@x.dev")).toEqual({
      kind: "challenge",
      name: "NEW_PASSWORD_REQUIRED",
      username: "ada@x.dev",
      session: "s",
    });
  });
});

describe("otpauthUri", () => {
  it("follows the Key Uri Format, escaping the label", () => {
    expect(otpauthUri("Autostep", "ada+1@acme.dev", "JBSWY3DPEHPK3PXP")).toBe(
      "otpauth://totp/Autostep:ada%2B1%40acme.dev?secret=JBSWY3DPEHPK3PXP&issuer=Autostep",
    );
  });
});

describe("groupSecret and recoveryCodesText", () => {
  it("groups the secret by four", () => {
    expect(groupSecret("ABCDEFGHIJ")).toBe("ABCD EFGH IJ");
  });

  it("writes one code a line under what they are", () => {
    expect(recoveryCodesText("Autostep", "ada@acme.dev", ["aaaaa-bbbbb", "ccccc-ddddd"])).toBe(
      "Autostep recovery codes for ada@acme.dev\nEach code signs you in once in place of your authenticator app's code.\n\naaaaa-bbbbb\nccccc-ddddd\n",
    );
  });
});
