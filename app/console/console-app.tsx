import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Toaster, toast } from "sonner";
import type { WhoAmIResponse } from "../../contract/console.ts";
import { consoleApi, errorMessage } from "./console-api.ts";
import { LiveProvider, useLive } from "./live.tsx";
import { buttonClass } from "./ui.tsx";
import { AuditView } from "./views/audit-view.tsx";
import { BansView } from "./views/bans-view.tsx";
import { BookingsView } from "./views/bookings-view.tsx";
import { CommentsView } from "./views/comments-view.tsx";
import { EnquiriesView } from "./views/enquiries-view.tsx";
import { FollowersView } from "./views/followers-view.tsx";
import { HealthView } from "./views/health-view.tsx";
import { NewsletterView } from "./views/newsletter-view.tsx";
import { OverviewView } from "./views/overview-view.tsx";
import { QuestionsView } from "./views/questions-view.tsx";
import { ReadersView } from "./views/readers-view.tsx";
import { SecurityView } from "./views/security-view.tsx";
import { SubscribersView } from "./views/subscribers-view.tsx";

/**
 * The cache of the console's reads (useConsoleData). No retries and no refetch
 * on focus: a screen reads when it opens (showing what it read last time
 * meanwhile), when its call changes, and when told to: by its own actions or
 * by a live comment event (live.tsx).
 */
const consoleQueries = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

export const consoleViews = {
  overview: { title: "Overview", path: "/admin", View: OverviewView },
  comments: { title: "Comments", path: "/admin/comments", View: CommentsView },
  bans: { title: "Bans", path: "/admin/bans", View: BansView },
  enquiries: { title: "Enquiries", path: "/admin/enquiries", View: EnquiriesView },
  bookings: { title: "Bookings", path: "/admin/bookings", View: BookingsView },
  readers: { title: "Readers", path: "/admin/readers", View: ReadersView },
  questions: { title: "Questions", path: "/admin/questions", View: QuestionsView },
  followers: { title: "Followers", path: "/admin/followers", View: FollowersView },
  subscribers: { title: "Subscribers", path: "/admin/subscribers", View: SubscribersView },
  newsletter: { title: "Newsletter", path: "/admin/newsletter", View: NewsletterView },
  health: { title: "Health", path: "/admin/health", View: HealthView },
  audit: { title: "Audit trail", path: "/admin/audit", View: AuditView },
  security: { title: "Sign-in and passkeys", path: "/admin/security", View: SecurityView },
} as const;

type ConsoleViewName = keyof typeof consoleViews;

/**
 * A link of the console's nav; "Comments" carries the number awaiting
 * approval as a badge, named "Comments 3 awaiting approval" for screen readers.
 */
function NavLink({ name, current }: { name: ConsoleViewName; current: boolean }) {
  const { pending } = useLive();
  const { title, path } = consoleViews[name];
  const badge = name === "comments" && pending ? pending : null;
  return (
    <a
      href={path}
      aria-current={current ? "page" : undefined}
      className={`block rounded-lg px-3 py-2 text-sm ${current ? "bg-accent/15 text-accent" : "text-slate-300 hover:bg-white/5"}`}
    >
      {title}
      {badge ? (
        <>
          {" "}
          <span className="ml-1 inline-block min-w-6 rounded-full bg-amber-300 px-1.5 text-center text-xs font-bold text-ink">
            {badge}
          </span>
          <span className="sr-only"> awaiting approval</span>
        </>
      ) : null}
    </a>
  );
}

/**
 * The owner's console (docs/decisions/012-owner-console.md): one page per
 * view, each the same island; it checks the session first and sends a
 * signed-out browser to the sign-in page.
 */
export function ConsoleApp({ view }: { view: ConsoleViewName }) {
  const [me, setMe] = useState<WhoAmIResponse | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    // A 401 has already sent the browser to the sign-in page (console-api.ts).
    consoleApi("GET /admin/session").then(setMe, (error) => setFailure(errorMessage(error)));
  }, []);
  const { title, View } = consoleViews[view];

  async function signOut() {
    try {
      await consoleApi("POST /admin/sign-out");
      window.location.assign("/admin/sign-in");
    } catch (error) {
      toast.error(errorMessage(error));
    }
  }

  if (!me) {
    return (
      <main className="p-8 text-slate-400">
        <h1 className="sr-only">{title}</h1>
        {failure ? (
          <p role="alert" className="text-red-300">
            The console cannot reach the server: {failure}
          </p>
        ) : (
          <p>Checking your session…</p>
        )}
      </main>
    );
  }
  return (
    <QueryClientProvider client={consoleQueries}>
      <LiveProvider>
        <div className="min-h-screen lg:flex">
          {/* Past the nav's thirteen links, on every screen, as on the reading pages. */}
          <a
            href="#content"
            className="sr-only z-50 rounded bg-accent px-4 py-2 text-ink focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
          >
            Skip to content
          </a>
          <header className="border-b border-line bg-panel lg:w-60 lg:shrink-0 lg:border-r lg:border-b-0">
            <div className="px-5 py-4">
              <p className="font-semibold text-slate-100">Engage with Engineer</p>
              <p className="text-sm text-slate-400">Owner's console</p>
            </div>
            <nav aria-label="Console" className="px-3 pb-4">
              <ul className="flex flex-wrap gap-1 lg:flex-col">
                {(Object.keys(consoleViews) as ConsoleViewName[]).map((name) => (
                  <li key={name}>
                    <NavLink name={name} current={name === view} />
                  </li>
                ))}
              </ul>
              <button type="button" onClick={signOut} className={`${buttonClass} mt-4 ml-3`}>
                Sign out
              </button>
            </nav>
          </header>
          <main id="content" className="min-w-0 flex-1 px-5 py-6 sm:px-8">
            <h1 className="mb-6 text-2xl font-bold text-slate-100">{title}</h1>
            <View me={me} />
          </main>
          <Toaster theme="dark" position="bottom-right" />
        </div>
      </LiveProvider>
    </QueryClientProvider>
  );
}
