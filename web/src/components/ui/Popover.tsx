/**
 * A popover menu (SPEC 1 "popovers"), the WAI-ARIA menu button pattern: a button with
 * aria-haspopup="menu" and aria-expanded opens a role="menu" of role="menuitem" items.
 * Enter, Space or Arrow Down on the button open it on the first item, Arrow Up on the last;
 * inside it (./PopoverPanel.tsx) Arrow Up/Down (wrapping), Home and End move between the items,
 * Enter and Space activate one; activating an item, Escape, or a click outside closes it and
 * gives the focus back to the button (a click that focused something else keeps that focus);
 * Tab closes it and moves on as Tab does.
 *
 * Hand-rolled, as Tooltip is: the shell carries it on every signed-in route, within the 55 KB
 * first-load budget (bench/bundle/measure.mjs). This module, in that first load, is only the
 * button and its state; the panel (the menu, its keys and focus, its styles) is a chunk of its
 * own fetched as this module runs (components/preloaded.ts), so it is there before anyone can
 * open it, without weighing on the first paint. The caller styles the button (`className`
 * and the other button props).
 */
import { type ButtonHTMLAttributes, type ReactNode, Suspense, useState } from "react";

import { NavLink, type NavLinkProps } from "../Link";
import { preloaded } from "../preloaded";

const PopoverPanel = preloaded(() => import("./PopoverPanel").then((m) => m.PopoverPanel));

interface PopoverMenuProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** The button's content (its accessible name, unless `aria-label` is given). */
  trigger: ReactNode;
  /** The menu's accessible name. */
  label: string;
  /** The menu items: MenuLink, MenuItem, MenuSeparator. */
  children: ReactNode;
  /** Where the menu opens: below the button, or above it (a button at the bottom of a page). */
  side?: "top" | "bottom";
}

export function PopoverMenu({ trigger, label, children, side = "bottom", ...button }: PopoverMenuProps) {
  // 0: closed; open with the focus on the first item (1) or on the last (2).
  const [open, setOpen] = useState(0);
  return (
    // The menu's position is relative to this box (PopoverPanel.module.css).
    <div style={{ position: "relative" }}>
      <button
        type="button"
        aria-haspopup="menu"
        aria-expanded={open > 0}
        {...button}
        // Pressing it leaves the focus where it is: moving it here would tell an open menu that
        // the focus left it (a click outside), which closes it before this click reopens it.
        onMouseDown={(event) => event.preventDefault()}
        onClick={(event) => {
          if (open) event.currentTarget.focus();
          setOpen(open ? 0 : 1);
        }}
        onKeyDown={(event) => {
          const focus = ["ArrowDown", "ArrowUp"].indexOf(event.key) + 1;
          if (!focus) return;
          event.preventDefault();
          setOpen(focus);
        }}
      >
        {trigger}
      </button>
      {open ? (
        <Suspense fallback={null}>
          <PopoverPanel label={label} side={side} focusLast={open > 1} onClose={() => setOpen(0)}>
            {children}
          </PopoverPanel>
        </Suspense>
      ) : null}
    </div>
  );
}

/** An item that goes to an in-app page; the current page's has aria-current="page". */
export function MenuLink(props: Omit<NavLinkProps, "className">) {
  return <NavLink {...props} role="menuitem" tabIndex={-1} />;
}

/** An item that does something on the page. */
export function MenuItem({ onSelect, children }: { onSelect: () => void; children: ReactNode }) {
  return (
    <button type="button" role="menuitem" tabIndex={-1} onClick={onSelect}>
      {children}
    </button>
  );
}

/** A line between groups of items. */
export function MenuSeparator() {
  return <div role="separator" />;
}
