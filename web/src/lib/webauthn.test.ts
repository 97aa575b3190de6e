import { afterEach, describe, expect, it, vi } from "vitest";

import { creationOptions, credentialJSON, fromBase64url, requestOptions, suggestedName, toBase64url } from "./webauthn";

const bytes = (buffer: ArrayBuffer | BufferSource) => Array.from(new Uint8Array(buffer as ArrayBuffer));

describe("base64url", () => {
  it("decodes without padding and with the URL alphabet, and encodes back", () => {
    expect(bytes(fromBase64url("-_8"))).toEqual([251, 255]);
    expect(bytes(fromBase64url("AQID"))).toEqual([1, 2, 3]);
    expect(toBase64url(new Uint8Array([251, 255]))).toBe("-_8");
    expect(toBase64url(new Uint8Array([1, 2, 3, 4]).buffer)).toBe("AQIDBA");
  });
});

describe("options without the browser's JSON parsers", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("decodes the creation options' challenge, user id and excluded credential ids", () => {
    vi.stubGlobal("PublicKeyCredential", undefined);
    const options = creationOptions({
      rp: { id: "localhost", name: "Console" },
      user: { id: "AQID", name: "ada@example.com", displayName: "Ada" },
      challenge: "BAUG",
      pubKeyCredParams: [{ type: "public-key", alg: -7 }],
      excludeCredentials: [{ type: "public-key", id: "Bwg" }],
    });
    expect(bytes(options.challenge)).toEqual([4, 5, 6]);
    expect(bytes(options.user.id)).toEqual([1, 2, 3]);
    expect(options.user.name).toBe("ada@example.com");
    expect(bytes(options.excludeCredentials![0]!.id)).toEqual([7, 8]);
    expect(options.rp.id).toBe("localhost");
  });

  it("decodes the request options' challenge and allowed credential ids", () => {
    vi.stubGlobal("PublicKeyCredential", undefined);
    const options = requestOptions({ challenge: "AQID", rpId: "localhost", allowCredentials: [{ type: "public-key", id: "Bwg" }] });
    expect(bytes(options.challenge)).toEqual([1, 2, 3]);
    expect(bytes(options.allowCredentials![0]!.id)).toEqual([7, 8]);
  });

  it("uses the browser's parser when there is one", () => {
    const parsed = { challenge: new ArrayBuffer(1) };
    vi.stubGlobal("PublicKeyCredential", Object.assign(function PublicKeyCredential() {}, { parseCreationOptionsFromJSON: () => parsed }));
    expect(creationOptions({ challenge: "AQID" })).toBe(parsed);
  });

  it("encodes a credential without toJSON", () => {
    const credential = {
      id: "Bwg",
      rawId: new Uint8Array([7, 8]).buffer,
      type: "public-key",
      authenticatorAttachment: "platform",
      response: { clientDataJSON: new Uint8Array([1]).buffer, attestationObject: new Uint8Array([2]).buffer, getTransports: () => ["internal"] },
      getClientExtensionResults: () => ({}),
    } as unknown as PublicKeyCredential;
    expect(credentialJSON(credential)).toEqual({
      id: "Bwg",
      rawId: "Bwg",
      type: "public-key",
      authenticatorAttachment: "platform",
      response: { clientDataJSON: "AQ", attestationObject: "Ag", transports: ["internal"] },
      clientExtensionResults: {},
    });
  });
});

describe("suggestedName", () => {
  it("names the browser and the OS", () => {
    expect(suggestedName("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36")).toBe("Chrome on macOS");
    expect(suggestedName("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe("Firefox on Windows");
    expect(suggestedName("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Version/18.0 Mobile Safari/604.1")).toBe("Safari on iOS");
    expect(suggestedName("curl/8")).toBe("My passkey");
  });
});
