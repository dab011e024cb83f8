/**
 * The two servers of the benchmark, each in its own process so autocannon (in the parent) does
 * not share their event loop:
 *   tsx bench/servers.ts hook      the real service (startService: metrics, limits, logging at
 *                                  `silent`), printing `{"hookUrl","adminUrl"}` on stdout;
 *                                  env BENCH_NOW (RFC 3339) fixes its clock
 *   tsx bench/servers.ts baseline  a bare node:http server that reads the body, JSON.parses it
 *                                  and answers JSON.stringify of it: the floor of any JSON hook
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadServiceConfig } from "../src/config.ts";
import { startService } from "../src/server.ts";
import { configureControllers } from "../src/controllers/registry.ts";

const mode = process.argv[2];
if (mode === "hook") {
  const env = { PORT: "0", ADMIN_PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", MAX_CONCURRENT_HOOKS: "1000" };
  // BENCH_NOW fixes the hook clock, so each fixture is answered in the phase it was written for.
  const now = process.env.BENCH_NOW ? new Date(process.env.BENCH_NOW) : undefined;
  const service = await startService(loadServiceConfig(env), {
    controllers: configureControllers(process.env),
    ...(now ? { clock: () => now } : {}),
  });
  process.stdout.write(`${JSON.stringify({ hookUrl: service.hookUrl, adminUrl: service.adminUrl })}\n`);
} else if (mode === "baseline") {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 95_000;
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ hookUrl: `http://127.0.0.1:${port}` })}\n`);
  });
} else {
  process.stderr.write("usage: tsx bench/servers.ts hook|baseline\n");
  process.exit(2);
}
