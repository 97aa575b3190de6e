/**
 * The open menu of PopoverMenu (./Popover.tsx; the WAI-ARIA menu button pattern): it takes the
 * focus (the first item, or the last when opened with Arrow Up); Arrow Up/Down move between the
 * items and wrap, Home and End go to the first and the last, Enter and Space activate the
 * focused one; activating an item or Escape closes it and focuses the button again, Tab closes
 * it and moves on. The focus leaving it (React's bubbling onBlur, `focusout`) closes it too: to
 * the button, when a click on the page's background focused nothing, else where the focus went.
 */
import { type ReactNode, useEffect, useRef } from "react";

import styles from "./PopoverPanel.module.css";

interface PopoverPanelProps {
  label: string;
  side: "top" | "bottom";
  focusLast: boolean;
  /** Closes the menu (the button's owner unmounts this panel). */
  onClose: () => void;
  children: ReactNode;
}

const ITEM = "[role=menuitem]";

export function PopoverPanel({ label, side, focusLast, onClose, children }: PopoverPanelProps) {
  const menu = useRef<HTMLDivElement>(null);
  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>(ITEM) ?? [])];
  const close = () => {
    onClose();
    menu.current?.parentElement?.querySelector("button")?.focus();
  };

  useEffect(() => {
    const list = menu.current?.querySelectorAll<HTMLElement>(ITEM);
    list?.[focusLast ? list.length - 1 : 0]?.focus();
  }, [focusLast]);

  return (
    <div
      ref={menu}
      role="menu"
      aria-label={label}
      // Focusable, so a click on its padding or a separator keeps it open.
      tabIndex={-1}
      className={styles.menu}
      data-side={side}
      onBlur={(event) => {
        const to = event.relatedTarget as Node | null;
        if (menu.current?.parentElement?.contains(to)) return; // within the menu, or its button
        if (to) onClose();
        else close();
      }}
      onClick={(event) => {
        if ((event.target as Element).closest(ITEM)) close();
      }}
      onKeyDown={(event) => {
        const list = items();
        const n = list.length;
        const at = Math.max(list.indexOf(event.target as HTMLElement), 0);
        const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at + n - 1, Home: n, End: n - 1 };
        const key = event.key;
        if (key in moves) list[(moves[key] ?? 0) % n]?.focus();
        else if (key === "Escape") close();
        else if (key === "Tab") return onClose();
        // Links answer Enter only, buttons both: one way for every item.
        else if (key === "Enter" || key === " ") (event.target as HTMLElement).click();
        else return;
        event.preventDefault();
      }}
    >
      {children}
    </div>
  );
}
