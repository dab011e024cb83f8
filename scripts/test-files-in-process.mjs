#!/usr/bin/env node
// Runs several test files in this one process, each as a suite named after its path, so a file's
// top-level before/after hooks stay scoped to its own tests. Started by scripts/run-tests.mjs with
// `node --import tsx --test-reporter=spec scripts/test-files-in-process.mjs <file>...`.
//
// Why not `node --test <files>`: Node 20's runner starts a process per file, and each one loads
// tsx's loader, zod, express and our modules again and compiles them cold. For the in-process
// (unit) files that start-up was about 45 % of their CPU time (77 s for 63 files, 43 s in one
// process). Files that start other processes keep a process each (see run-tests.mjs).
import { describe } from "node:test";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    await import(pathToFileURL(resolve(file)).href);
  });
}
