#!/usr/bin/env node
// Runs test/**/*.test.ts with node's test runner through tsx, in two labelled groups:
//   unit     — in-process tests (pure functions, supertest, the emulator over loopback HTTP);
//   process  — tests that start other processes (the CLI, `serve`, helm, tsc/npm, openssl, sh).
// A file belongs to "process" when it imports node:child_process or the helm helper; nothing
// else decides, so a new test lands in the right group by itself.
// Node 20's runner does not expand globs and npm's `sh` (dash) has no `**`, so we list files here.
//
// Usage: node scripts/run-tests.mjs [--unit | --process] [substring filter...]
import { readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const args = process.argv.slice(2);
const only = args.includes("--unit") ? "unit" : args.includes("--process") ? "process" : undefined;
const filters = args.filter((a) => !a.startsWith("--"));

const SPAWNS = /from "node:child_process"|helpers\/helm\.ts"/;
const files = readdirSync("test", { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => join("test", f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
const groups = { unit: [], process: [] };
for (const f of files) groups[SPAWNS.test(readFileSync(f, "utf8")) ? "process" : "unit"].push(f);

let status = 0;
const summary = [];
for (const name of ["unit", "process"]) {
  const list = groups[name];
  if (list.length === 0 || (only && only !== name)) continue;
  console.log(`\n=== ${name} tests (${list.length} files) ===\n`);
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", "--test-reporter=spec", "--test-concurrency=2", ...list],
    { stdio: "inherit" },
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  summary.push(`${name}: ${list.length} files, ${seconds} s, ${result.status === 0 ? "passed" : "FAILED"}`);
  if (result.status !== 0) status = result.status ?? 1;
}
console.log(`\n${summary.join("\n")}`);
process.exit(status);
