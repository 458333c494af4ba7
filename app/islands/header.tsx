import { Dialog } from "radix-ui";
import { useEffect, useState } from "react";
import { SidebarBody } from "../components/sidebar.tsx";
import { Icon } from "../components/ui/icon.tsx";
import { SearchLauncher } from "../features/search/search-launcher.tsx";

const scrollThreshold = 50;
const desktopQuery = "(min-width: 1024px)";

function useScrolledPast(threshold: number) {
  const [scrolled, setScrolled] = useState(false);
  useEffect(() => {
    const update = () => setScrolled(window.scrollY > threshold);
    update();
    window.addEventListener("scroll", update, { passive: true });
    return () => window.removeEventListener("scroll", update);
  }, [threshold]);
  return scrolled;
}

/**
 * The fixed top bar (an island): turns opaque past 50 px of scrolling and,
 * below 1024 px, opens the sidebar as a drawer (a Radix dialog: focus kept
 * inside, Esc and the backdrop close it, focus returns to the toggle).
 */
export function Header({ currentPath }: { currentPath: string }) {
  const scrolled = useScrolledPast(scrollThreshold);
  const [menuOpen, setMenuOpen] = useState(false);

  // Growing past the breakpoint shows the permanent sidebar, so the drawer goes.
  useEffect(() => {
    const query = window.matchMedia(desktopQuery);
    const close = () => query.matches && setMenuOpen(false);
    query.addEventListener("change", close);
    return () => query.removeEventListener("change", close);
  }, []);

  return (
    <Dialog.Root open={menuOpen} onOpenChange={setMenuOpen}>
      <header data-scrolled={scrolled} className="site-header">
        <Dialog.Trigger aria-label="Toggle menu" className="icon-button lg:hidden">
          <Icon name="menu" className="size-6" />
        </Dialog.Trigger>
        <div className="min-w-0 flex-1 overflow-hidden">
          <p className="marquee-track">
            <span>Engage</span> <span className="text-accent">with</span> <span>Engineer</span>
          </p>
        </div>
        <SearchLauncher />
      </header>
      <Dialog.Portal>
        <Dialog.Overlay
          data-testid="sidebar-backdrop"
          className="fixed inset-0 z-40 animate-fade-in bg-black/60 backdrop-blur-sm"
        />
        <Dialog.Content
          aria-describedby={undefined}
          className="sidebar-panel fixed inset-y-0 left-0 z-50 animate-slide-in"
        >
          <Dialog.Title className="sr-only">Menu</Dialog.Title>
          <SidebarBody
            currentPath={currentPath}
            onNavigate={() => setMenuOpen(false)}
            closeButton={
              <Dialog.Close aria-label="Close menu" className="icon-button">
                <Icon name="x" />
              </Dialog.Close>
            }
          />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
