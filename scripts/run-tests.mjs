#!/usr/bin/env node
// Runs test/**/*.test.ts with node's test runner through tsx, in two labelled groups:
//   unit     — in-process tests (pure functions, supertest, the emulator over loopback HTTP);
//   process  — tests that start other processes (the CLI, `serve`, helm, tsc/npm, openssl, sh).
// A file belongs to "process" when it imports node:child_process, the helm helper or the module
// tracer (both spawn); nothing else decides, so a new test lands in the right group by itself.
//
// The unit group runs in UNIT_SHARDS processes, each running its share of the files in-process
// (scripts/test-files-in-process.mjs): paying Node's, tsx's and our modules' start-up once per
// shard instead of once per file nearly halves its CPU time. The process group keeps one process
// per file (`node --test`, three at a time, longest first): those files start servers and tools
// and mostly wait on them, so they overlap well and keep their isolation.
//
// Both groups start together: the process group mostly waits on its children (helm, npm, tsc,
// servers), so overlapping it with the CPU-bound unit shards keeps both cores busy. The first
// report streams live; the others are held back and printed after it, so the output stays in
// labelled blocks.
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
const UNIT_SHARDS = 2;

/** The unit files dealt round-robin into UNIT_SHARDS shares (sorted paths spread the heavy folders). */
function shard(list, count) {
  const shares = Array.from({ length: Math.min(count, list.length) }, () => []);
  list.forEach((file, i) => shares[i % shares.length].push(file));
  return shares;
}

const jobs = [];
if (only !== "process") {
  shard(groups.unit, UNIT_SHARDS).forEach((list, i, all) =>
    jobs.push({ name: all.length > 1 ? `unit ${i + 1}/${all.length}` : "unit", list, args: ["scripts/test-files-in-process.mjs", ...list] }),
  );
}
if (only !== "unit" && groups.process.length > 0) {
  // Longest first: three at a time, the group ends when its last file does, and a long file started
  // late would run alone at the end. These two (npm pack/install with a consumer's tsc; the
  // image's production install) take 7–13 s each, the rest 1–4 s.
  const LONGEST = ["test/package/", "test/image/"];
  const rank = (f) => {
    const i = LONGEST.findIndex((prefix) => f.startsWith(prefix));
    return i < 0 ? LONGEST.length : i;
  };
  const ordered = [...groups.process].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  jobs.push({ name: "process", list: ordered, args: ["--test", "--test-concurrency=3", ...ordered] });
}

const started = Date.now();
/** Runs one job; `live` streams its report, otherwise it is collected and returned. */
function runJob({ name, list, args }, live) {
  const header = `\n=== ${name} tests (${list.length} files) ===\n`;
  if (live) process.stdout.write(header + "\n");
  const child = spawn(process.execPath, ["--import", "tsx", "--test-reporter=spec", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const chunks = [];
  const collect = (stream) => (c) => {
    chunks.push(c);
    if (live) stream.write(c);
  };
  child.stdout.on("data", collect(process.stdout));
  child.stderr.on("data", collect(process.stderr));
  return new Promise((resolve) => {
    child.on("close", (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const output = Buffer.concat(chunks).toString("utf8");
      resolve({ name, files: list.length, code: code ?? 1, seconds, counts: countsOf(output), report: live ? "" : header + "\n" + output });
    });
  });
}

/** The spec reporter's closing counts ("ℹ pass 12"), summed when a report holds several. */
function countsOf(output) {
  const counts = { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
  for (const [, key, n] of output.matchAll(/^ℹ (tests|pass|fail|skipped|todo|cancelled) (\d+)$/gm)) counts[key] += Number(n);
  return counts;
}

const runs = jobs.map((job, i) => runJob(job, i === 0));
const results = [];
for (const run of runs) {
  const result = await run;
  process.stdout.write(result.report);
  results.push(result);
}
console.log("");
const sum = { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
for (const r of results) {
  for (const key of Object.keys(sum)) sum[key] += r.counts[key];
  console.log(`${r.name}: ${r.files} files, ${r.counts.tests} tests, done after ${r.seconds} s, ${r.code === 0 ? "passed" : "FAILED"}`);
}
console.log(`total: ${sum.tests} tests, ${sum.pass} passed, ${sum.fail} failed, ${sum.skipped} skipped, ${sum.todo} todo, ${sum.cancelled} cancelled; ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
