// One-shot commands start fast because they never load what only `serve` needs (express, pino,
// prom-client: about 100 ms of start-up). A static import in src/main.ts would undo that silently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function resolvedModules(args: string[], input: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "metahooks-lazy-"));
  try {
    const trace = join(dir, "trace.txt");
    writeFileSync(trace, "");
    writeFileSync(
      join(dir, "hooks.mjs"),
      `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, result.url + "\\n");
  return result;
}
`,
    );
    writeFileSync(join(dir, "register.mjs"), `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`);
    const run = spawnSync(process.execPath, ["--import", join(dir, "register.mjs"), "--import", "tsx", "src/main.ts", ...args], { input, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    return readFileSync(trace, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("`metahooks sync` and `metahooks next` load neither express, pino, prom-client nor the server", () => {
  const request = readFileSync("examples/cronjob/sync-request.json", "utf8");
  for (const args of [["sync", "cronjob", "--now", "2026-01-05T12:00:30Z"], ["next", "@daily", "--from", "2026-01-01"]]) {
    const urls = resolvedModules(args, request);
    assert.ok(urls.some((u) => u.includes("/src/controllers/registry.ts")), "the trace saw the controllers");
    const serveOnly = urls.filter((u) => /node_modules\/(express|pino|prom-client)\/|\/src\/(server|http\/app)\.ts$/.test(u));
    assert.deepEqual(serveOnly, [], args.join(" "));
  }
});
