import Fastify from "fastify";

/**
 * The ceiling: a Fastify "hello world" on the same machine, started by
 * bench/run.ts in its own process, so every figure can be given as a ratio to
 * what this machine serves at best. Prints its address when listening. Given
 * HELLO_PORT, it listens there with SO_REUSEPORT, beside as many copies as
 * the bench starts (BENCH_PROCESSES).
 */
const app = Fastify({ logger: false });
app.get("/", async () => ({ hello: "world" }));
process.on("SIGTERM", async () => {
  await app.close();
  process.exit(0);
});
const port = Number(process.env.HELLO_PORT ?? 0);
const listening = { host: "127.0.0.1", port, reusePort: port > 0 };
const address = await app.listen(listening);
process.stdout.write(`listening ${address}\n`);
