import type { ReactNode } from "react";
import { siteConfig, siteName } from "../lib/site-config.ts";
import { builtYear } from "../lib/site-owner.ts";
import { legalRoutes, mainRoutes } from "../navigation.ts";
import { FeedLinks } from "./feed-links.tsx";
import { Icon } from "./ui/icon.tsx";

const footerRoutes = mainRoutes.filter((route) => route.path !== "/");

/** Plain HTML; `children` is the subscription form, an island of its own. */
export function Footer({ children }: { children: ReactNode }) {
  return (
    <footer className="mt-16 border-t border-line bg-panel/60">
      <div className="mx-auto grid max-w-6xl gap-10 px-6 py-12 md:grid-cols-3">
        <section aria-labelledby="footer-about">
          <h2 id="footer-about" className="footer-heading">
            {siteName}
          </h2>
          <p className="footer-text">
            Engineering explained with care: engines, electric and fuel-cell vehicles, AI for
            engineers, everyday science and lessons from the epics.
          </p>
          <a
            href={`mailto:${siteConfig.contactEmail}`}
            className="mt-4 inline-flex items-center gap-2 text-sm text-accent hover:underline"
          >
            <Icon name="mail" className="size-4" />
            {siteConfig.contactEmail}
          </a>
          <FeedLinks className="mt-4" />
        </section>
        <nav aria-label="Footer">
          <h2 className="footer-heading">Explore</h2>
          <ul className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
            {[...footerRoutes, ...legalRoutes].map((route) => (
              <li key={route.path}>
                <a href={route.path} className="text-slate-400 hover:text-accent">
                  {route.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <section aria-labelledby="footer-newsletter">
          <h2 id="footer-newsletter" className="footer-heading">
            Newsletter
          </h2>
          <p className="footer-text">
            New articles and stories in your inbox, now and then. No spam.
          </p>
          {children}
        </section>
      </div>
      <p className="border-t border-line py-4 text-center text-xs text-slate-400">
        © {builtYear} {siteName}. All rights reserved.
      </p>
    </footer>
  );
}
