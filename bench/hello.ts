import Fastify from "fastify";

/**
 * The ceiling: a Fastify "hello world" on the same machine, started by
 * bench/run.ts in its own process, so every figure can be given as a ratio to
 * what this machine serves at best. Prints its address when listening.
 */
const app = Fastify({ logger: false });
app.get("/", async () => ({ hello: "world" }));
process.on("SIGTERM", async () => {
  await app.close();
  process.exit(0);
});
const address = await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(`listening ${address}\n`);
