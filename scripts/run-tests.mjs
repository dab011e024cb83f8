#!/usr/bin/env node
// Runs test/**/*.test.ts with node's test runner through tsx, in two labelled groups:
//   unit     — in-process tests (pure functions, supertest, the emulator over loopback HTTP);
//   process  — tests that start other processes (the CLI, `serve`, helm, tsc/npm, openssl, sh).
// A file belongs to "process" when it imports node:child_process, the helm helper or the module
// tracer (both spawn); nothing else decides, so a new test lands in the right group by itself.
//
// Both groups start together: the process group mostly waits on its children (helm, npm, tsc,
// servers), so overlapping it with the CPU-bound unit group keeps both cores busy. The unit
// group's report streams live; the process group's report is held back and printed after it,
// so the output stays in two labelled blocks.
// Node 20's runner does not expand globs and npm's `sh` (dash) has no `**`, so we list files here.
//
// Usage: node scripts/run-tests.mjs [--unit | --process] [substring filter...]
import { readdirSync, readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";

const args = process.argv.slice(2);
const only = args.includes("--unit") ? "unit" : args.includes("--process") ? "process" : undefined;
const filters = args.filter((a) => !a.startsWith("--"));

const SPAWNS = /from "node:child_process"|helpers\/(helm|module-trace)\.ts"/;
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
const names = ["unit", "process"].filter((name) => groups[name].length > 0 && (!only || only === name));

const started = Date.now();
/** Runs one group; `live` streams its report, otherwise it is collected and returned. */
function runGroup(name, live) {
  const list = groups[name];
  const header = `\n=== ${name} tests (${list.length} files) ===\n`;
  if (live) process.stdout.write(header + "\n");
  const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", "--test-concurrency=2", ...list], {
    stdio: ["ignore", live ? "inherit" : "pipe", live ? "inherit" : "pipe"],
  });
  const chunks = [];
  child.stdout?.on("data", (c) => chunks.push(c));
  child.stderr?.on("data", (c) => chunks.push(c));
  return new Promise((resolve) => {
    child.on("close", (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      resolve({ name, files: list.length, code: code ?? 1, seconds, report: live ? "" : header + "\n" + Buffer.concat(chunks).toString("utf8") });
    });
  });
}

const runs = names.map((name, i) => runGroup(name, i === 0));
const results = [];
for (const run of runs) {
  const result = await run;
  process.stdout.write(result.report);
  results.push(result);
}
console.log("");
for (const r of results) console.log(`${r.name}: ${r.files} files, done after ${r.seconds} s, ${r.code === 0 ? "passed" : "FAILED"}`);
console.log(`total: ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
