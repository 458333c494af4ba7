import type { ReactNode } from "react";
import { builtYear } from "../lib/site-owner.ts";
import { mainRoutes } from "../navigation.ts";
import { Logo } from "./logo.tsx";

/**
 * The logo, the eight pages (the current one marked) and the sidebar's footer;
 * the drawer (site-header.astro) passes its close button.
 */
export function SidebarBody({
  currentPath,
  closeButton,
}: {
  currentPath: string;
  closeButton?: ReactNode;
}) {
  return (
    <>
      <div className="flex h-16 shrink-0 items-center justify-between gap-2 pr-3 pl-5">
        <Logo />
        {closeButton}
      </div>
      <nav aria-label="Main" className="flex-1 overflow-y-auto px-3 py-4">
        <ul className="space-y-1">
          {mainRoutes.map((route) => (
            <li key={route.path}>
              <a
                href={route.path}
                aria-current={route.path === currentPath ? "page" : undefined}
                className="nav-link"
              >
                {route.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="border-t border-line px-5 py-4 text-sm text-slate-400">
        <p>© {builtYear} Engage with Engineer</p>
        <p>All rights reserved</p>
      </div>
    </>
  );
}

/** Always on screen from 1024 px up; plain HTML, no script. */
export function DesktopSidebar({ currentPath }: { currentPath: string }) {
  return (
    <aside className="sidebar-panel fixed inset-y-0 left-0 z-40 hidden lg:flex">
      <SidebarBody currentPath={currentPath} />
    </aside>
  );
}
