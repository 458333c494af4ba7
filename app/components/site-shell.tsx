import { type ReactNode, useCallback, useState } from "react";
import { Footer } from "./footer.tsx";
import { Header } from "./header.tsx";
import { DesktopSidebar, MobileSidebar } from "./sidebar.tsx";

export function SiteShell({ children }: { children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const toggleMenu = useCallback(() => setMenuOpen((open) => !open), []);
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  return (
    <>
      <a
        href="#main"
        className="sr-only z-50 rounded bg-accent px-4 py-2 text-ink focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        Skip to content
      </a>
      <Header menuOpen={menuOpen} onToggleMenu={toggleMenu} />
      <DesktopSidebar />
      <MobileSidebar open={menuOpen} onClose={closeMenu} />
      <div className="flex min-h-screen flex-col lg:pl-[280px]">
        <main
          id="main"
          tabIndex={-1}
          className="mx-auto w-full max-w-5xl flex-1 px-5 pt-24 pb-8 sm:px-8"
        >
          {children}
        </main>
        <Footer />
      </div>
    </>
  );
}
