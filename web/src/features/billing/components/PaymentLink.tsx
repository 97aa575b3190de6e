import { Link } from "@/components/Link";
import { Button } from "@/components/ui/Button";
import buttonStyles from "@/components/ui/Button.module.css";
import { DisabledReason } from "@/components/ui/DisabledReason";

/**
 * Why the signed-in user may not change billing (README "Roles and invitations": billing is
 * for Owners), or null when they may.
 */
export type Blocked = string | null;

/** A link to /payment that looks like a button; disabled, with the reason, for non-Owners. */
export function PaymentLink({ blocked, children }: { blocked: Blocked; children: string }) {
  return blocked ? (
    <DisabledReason reason={blocked}>
      <Button variant="secondary" disabled>
        {children}
      </Button>
    </DisabledReason>
  ) : (
    <Link to="/payment" className={`${buttonStyles.button} ${buttonStyles.secondary}`}>
      {children}
    </Link>
  );
}
