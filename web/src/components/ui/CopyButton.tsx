/**
 * Copies a value to the clipboard. Its tooltip reads `label` on hover and focus, then
 * `copiedLabel` for `copiedMs` after a copy (SPEC 2: 'Copy API Key', then 'Copied!' for 2.5 s).
 * `value` may be fetched on click (copying a masked API key without revealing it);
 * the clipboard gets the pending value at once (ClipboardItem takes a promise), so the click's
 * user activation still counts when it arrives.
 */
import { useEffect, useState } from "react";

import { Button } from "./Button";
import { Tooltip } from "./Tooltip";

interface CopyButtonProps {
  value: string | (() => Promise<string>);
  label: string;
  copiedLabel?: string;
  copiedMs?: number;
}

export function CopyButton({ value, label, copiedLabel = "Copied!", copiedMs = 2500 }: CopyButtonProps) {
  // When the last copy happened (0: none); a new copy restarts the countdown.
  const [copied, setCopied] = useState(0);
  useEffect(() => {
    if (!copied) return undefined;
    const timer = window.setTimeout(() => setCopied(0), copiedMs);
    return () => window.clearTimeout(timer);
  }, [copied, copiedMs]);

  return (
    <Tooltip content={copied ? copiedLabel : label} open={copied ? true : undefined}>
      <Button
        variant="secondary"
        aria-label={label}
        onClick={() => {
          copy(value).then(
            () => setCopied(Date.now()),
            () => undefined, // no clipboard access: the value stays selectable on screen
          );
        }}
      >
        <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
          <rect x="9" y="9" width="12" height="12" rx="2" />
          <path d="M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1" />
        </svg>
      </Button>
    </Tooltip>
  );
}

function copy(value: string | (() => Promise<string>)): Promise<void> {
  if (typeof value === "string") return navigator.clipboard.writeText(value);
  const text = value();
  if (typeof ClipboardItem !== "undefined") {
    const blob = text.then((t) => new Blob([t], { type: "text/plain" }));
    return navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]);
  }
  return text.then((t) => navigator.clipboard.writeText(t));
}
