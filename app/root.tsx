import type { ReactNode } from "react";
import { Links, Meta, Outlet, Scripts, ScrollRestoration } from "react-router";
import "./app.css";
import { SiteShell } from "./components/site-shell.tsx";

export function Layout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0b0f14" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return (
    <SiteShell>
      <Outlet />
    </SiteShell>
  );
}

export function HydrateFallback() {
  return <p className="p-8 text-slate-400">Loading…</p>;
}

export function ErrorBoundary() {
  return (
    <SiteShell>
      <h1 className="text-3xl font-bold text-slate-100">Something went wrong</h1>
      <p className="mt-4 text-slate-300">
        This page could not be shown. Please reload it, or go back to the{" "}
        <a href="/" className="text-accent underline">
          home page
        </a>
        .
      </p>
    </SiteShell>
  );
}
