#!/usr/bin/env node
// Entry point for `npx metahooks` and `npm start`: runs the compiled dist/main.js.
//
// An installed package has only dist/. A clone of the repository has src/ too, and `npm ci` builds
// dist/ from it (the `prepare` script). There, after a source file changed and before the next
// `npm run build`, dist/ is stale: the sources then run through tsx (a devDependency, present in a
// clone), so the CLI and the tests that spawn it never run yesterday's code.
import { existsSync, readdirSync, statSync } from "node:fs";

const built = new URL("../dist/main.js", import.meta.url);
const sources = new URL("../src/", import.meta.url);

/** Newest modification time (ms) of src/ and everything below it: files and folders (a deletion touches its folder). */
function newestSourceChange() {
  let newest = statSync(sources).mtimeMs;
  for (const entry of readdirSync(sources, { recursive: true })) {
    newest = Math.max(newest, statSync(new URL(String(entry), sources)).mtimeMs);
  }
  return newest;
}

const runSources = existsSync(sources) && (!existsSync(built) || statSync(built).mtimeMs < newestSourceChange());
if (runSources) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("main.ts", sources).href);
} else {
  await import(built.href);
}
