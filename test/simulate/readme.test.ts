// The README's `next` and `simulate` commands, run as written (in process; test/simulate/next.test.ts
// spawns bin/metahooks.js for `next`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { runCliInProcess } from "../helpers/cli.ts";
import { readFileSync } from "node:fs";

const readme = readFileSync("README.md", "utf8").replace(/ \\\n\s*/g, " ");

/** Splits a README command line into arguments (single quotes group words, as in sh). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

async function run(line: string): Promise<string> {
  const out = await runCliInProcess(words(line).slice(2));
  assert.equal(out.status, 0, `${line}\n${out.stderr}`);
  return out.stdout;
}

test("every `npx metahooks next|simulate` line in the README exits 0", async () => {
  const lines = [...readme.matchAll(/^npx metahooks (?:next|simulate) .*$/gm)].map((m) => m[0]);
  assert.ok(lines.length >= 3, `found ${lines.length}`);
  for (const line of lines) assert.notEqual((await run(line)).trim(), "", line);
});

test("the README's simulate excerpt is what the command prints", async () => {
  const command = /^npx metahooks simulate examples\/cronjob\/nightly-berlin\.yaml.*$/m.exec(readme)?.[0];
  assert.ok(command);
  const excerpt = /an excerpt:\n\n```\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(excerpt);
  const output = await run(command);
  for (const line of excerpt.trimEnd().split("\n")) assert.ok(output.includes(`${line}\n`), `not in the output: ${line}`);
});
