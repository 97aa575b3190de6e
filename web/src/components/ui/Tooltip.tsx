/**
 * A small accessible tooltip: shown on hover and keyboard focus, hidden with Escape, linked
 * to its trigger with aria-describedby; `open` makes it controlled (e.g. to keep 'Copied!'
 * on screen after a click).
 *
 * Hand-rolled on purpose: @radix-ui/react-tooltip costs ~18 KB gzip (Popper, Portal,
 * react-dom), a third of the 55 KB route budget of bench/bundle/measure.mjs; a tooltip
 * above or below a button needs no collision engine.
 */
import {
  type ReactElement,
  type ReactNode,
  cloneElement,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";

import styles from "./Tooltip.module.css";

export type TooltipAlign = "center" | "start" | "end";

interface TooltipProps {
  content: ReactNode;
  /** The element the tooltip describes (a button, a link, …). */
  children: ReactElement<{ "aria-describedby"?: string }>;
  side?: "top" | "bottom";
  /** Which edge of the trigger the tooltip lines up with; "start" and "end" keep a tooltip of
   * a control at the left or right edge of a panel within it. */
  align?: TooltipAlign;
  /** Controlled visibility; leave undefined to follow hover and focus. */
  open?: boolean;
  /** Delay before showing on hover, ms. */
  delayMs?: number;
  /** Let the trigger take its container's full width (e.g. a row of a list). */
  block?: boolean;
}

export function Tooltip({
  content,
  children,
  side = "top",
  align = "center",
  open,
  delayMs = 150,
  block = false,
}: TooltipProps) {
  const id = useId();
  const [active, setActive] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  const visible = open ?? active;

  useEffect(() => () => window.clearTimeout(timer.current), []);

  const show = (delay: number) => {
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setActive(true), delay);
  };
  const hide = () => {
    window.clearTimeout(timer.current);
    setActive(false);
  };

  return (
    <span
      className={block ? `${styles.anchor} ${styles.block}` : styles.anchor}
      onMouseEnter={() => show(delayMs)}
      onMouseLeave={hide}
      onFocus={() => show(0)}
      onBlur={hide}
      onKeyDown={(event) => {
        if (event.key === "Escape") hide();
      }}
    >
      {cloneElement(children, { "aria-describedby": id })}
      <span role="tooltip" id={id} className={styles.tip} data-side={side} data-align={align} data-open={visible}>
        {content}
      </span>
    </span>
  );
}
