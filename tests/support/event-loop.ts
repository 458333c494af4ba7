/**
 * What `act` answers, and the longest time in ms between two turns of the event loop
 * while it ran, the last until its answer included: how long one request held the
 * thread every other reader waits on. `longestCpu` is the process's CPU time in that
 * same stretch: what the request cost, which a machine busy with other work does not
 * stretch as it stretches the wall time.
 */
export async function longestTurn<T>(
  act: () => Promise<T>,
): Promise<{ value: T; longest: number; longestCpu: number }> {
  let longest = 0;
  let longestCpu = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    if (now - last > longest) {
      longest = now - last;
      longestCpu = (cpu.user + cpu.system) / 1000;
    }
    last = now;
    lastCpu = process.cpuUsage();
  };
  const ticks = setInterval(tick, 5);
  try {
    const value = await act();
    tick();
    return { value, longest, longestCpu };
  } finally {
    clearInterval(ticks);
  }
}
