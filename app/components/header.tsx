import { useEffect, useState } from "react";
import { Icon } from "./ui/icon.tsx";

const scrollThreshold = 50;

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

export function Header({
  menuOpen,
  onToggleMenu,
}: {
  menuOpen: boolean;
  onToggleMenu: () => void;
}) {
  const scrolled = useScrolledPast(scrollThreshold);
  return (
    <header data-scrolled={scrolled} className="site-header">
      <button
        type="button"
        aria-label="Toggle menu"
        aria-expanded={menuOpen}
        onClick={onToggleMenu}
        className="icon-button lg:hidden"
      >
        <Icon name="menu" className="size-6" />
      </button>
      <div className="min-w-0 flex-1 overflow-hidden">
        <p className="marquee-track">
          <span>Engage</span> <span className="text-accent">with</span> <span>Engineer</span>
        </p>
      </div>
    </header>
  );
}
