/**
 * The signed-in layout (SPEC 2 "Shell", SPEC 9 layout): a 278px sidebar with the account
 * name, the three menu items (and Activity and Access tokens for Owners and Admins, README "Roles
 * and invitations", "Automation"), Documentation, and who is signed in: their name and email
 * open the account menu (SPEC 1 "popovers"), with their Sessions (README "Sessions"), their
 * Passkeys (docs/users/passkeys.md), their Two-step sign-in (README "Two-step sign-in") and
 * Logout; the email verification banner above the content while the user's address is unverified; the content area renders only once both
 * the session and the account have loaded; a footer with terms, privacy and copyright. Its
 * first Tab stop is 'Skip to content' (WCAG 2.4.1), which moves the focus past the sidebar to
 * the main region.
 */
import { type MouseEvent, Suspense, lazy } from "react";
import { Outlet, useLocation } from "react-router";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import {
  ActivityIcon,
  BookIcon,
  BrandMark,
  CardIcon,
  ChevronsIcon,
  ExternalIcon,
  KeyIcon,
  LogoutIcon,
  MonitorIcon,
  ShieldIcon,
  UserIcon,
  UsersIcon,
  WarningIcon,
} from "@/components/icons";
import { Link, NavLink, isActivePath } from "@/components/Link";
import { InfoBox } from "@/components/ui/InfoBox";
import { MenuLink, MenuSeparator, PopoverMenu } from "@/components/ui/Popover";
import { Spinner } from "@/components/ui/Spinner";
import { config } from "@/config";
import { useAccount } from "@/features/account";
import { formatAmount } from "@/lib/money";
import { canManageAccessTokens, canReadActivity } from "@/lib/permissions";
import { showsVerificationBanner, useSession } from "@/features/session";

import styles from "./Shell.module.css";

/** Shown only while the user's address is unverified: its code (and the text field's) loads
 * then, with the page (the first-load budget, README "Performance"). */
const EmailVerificationBanner = lazy(() =>
  import("@/features/session/components/EmailVerificationBanner").then((m) => ({
    default: m.EmailVerificationBanner,
  })),
);

const MENU = [
  { to: "/account", label: "Account Information", Icon: UserIcon },
  { to: "/users", label: "User Management", Icon: UsersIcon },
  { to: "/billing", label: "Billing & Subscription", Icon: CardIcon },
];
const ACTIVITY = { to: "/activity", label: "Activity", Icon: ActivityIcon };
const ACCESS_TOKENS = { to: "/access-tokens", label: "Access tokens", Icon: KeyIcon };
/** The signed-in person's own pages, in the account menu. */
const ACCOUNT_MENU = [
  { to: "/sessions", label: "Sessions", Icon: MonitorIcon },
  { to: "/passkeys", label: "Passkeys", Icon: KeyIcon },
  { to: "/two-step-sign-in", label: "Two-step sign-in", Icon: ShieldIcon },
];

