import { buildApp } from "../server/app.ts";
import { loadConfig } from "../server/config.ts";

/**
 * The server as `npm start` runs it, minus the prerendered site (the bench
 * only calls the API): started by bench/run.ts in its own process, so the load
 * generator does not share its event loop. Prints its address when listening.
 */
const clientRoot = process.argv[2];
if (!clientRoot) throw new Error("usage: node bench/server.ts <client root>");

const app = await buildApp({ config: loadConfig(), clientRoot, logger: false });
process.on("SIGTERM", async () => {
  await app.close();
  process.exit(0);
});
const address = await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
process.stdout.write(`listening ${address}\n`);
