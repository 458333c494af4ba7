import { useEffect } from "react";
import { fireConfetti, stopConfetti } from "../../lib/confetti.ts";

const everyMs = 10_000;

/**
 * A burst every 10 s while the home page is open, none under reduced motion
 * (docs/product.md, "Motion"). An island with nothing to show.
 */
export function HomeConfetti() {
  useEffect(() => {
    const timer = setInterval(() => void fireConfetti(), everyMs);
    return () => {
      clearInterval(timer);
      void stopConfetti();
    };
  }, []);
  return null;
}
