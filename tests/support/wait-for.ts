/** Polls `check` until it holds; for states that change without an event to wait on. */
export async function waitFor(
  check: () => Promise<boolean>,
  { timeoutMs = 10_000, what = "condition" } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
