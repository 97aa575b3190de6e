import { type ComponentType, lazy } from "react";

/**
 * A lazy component whose chunk is fetched as soon as the calling module runs (beside the page's
 * first reads), rather than when it is first rendered: for the parts of a page that are not
 * needed for its first paint (the first-load budget, bench/bundle/measure.mjs). Render it inside
 * a `Suspense` of its own, or the whole page gives way to the shell's spinner while it loads.
 */
export function preloaded<P extends object>(load: () => Promise<ComponentType<P>>) {
  const chunk = load().then((component) => ({ default: component }));
  return lazy(() => chunk);
}
