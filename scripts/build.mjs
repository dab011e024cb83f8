#!/usr/bin/env node
// `npm run build` (also the `prepare` script, so `npm ci` in a clone and `npm pack` build it):
// compiles src/ to dist/ (ESM JavaScript and .d.ts) with tsconfig.build.json.
// dist/ is emptied first, so a renamed or deleted module never lingers in the package.
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
} catch {
  // `npm ci --omit=dev` in a clone has no compiler; failing here would fail that install too.
  console.warn("metahooks build: typescript is not installed (devDependencies omitted); dist/ left as it is");
  process.exit(0);
}
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
process.exit(result.status ?? 1);
