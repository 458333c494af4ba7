import { Link } from "react-router";
import { siteName } from "../lib/site-config.ts";
import iconZap from "./icons/zap.ts";
import { Icon } from "./ui/icon.tsx";

export function Logo({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <Link to="/" onClick={onNavigate} className="logo">
      <span className="logo-badge">
        <Icon svg={iconZap} className="logo-bolt" />
      </span>
      <span>{siteName}</span>
    </Link>
  );
}
