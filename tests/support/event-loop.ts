/**
 * What `act` answers, and the longest time in ms between two turns of the event loop
 * while it ran, the last until its answer included: how long one request held the
 * thread every other reader waits on.
 */
export async function longestTurn<T>(
  act: () => Promise<T>,
): Promise<{ value: T; longest: number }> {
  let longest = 0;
  let last = performance.now();
  const tick = () => {
    longest = Math.max(longest, performance.now() - last);
    last = performance.now();
  };
  const ticks = setInterval(tick, 5);
  try {
    const value = await act();
    tick();
    return { value, longest };
  } finally {
    clearInterval(ticks);
  }
}
