import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { traceResolvedModules } from "../helpers/module-trace.ts";

// `metahooks serve` must not load @kubernetes/client-node (about 1 s and 60 MB at start-up):
// only `metahooks explain` imports it, dynamically.

test("importing the server, the app and the CLI's static imports never resolves @kubernetes/client-node", () => {
  const script = [
    "await import('./src/server.ts');",
    "await import('./src/http/app.ts');",
    "await import('./src/cli/hook-command.ts');",
    "await import('./src/admission/routes.ts');",
    "await import('./src/index.ts');",
  ].join(" ");
  const urls = traceResolvedModules(["--input-type=module", "-e", script]);
  assert.ok(urls.some((u) => u.endsWith("/src/http/app.ts")), "the trace saw the app (the hook works)");
  assert.deepEqual(urls.filter((u) => u.includes("@kubernetes/client-node")), []);
  assert.deepEqual(urls.filter((u) => u.includes("/src/explain/")), []);
  // yaml is a devDependency (manifest generation only): the production tree does not have it.
  assert.deepEqual(urls.filter((u) => u.includes("/node_modules/yaml/")), []);
});

test("no source file imports @kubernetes/client-node statically (type-only imports are erased)", () => {
  const offenders: string[] = [];
  for (const file of readdirSync("src", { recursive: true }).map(String).filter((f) => f.endsWith(".ts"))) {
    const text = readFileSync(join("src", file), "utf8");
    for (const line of text.split("\n")) {
      if (/^\s*(import|export)\s(?!type\s)[^;]*from\s+["']@kubernetes\/client-node/.test(line)) offenders.push(`${file}: ${line.trim()}`);
    }
  }
  assert.deepEqual(offenders, []);
});
