// One-shot commands start fast because they never load what only `serve` needs (express, pino,
// prom-client: about 100 ms of start-up). A static import in src/main.ts would undo that silently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { traceResolvedModules } from "../helpers/module-trace.ts";

test("`metahooks sync` and `metahooks next` load neither express, pino, prom-client nor the server", () => {
  const request = readFileSync("examples/cronjob/sync-request.json", "utf8");
  for (const args of [["sync", "cronjob", "--now", "2026-01-05T12:00:30Z"], ["next", "@daily", "--from", "2026-01-01"]]) {
    const urls = traceResolvedModules(["src/main.ts", ...args], request);
    assert.ok(urls.some((u) => u.includes("/src/controllers/registry.ts")), "the trace saw the controllers");
    const serveOnly = urls.filter((u) => /node_modules\/(express|pino|prom-client)\/|\/src\/(server|http\/app)\.ts$/.test(u));
    assert.deepEqual(serveOnly, [], args.join(" "));
  }
});
