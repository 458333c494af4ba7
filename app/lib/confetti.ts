/** The site's burst (docs/product.md, "Motion"): 100 particles, spread 70, from 60 % down, green, amber, blue. */
const burstOptions = {
  particleCount: 100,
  spread: 70,
  origin: { y: 0.6 },
  colors: ["#22c55e", "#f59e0b", "#3b82f6"],
  disableForReducedMotion: true,
};

/** Loads canvas-confetti on first use, so it costs nothing on first load. */
export async function fireConfetti() {
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const { default: confetti } = await import("canvas-confetti");
  await confetti(burstOptions);
}

export async function stopConfetti() {
  const { default: confetti } = await import("canvas-confetti");
  confetti.reset();
}
