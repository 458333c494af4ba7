import { siteName } from "../lib/site-config.ts";
import { Icon } from "./ui/icon.tsx";

export function Logo() {
  return (
    <a href="/" className="logo">
      <span className="logo-badge">
        <Icon name="zap" className="logo-bolt" />
      </span>
      <span>{siteName}</span>
    </a>
  );
}
