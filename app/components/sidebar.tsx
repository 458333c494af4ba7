import { type ReactNode, useEffect } from "react";
import { NavLink, useLocation } from "react-router";
import { mainRoutes } from "../navigation.ts";
import { Logo } from "./logo.tsx";
import { Icon } from "./ui/icon.tsx";
import { Modal } from "./ui/modal.tsx";

const desktopQuery = "(min-width: 1024px)";

function SidebarBody({
  onNavigate,
  closeButton,
}: {
  onNavigate?: () => void;
  closeButton?: ReactNode;
}) {
  return (
    <>
      <div className="flex h-16 shrink-0 items-center justify-between gap-2 pr-3 pl-5">
        <Logo onNavigate={onNavigate} />
        {closeButton}
      </div>
      <nav aria-label="Main" className="flex-1 overflow-y-auto px-3 py-4">
        <ul className="space-y-1">
          {mainRoutes.map((route) => (
            <li key={route.path}>
              <NavLink to={route.path} end onClick={onNavigate} className="nav-link">
                {route.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="border-t border-line px-5 py-4 text-sm text-slate-400">
        <p>© 2025 Engage with Engineer</p>
        <p>All rights reserved</p>
      </div>
    </>
  );
}

const panelClasses = "sidebar-panel";

/** Always on screen from 1024 px up. */
export function DesktopSidebar() {
  return (
    <aside className={`fixed inset-y-0 left-0 z-40 hidden lg:flex ${panelClasses}`}>
      <SidebarBody />
    </aside>
  );
}

/** Below 1024 px: a drawer over a dimmed, blurred backdrop, with focus kept inside. */
export function MobileSidebar({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { pathname } = useLocation();

  // A route change (link, back button) closes the drawer.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation only
  useEffect(() => onClose(), [pathname]);

  // Growing past the breakpoint shows the permanent sidebar, so the drawer goes.
  useEffect(() => {
    const query = window.matchMedia(desktopQuery);
    const close = () => query.matches && onClose();
    query.addEventListener("change", close);
    return () => query.removeEventListener("change", close);
  }, [onClose]);

  return (
    <Modal
      open={open}
      onClose={onClose}
      aria-label="Menu"
      className="m-0 h-full max-h-none w-full max-w-none bg-transparent p-0 backdrop:bg-transparent"
    >
      <div
        data-testid="sidebar-backdrop"
        aria-hidden="true"
        onClick={onClose}
        className="fixed inset-0 animate-fade-in bg-black/60 backdrop-blur-sm"
      />
      <div className={`relative animate-slide-in ${panelClasses}`}>
        <SidebarBody
          onNavigate={onClose}
          closeButton={
            <button type="button" aria-label="Close menu" onClick={onClose} className="icon-button">
              <Icon name="x" />
            </button>
          }
        />
      </div>
    </Modal>
  );
}
