/**
 * Saving a file the API sent (a CSV export) as the browser's download: the API is reached
 * with the bearer token through the generated client, never by a plain link (the browser
 * holds no cookie for it), so the body arrives as a Blob.
 */

/**
 * Save `blob` under the `filename` of `response`'s `Content-Disposition` (the API exposes it
 * to a SPA on another origin too), else `fallback`.
 */
export function saveDownload(blob: Blob, response: Response, fallback: string): void {
  const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1];
  saveBlob(blob, name ?? fallback);
}

/** Save `blob` as the browser's download named `filename` (made in the page, e.g. a text file). */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.click();
  URL.revokeObjectURL(url);
}
