import type { ReactNode } from "react";
import { Icon } from "./icon.tsx";

/** Opens in a new tab without giving the other site a handle on this one. */
export function ExternalLink({
  href,
  children,
  className = "",
}: {
  href: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      className={`inline-flex items-center gap-2 font-medium text-accent hover:underline ${className}`}
    >
      {children}
      <Icon name="external-link" className="size-4" />
      <span className="sr-only">(opens in a new tab)</span>
    </a>
  );
}
