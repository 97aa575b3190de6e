/**
 * Renders the app as `main.tsx` does (app/provider.tsx: the app's QueryClient, the browser
 * router and every route of app/routes.tsx) at a path of happy-dom's window, with user-event
 * for typing and clicking. The API is the fake of ./fake-api.ts (./setup.ts installs it).
 */
import { render, waitFor } from "@testing-library/preact";
import userEvent from "@testing-library/user-event";
import { expect } from "vitest";

import { App } from "@/app/provider";

export function renderRoute(path: string) {
  window.history.replaceState(null, "", path);
  const user = userEvent.setup();
  return { user, ...render(<App />) };
}

/** Where the app is: the window's path and query. */
export function location(): string {
  return window.location.pathname + window.location.search;
}

/** Waits until the app's location is `path` (with its query). */
export async function expectLocation(path: string): Promise<void> {
  await waitFor(() => expect(location()).toBe(path));
}

/** The text of the elements `element`'s aria-describedby names (a field's error or hint, a
 * control's tooltip). */
export function descriptionOf(element: Element): string {
  const ids = element.getAttribute("aria-describedby")?.split(/\s+/) ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent ?? "").join(" ");
}

/**
 * `control` is disabled, and its tooltip (components/ui/DisabledReason: a focusable wrapper,
 * since a disabled button gets no hover) shows `text` once hovered.
 */
export async function expectDisabledWithTooltip(
  user: ReturnType<typeof userEvent.setup>,
  control: HTMLElement,
  text: string,
): Promise<void> {
  expect(control).toHaveProperty("disabled", true);
  const trigger = control.closest<HTMLElement>("span[tabindex]");
  expect(trigger, "the focusable wrapper of a disabled control with a reason").not.toBeNull();
  await user.hover(trigger as HTMLElement);
  const tooltip = document.getElementById(trigger?.getAttribute("aria-describedby") ?? "");
  expect(tooltip?.getAttribute("role")).toBe("tooltip");
  await waitFor(() => expect(tooltip?.dataset.open).toBe("true"));
  expect(tooltip?.textContent).toBe(text);
}
