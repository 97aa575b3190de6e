/**
 * In-app links: an `<a href>` whose plain left click navigates in the SPA (react-router's
 * `useHref` and `useLinkClickHandler`, which leave a modified or middle click, or another
 * target, to the browser), and `NavLink`, which marks the link of the current page.
 *
 * Used instead of react-router's `Link` and `NavLink`: theirs carry the framework mode's route
 * prefetching and view transitions, which this SPA does not use, ~2.7 KB gzip on every route
 * (bench/bundle/measure.mjs). `npm run lint` refuses them from "react-router".
 */
import type { AnchorHTMLAttributes, MouseEvent } from "react";
import { type To, useHref, useLinkClickHandler, useLocation, useResolvedPath } from "react-router";

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> {
  to: To;
  /** Replace the current history entry instead of adding one. */
  replace?: boolean;
}

export function Link({ to, replace, onClick, target, ...rest }: LinkProps) {
  const href = useHref(to);
  const navigate = useLinkClickHandler<HTMLAnchorElement>(to, { replace, target });
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (!event.defaultPrevented) navigate(event);
  };
  return <a {...rest} href={href} target={target} onClick={handleClick} />;
}

export interface NavLinkProps extends Omit<LinkProps, "className"> {
  /** The class names, given whether the link is the current page's. */
  className?: string | ((state: { isActive: boolean }) => string);
}

/**
 * A link that is active on its own path and the paths below it (as react-router's NavLink
 * without `end`, case-insensitively), and then has `aria-current="page"`.
 */
export function NavLink({ className, ...rest }: NavLinkProps) {
  const { pathname } = useLocation();
  const isActive = isActivePath(pathname, useResolvedPath(rest.to).pathname);
  return (
    <Link
      {...rest}
      aria-current={isActive ? "page" : undefined}
      className={typeof className === "function" ? className({ isActive }) : className}
    />
  );
}

/** Whether `current` is `target` or a path below it, case-insensitively (react-router's rule). */
export function isActivePath(current: string, target: string): boolean {
  const here = current.toLowerCase();
  const there = target.toLowerCase();
  if (here === there) return true;
  // "/users/" is active on "/users/1" as "/users" is; "/" only on itself.
  const slashAt = there !== "/" && there.endsWith("/") ? there.length - 1 : there.length;
  return here.startsWith(there.slice(0, slashAt)) && here.charAt(slashAt) === "/";
}
