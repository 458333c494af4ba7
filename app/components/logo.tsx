import { Link } from "react-router";
import { siteName } from "../lib/site-config.ts";
import iconZap from "./icons/zap.ts";
import { Icon } from "./ui/icon.tsx";

export function Logo({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <Link
      to="/"
      onClick={onNavigate}
      className="flex items-center gap-3 rounded-md text-lg font-bold text-slate-100"
    >
      <span className="grid size-10 place-items-center rounded-xl bg-accent/10 ring-1 ring-accent/40 shadow-[0_0_18px_rgba(34,197,94,0.55)]">
        <Icon
          svg={iconZap}
          className="size-6 fill-accent text-accent drop-shadow-[0_0_6px_rgba(34,197,94,0.9)]"
        />
      </span>
      <span>{siteName}</span>
    </Link>
  );
}
