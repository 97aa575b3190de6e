/**
 * Where the route guard sends a signed-out user, and where the login screen sends them back.
 */

/**
 * The path to return to after sign-in: only an absolute path of this site, never another
 * origin (`//evil.example`, `https://…`), so `next` cannot become an open redirect.
 */
export function safeNext(next: string | null | undefined): string | null {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) {
    return null;
  }
  return next;
}

/**
 * `/login?next=<attempted path>&extension=<extension>` for an attempted URL (SPEC 2 route
 * guard); the extension query parameter is carried only when the attempted URL has one.
 * `next` is left out for "/", the default destination after sign-in.
 */
export function loginHref(attempted: URL | { pathname: string; search: string }): string {
  const search = new URLSearchParams(attempted.search);
  const params = new URLSearchParams();
  const next = attempted.pathname + stripParam(search, "extension");
  // "/" is where sign-in leads anyway, and /login itself is no destination.
  if (next !== "/" && next !== "/login" && !next.startsWith("/login?")) params.set("next", next);
  const extension = search.get("extension");
  if (extension !== null) params.set("extension", extension);
  const query = params.toString();
  return query ? `/login?${query}` : "/login";
}

function stripParam(search: URLSearchParams, name: string): string {
  const rest = new URLSearchParams(search);
  rest.delete(name);
  const text = rest.toString();
  return text ? `?${text}` : "";
}
