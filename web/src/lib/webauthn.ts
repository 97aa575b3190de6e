/**
 * The browser side of passkeys (docs/users/passkeys.md), for the Passkeys page and the sign-in page: the API's JSON options into what
 * `navigator.credentials` takes, and its credential back into JSON. Browsers with
 * `PublicKeyCredential.parseCreationOptionsFromJSON` and `toJSON()` do it themselves; for
 * older ones the base64url fields are decoded and encoded here (WebAuthn Level 3, "JSON
 * serialization").
 */

type Json = Record<string, unknown>;

/** base64url (no padding) to bytes. */
export function fromBase64url(text: string): ArrayBuffer {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

/** Bytes to base64url without padding. */
export function toBase64url(data: ArrayBuffer | ArrayBufferView): string {
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function withIds(list: unknown): PublicKeyCredentialDescriptor[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return (list as Json[]).map((item) => ({ ...item, id: fromBase64url(String(item.id)) }) as PublicKeyCredentialDescriptor);
}

/** The browser's own JSON parsers, where it has them (Chrome 129, Firefox 119, Safari 18.4 on). */
function browserParsers() {
  return globalThis.PublicKeyCredential as unknown as
    | {
        parseCreationOptionsFromJSON?: (options: Json) => PublicKeyCredentialCreationOptions;
        parseRequestOptionsFromJSON?: (options: Json) => PublicKeyCredentialRequestOptions;
      }
    | undefined;
}

/** The creation options of `POST /web/passkey-registration`, for `navigator.credentials.create`. */
export function creationOptions(json: Json): PublicKeyCredentialCreationOptions {
  const native = browserParsers();
  if (native?.parseCreationOptionsFromJSON) return native.parseCreationOptionsFromJSON(json);
  const user = json.user as Json;
  return {
    ...json,
    challenge: fromBase64url(String(json.challenge)),
    user: { ...user, id: fromBase64url(String(user.id)) },
    excludeCredentials: withIds(json.excludeCredentials),
  } as unknown as PublicKeyCredentialCreationOptions;
}

/** The request options of `POST /web/session/passkey/options`, for `navigator.credentials.get`. */
export function requestOptions(json: Json): PublicKeyCredentialRequestOptions {
  const native = browserParsers();
  if (native?.parseRequestOptionsFromJSON) return native.parseRequestOptionsFromJSON(json);
  return {
    ...json,
    challenge: fromBase64url(String(json.challenge)),
    allowCredentials: withIds(json.allowCredentials),
  };
}

/** A credential from `create()` or `get()` as JSON: its own `toJSON()`, or the same fields encoded here. */
export function credentialJSON(credential: PublicKeyCredential): Json {
  const own = (credential as { toJSON?: () => Json }).toJSON;
  if (typeof own === "function") return own.call(credential);
  const response = credential.response as AuthenticatorResponse & Partial<AuthenticatorAttestationResponse & AuthenticatorAssertionResponse>;
  const encoded: Json = { clientDataJSON: toBase64url(response.clientDataJSON) };
  if (response.attestationObject) {
    encoded.attestationObject = toBase64url(response.attestationObject);
    encoded.transports = response.getTransports?.() ?? [];
  }
  if (response.authenticatorData) encoded.authenticatorData = toBase64url(response.authenticatorData);
  if (response.signature) encoded.signature = toBase64url(response.signature);
  if (response.userHandle) encoded.userHandle = toBase64url(response.userHandle);
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? null,
    response: encoded,
    clientExtensionResults: credential.getClientExtensionResults?.() ?? {},
  };
}

/** Whether this browser can make and use passkeys at all. */
export function passkeysSupported(): boolean {
  return typeof globalThis.PublicKeyCredential === "function" && !!globalThis.navigator?.credentials;
}

/** The person closed or timed out the browser's prompt (WebAuthn answers NotAllowedError). */
export function isCancelled(error: unknown): boolean {
  return error instanceof DOMException && (error.name === "NotAllowedError" || error.name === "AbortError");
}

/** A name to suggest for a new passkey: this browser on this OS ("Chrome on macOS"). */
export function suggestedName(userAgent: string): string {
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrome\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : null;
  const os = /iPhone|iPad/.test(userAgent)
    ? "iOS"
    : /Android/.test(userAgent)
      ? "Android"
      : /Mac OS X|Macintosh/.test(userAgent)
        ? "macOS"
        : /Windows/.test(userAgent)
          ? "Windows"
          : /CrOS/.test(userAgent)
            ? "ChromeOS"
            : /Linux/.test(userAgent)
              ? "Linux"
              : null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? "My passkey";
}
