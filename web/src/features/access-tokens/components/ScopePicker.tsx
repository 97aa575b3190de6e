/**
 * The scopes of a new token (README "Automation"), area by area as read and write checkboxes.
 * A scope the signed-in user's role does not hold is disabled with the reason as a tooltip
 * (lib/token-scopes.ts mirrors the API's table: an Admin gives neither billing:write nor
 * owners:write), so the API's 403 ScopeBeyondRole is only for a role changed meanwhile.
 */
import { DisabledReason } from "@/components/ui/DisabledReason";
import type { TokenScope } from "@/lib/token-scopes";

import { SCOPE_AREAS, type ScopeArea, type ScopeChoice } from "../lib/scopes";

import styles from "./create-token.module.css";

interface ScopePickerProps {
  chosen: ReadonlySet<TokenScope>;
  onToggle: (scope: TokenScope) => void;
  /** Why the signed-in user may not give `scope`, or null. */
  whyNot: (scope: TokenScope) => string | null;
  /** Shown under the legend and linked to the group (an error or the hint). */
  describedBy: string;
}

export function ScopePicker({ chosen, onToggle, whyNot, describedBy }: ScopePickerProps) {
  return (
    <table className={styles.scopeTable} aria-describedby={describedBy}>
      <thead>
        <tr>
          <th scope="col" className={styles.areaColumn}>
            Area
          </th>
          <th scope="col">Read</th>
          <th scope="col">Write</th>
        </tr>
      </thead>
      <tbody>
        {SCOPE_AREAS.map((area) => (
          <tr key={area.name}>
            <th scope="row">{area.name}</th>
            <ScopeCell area={area} choice={area.read} chosen={chosen} onToggle={onToggle} whyNot={whyNot} />
            <ScopeCell area={area} choice={area.write} chosen={chosen} onToggle={onToggle} whyNot={whyNot} />
          </tr>
        ))}
      </tbody>
    </table>
  );
}

interface ScopeCellProps extends Omit<ScopePickerProps, "describedBy"> {
  area: ScopeArea;
  choice: ScopeChoice | undefined;
}

function ScopeCell({ area, choice, chosen, onToggle, whyNot }: ScopeCellProps) {
  if (!choice) {
    return (
      <td>
        <span className={styles.none} aria-label="None">
          —
        </span>
      </td>
    );
  }
  const reason = whyNot(choice.scope);
  const kind = choice.scope.endsWith(":read") ? "read" : "write";
  return (
    <td>
      <DisabledReason reason={reason} block>
        <label className={`${styles.scopeChoice} ${reason ? styles.scopeDisabled : ""}`}>
          <input
            type="checkbox"
            name="scopes"
            value={choice.scope}
            aria-label={`${area.name}: ${kind} (${choice.scope})`}
            checked={chosen.has(choice.scope)}
            disabled={reason !== null}
            onChange={() => onToggle(choice.scope)}
          />
          <span>
            <code>{choice.scope}</code>
            {choice.text}
          </span>
        </label>
      </DisabledReason>
    </td>
  );
}
