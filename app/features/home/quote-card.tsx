import { useEffect, useState } from "react";

const rotationMs = 10_000;
const fadeMs = 500;

/** Rotates the quotes every 10 s with a 500 ms fade (docs/product.md, "Motion"). An island. */
export function QuoteCard({ quotes }: { quotes: { text: string; author: string }[] }) {
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
  // The quote and its author fade together, the card stays: <figcaption> must be
  // a child of <figure> itself, so the fade is on both rather than on a wrapper.
  const fade = `transition-opacity duration-500 ${visible ? "opacity-100" : "opacity-0"}`;
  return (
    <figure
      data-testid="quote-card"
      className="rounded-2xl border border-accent/30 bg-panel p-6 shadow-[0_0_30px_rgba(34,197,94,0.08)]"
    >
      <blockquote className={`text-lg leading-relaxed text-slate-100 italic ${fade}`}>
        “{quote.text}”
      </blockquote>
      <figcaption className={`mt-3 text-sm font-medium text-accent ${fade}`}>
        — {quote.author}
      </figcaption>
    </figure>
  );
}