export function Component() {
  const session = useSession();
  const account = useAccount();
  const user = session.data?.session.user;
  const accountName = session.data?.session.account.name ?? account.data?.account.name;
  const ready = session.data !== undefined && account.data !== undefined;
  const loadError = session.error ?? account.error;
  const { pathname } = useLocation();
  const menu = [
    ...MENU,
    ...(canReadActivity(user?.role) ? [ACTIVITY] : []),
    ...(canManageAccessTokens(user?.role) ? [ACCESS_TOKENS] : []),
  ];

  return (
    <div className={styles.layout}>
      <a className={styles.skipLink} href={`#${MAIN_ID}`} onClick={skipToContent}>
        Skip to content
      </a>
      <aside className={styles.sidebar}>
        <div className={styles.brand}>
          <BrandMark />
          <span>{config.productName}</span>
        </div>

        <div className={styles.account}>
          <span className={styles.accountLabel}>Account</span>
          <span className={styles.accountName} data-testid="sidebar-account-name">
            {accountName ?? "\u00a0"}
          </span>
        </div>

        <nav className={styles.nav} aria-label="Main">
          {menu.map(({ to, label, Icon }) => (
            <NavLink
              key={to}
              to={to}
              className={({ isActive }) => `${styles.navLink} ${isActive ? styles.active : ""}`}
            >
              <Icon width={18} height={18} />
              {label}
            </NavLink>
          ))}
        </nav>

        {account.data?.account.subscription.paymentFailedAt ? (
          <Link to="/billing" className={styles.pastDue} data-testid="sidebar-past-due">
            <WarningIcon width={16} height={16} />
            {pastDueText(account.data.account.subscription.pastDue)}
          </Link>
        ) : null}

        <div className={styles.sidebarBottom}>
          <a className={styles.navLink} href={config.docsUrl} target="_blank" rel="noreferrer">
            <BookIcon width={18} height={18} />
            Documentation
            <ExternalIcon className={styles.external} />
          </a>
          {user ? (
            <PopoverMenu
              side="top"
              label="Your account"
              className={`${styles.user} ${ACCOUNT_MENU.some((item) => isActivePath(pathname, item.to)) ? styles.active : ""}`}
              data-testid="account-menu"
              trigger={
                <>
                  <span className={styles.avatar} aria-hidden>
                    {initials(user.firstName, user.lastName, user.email)}
                  </span>
                  <span className={styles.who}>
                    <span className={styles.whoName}>
                      {user.firstName} {user.lastName}
                    </span>
                    <span className={styles.whoEmail}>{user.email}</span>
                  </span>
                  <ChevronsIcon className={styles.chevron} />
                </>
              }
            >
              {ACCOUNT_MENU.map(({ to, label, Icon }) => (
                <MenuLink key={to} to={to}>
                  <Icon width={16} height={16} />
                  {label}
                </MenuLink>
              ))}
              <MenuSeparator />
              <MenuLink to="/logout" data-testid="logout-link">
                <LogoutIcon width={16} height={16} />
                Logout
              </MenuLink>
            </PopoverMenu>
          ) : null}
        </div>
      </aside>

      <div className={styles.main}>
        <main className={styles.content} id={MAIN_ID} tabIndex={-1}>
          {ready ? (
            // The banner and the page appear together: a banner arriving later would push the
            // page down.
            <Suspense fallback={<ContentSpinner />}>
              {showsVerificationBanner(user) ? <EmailVerificationBanner /> : null}
              <Outlet />
            </Suspense>
          ) : loadError ? (
            <InfoBox variant="error" title="Your account could not be loaded">
              {errorMessage(loadError)}
            </InfoBox>
          ) : (
            <ContentSpinner />
          )}
        </main>
        <footer className={styles.footer}>
          <a href={config.termsUrl}>Terms of Service</a>
          <a href={config.privacyUrl}>Privacy Policy</a>
          <span>
            © {new Date().getFullYear()} {config.companyName}
          </span>
        </footer>
      </div>
    </div>
  );
}

const MAIN_ID = "main-content";

/** Focus the main region without a `#main-content` in the address (the router owns it). */
function skipToContent(event: MouseEvent<HTMLAnchorElement>) {
  event.preventDefault();
  document.getElementById(MAIN_ID)?.focus();
}

/** README "Billing", past due: the sidebar says how much, when Stripe said it. */
function pastDueText(pastDue: components["schemas"]["Subscription"]["pastDue"]): string {
  return pastDue ? `${formatAmount(pastDue.amountDue, pastDue.currency)} past due` : "Payment past due";
}

function ContentSpinner() {
  return (
    <div className={styles.loading}>
      <Spinner size={20} label="Loading your account" />
    </div>
  );
}

function initials(firstName: string, lastName: string, email: string): string {
  const letters = `${firstName.trim().charAt(0)}${lastName.trim().charAt(0)}`;
  return (letters || email.charAt(0)).toUpperCase();
}
