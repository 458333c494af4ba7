import { useEffect, useState } from "react";
import { Link, useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import { ContentImage } from "../components/ui/content-image.tsx";
import { Prose } from "../components/ui/prose.tsx";
import { fireConfetti, stopConfetti } from "../lib/confetti.ts";
import { pageMeta } from "../lib/meta.ts";

export function loader() {
  const { home, quotes } = siteContent();
  return { home, quotes };
}

export const meta = ({ loaderData }: { loaderData: ReturnType<typeof loader> }) =>
  pageMeta({
    title: loaderData.home.headline,
    description: loaderData.home.description,
    path: "/",
  });

const rotationMs = 10_000;
const fadeMs = 500;

/** Rotates the quotes every 10 s with a 500 ms fade (SPEC §4). */
function QuoteCard({ quotes }: { quotes: { text: string; author: string }[] }) {
  const [index, setIndex] = useState(0);
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    let fade: ReturnType<typeof setTimeout> | undefined;
    const timer = setInterval(() => {
      setVisible(false);
      fade = setTimeout(() => {
        setIndex((current) => (current + 1) % quotes.length);
        setVisible(true);
      }, fadeMs);
    }, rotationMs);
    return () => {
      clearInterval(timer);
      clearTimeout(fade);
    };
  }, [quotes.length]);
  const quote = quotes[index];
  if (!quote) return null;
  return (
    <figure
      data-testid="quote-card"
      className="rounded-2xl border border-accent/30 bg-panel p-6 shadow-[0_0_30px_rgba(34,197,94,0.08)]"
    >
      <div className={`transition-opacity duration-500 ${visible ? "opacity-100" : "opacity-0"}`}>
        <blockquote className="text-lg leading-relaxed text-slate-100 italic">
          “{quote.text}”
        </blockquote>
        <figcaption className="mt-3 text-sm font-medium text-accent">— {quote.author}</figcaption>
      </div>
    </figure>
  );
}

/** A burst every 10 s while the home page is open (SPEC §4), none under reduced motion. */
function useConfettiEvery(ms: number) {
  useEffect(() => {
    const timer = setInterval(() => void fireConfetti(), ms);
    return () => {
      clearInterval(timer);
      void stopConfetti();
    };
  }, [ms]);
}

export default function Home() {
  const { home, quotes } = useLoaderData<typeof loader>();
  useConfettiEvery(rotationMs);
  const [first, second] = home.images;
  return (
    <div className="space-y-12">
      <section className="grid items-center gap-8 lg:grid-cols-[1.2fr_1fr]">
        <div>
          <h1 className="text-4xl font-bold tracking-tight text-slate-50 sm:text-5xl">
            {home.headline}
          </h1>
          <Prose html={home.html} className="mt-6 text-lg" />
        </div>
        {first ? (
          <ContentImage
            image={first}
            eager
            className="h-auto w-full rounded-2xl border border-line"
          />
        ) : null}
      </section>

      <QuoteCard quotes={quotes} />

      <section aria-labelledby="explore-heading">
        <h2 id="explore-heading" className="text-2xl font-semibold text-slate-100">
          Explore
        </h2>
        <ul className="mt-6 grid gap-4 sm:grid-cols-2">
          {home.themes.map((theme) => (
            <li key={theme.title} className="rounded-2xl border border-line bg-panel p-5">
              <h3 className="font-semibold text-accent">{theme.title}</h3>
              <p className="mt-2 text-sm leading-relaxed text-slate-300">{theme.text}</p>
            </li>
          ))}
        </ul>
      </section>

      {second ? (
        <section className="grid items-center gap-8 lg:grid-cols-2">
          <ContentImage image={second} className="h-auto w-full rounded-2xl border border-line" />
          <div>
            <h2 className="text-2xl font-semibold text-slate-100">Work with me</h2>
            <p className="mt-4 text-slate-300">
              Need help with a design, a reliability study, an engine or EV project, or a chatbot
              for your team? See what I offer, or read my story first.
            </p>
            <div className="mt-6 flex flex-wrap gap-3">
              <Link
                to="/services"
                className="rounded-lg bg-accent px-5 py-2.5 font-semibold text-ink"
              >
                View services
              </Link>
              <Link
                to="/about"
                className="rounded-lg px-5 py-2.5 font-semibold text-slate-100 ring-1 ring-line"
              >
                About me
              </Link>
            </div>
          </div>
        </section>
      ) : null}
    </div>
  );
}
