#!/usr/bin/env node
// Entry point for `npx metahooks` and `npm start`: runs the bundled command line,
// dist/bin/metahooks.js (dist/main.js and its modules in a few files: see scripts/build.mjs).
//
// An installed package has only dist/. A clone of the repository has src/ too, and `npm ci` builds
// dist/ from it (the `prepare` script). There, after a source file changed and before the next
// `npm run build`, dist/ is stale: the sources then run through tsx (a devDependency, present in a
// clone), so the CLI and the tests that spawn it never run yesterday's code.
import { existsSync } from "node:fs";

const root = new URL("../", import.meta.url);
const inClone = existsSync(new URL("src/", root));
if (inClone && !(await import(new URL("scripts/dist-freshness.mjs", root).href)).distIsFresh(root)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("src/main.ts", root).href);
} else {
  await import(new URL("dist/bin/metahooks.js", root).href);
}
