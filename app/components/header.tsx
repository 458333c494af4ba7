import { useEffect, useState } from "react";
import iconMenu from "./icons/menu.ts";
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
    <header
      data-scrolled={scrolled}
      className={`fixed inset-x-0 top-0 z-30 flex h-16 items-center gap-3 px-4 transition-[background-color,box-shadow] duration-300 lg:left-[280px] ${
        scrolled ? "bg-ink/90 shadow-lg shadow-black/40 backdrop-blur-md" : "bg-transparent"
      }`}
    >
      <button
        type="button"
        aria-label="Toggle menu"
        aria-expanded={menuOpen}
        onClick={onToggleMenu}
        className="grid size-10 shrink-0 place-items-center rounded-lg text-slate-200 hover:bg-white/10 lg:hidden"
      >
        <Icon svg={iconMenu} className="size-6" />
      </button>
      <div className="min-w-0 flex-1 overflow-hidden">
        <p className="marquee-track w-full animate-marquee whitespace-nowrap text-lg font-bold tracking-wide text-slate-100">
          <span>Engage</span> <span className="text-accent">with</span> <span>Engineer</span>
        </p>
      </div>
    </header>
  );
}
