#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's test runner through tsx.
// Node 20's runner does not expand globs and npm's `sh` (dash) has no `**`, so we list files here.
// Usage: node scripts/run-tests.mjs [substring filter...]
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const filters = process.argv.slice(2);
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
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=spec", "--test-concurrency=2", ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
