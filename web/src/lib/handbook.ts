/** Links into the handbook (docs/, built with MkDocs; published beside the repository). */

/**
 * A page of the handbook, `docs/<page>.md` (e.g. "integrators/access-tokens"), under the
 * documentation link `docsUrl`: the file in the repository while that link is a GitHub
 * repository (the default), else the page of the built handbook there (MkDocs writes
 * `<page>/index.html`).
 */
export function handbookPage(docsUrl: string, page: string): string {
  const base = docsUrl.replace(/\/+$/, "");
  return /^https:\/\/github\.com\/[^/]+\/[^/]+$/.test(base)
    ? `${base}/blob/main/docs/${page}.md`
    : `${base}/${page}/`;
}
