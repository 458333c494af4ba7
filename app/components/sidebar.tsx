import { X } from "lucide-react";
import { Dialog } from "radix-ui";
import { useEffect } from "react";
import { NavLink, useLocation } from "react-router";
import { mainRoutes } from "../navigation.ts";
import { Logo } from "./logo.tsx";

const desktopQuery = "(min-width: 1024px)";

function SidebarBody({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <>
      <div className="flex h-16 shrink-0 items-center px-5">
        <Logo onNavigate={onNavigate} />
      </div>
      <nav aria-label="Main" className="flex-1 overflow-y-auto px-3 py-4">
        <ul className="space-y-1">
          {mainRoutes.map((route) => (
            <li key={route.path}>
              <NavLink
                to={route.path}
                end
                onClick={onNavigate}
                className={({ isActive }) =>
                  `block rounded-lg px-4 py-2.5 text-[0.95rem] transition-colors ${
                    isActive
                      ? "bg-accent/15 font-semibold text-accent ring-1 ring-accent/40"
                      : "text-slate-300 hover:bg-white/5 hover:text-slate-100"
                  }`
                }
              >
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

const panelClasses = "flex w-[280px] flex-col border-r border-line bg-panel";

/** Always on screen from 1024 px up. */
export function DesktopSidebar() {
  return (
    <aside className={`fixed inset-y-0 left-0 z-40 hidden lg:flex ${panelClasses}`}>
      <SidebarBody />
    </aside>
  );
}

/** Below 1024 px: a drawer over a dimmed, blurred backdrop, with focus kept inside. */
export function MobileSidebar({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const { pathname } = useLocation();

  // A route change (link, back button) closes the drawer.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation only
  useEffect(() => onOpenChange(false), [pathname]);

  // Growing past the breakpoint leaves the permanent sidebar, so the drawer goes.
  useEffect(() => {
    const query = window.matchMedia(desktopQuery);
    const close = () => query.matches && onOpenChange(false);
    query.addEventListener("change", close);
    return () => query.removeEventListener("change", close);
  }, [onOpenChange]);

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay
          data-testid="sidebar-backdrop"
          className="fixed inset-0 z-40 bg-black/60 backdrop-blur-sm data-[state=closed]:animate-fade-out data-[state=open]:animate-fade-in lg:hidden"
        />
        <Dialog.Content
          aria-describedby={undefined}
          className={`fixed inset-y-0 left-0 z-50 data-[state=closed]:animate-slide-out data-[state=open]:animate-slide-in lg:hidden ${panelClasses}`}
        >
          <Dialog.Title className="sr-only">Menu</Dialog.Title>
          <Dialog.Close
            aria-label="Close menu"
            className="absolute top-3 right-3 grid size-10 place-items-center rounded-lg text-slate-300 hover:bg-white/10"
          >
            <X aria-hidden="true" className="size-5" />
          </Dialog.Close>
          <SidebarBody onNavigate={() => onOpenChange(false)} />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
