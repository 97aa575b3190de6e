/**
 * Build-time configuration of the SPA, read once from Vite's `import.meta.env`.
 * Every value has a working default, so a plain `npm run build` produces a usable console;
 * see web/README.md for the variables.
 */

function read(name: string, fallback: string): string {
  const raw: unknown = (import.meta.env as Record<string, unknown>)[name];
  return typeof raw === "string" && raw.trim() !== "" ? raw.trim() : fallback;
}

export const config = {
  /** The product brand, shown as a label only (SPEC 1). */
  productName: read("VITE_PRODUCT_NAME", "Autostep"),
  /** The company in the footer's copyright line. */
  companyName: read("VITE_COMPANY_NAME", "Autostep, Inc."),
  /** The public repository the sidebar's Documentation link opens. */
  docsUrl: read("VITE_DOCS_URL", "https://github.com/autostep/autostep"),
  termsUrl: read("VITE_TERMS_URL", "https://autostep.dev/terms"),
  privacyUrl: read("VITE_PRIVACY_URL", "https://autostep.dev/privacy"),
  /** Base URL of the API; '' means the SPA's own origin (the API serves web/dist). */
  apiBaseUrl: read("VITE_API_BASE_URL", "").replace(/\/+$/, ""),
} as const;
