// The README's `next` and `simulate` commands, run as written through bin/metahooks.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const readme = readFileSync("README.md", "utf8").replace(/ \\\n\s*/g, " ");

/** Splits a README command line into arguments (single quotes group words, as in sh). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function run(line: string): string {
  const out = spawnSync(process.execPath, ["bin/metahooks.js", ...words(line).slice(2)], { encoding: "utf8" });
  assert.equal(out.status, 0, `${line}\n${out.stderr}`);
  return out.stdout;
}

test("every `npx metahooks next|simulate` line in the README exits 0", () => {
  const lines = [...readme.matchAll(/^npx metahooks (?:next|simulate) .*$/gm)].map((m) => m[0]);
  assert.ok(lines.length >= 3, `found ${lines.length}`);
  for (const line of lines) assert.notEqual(run(line).trim(), "", line);
});

test("the README's simulate excerpt is what the command prints", () => {
  const command = /^npx metahooks simulate examples\/cronjob\/nightly-berlin\.yaml.*$/m.exec(readme)?.[0];
  assert.ok(command);
  const excerpt = /an excerpt:\n\n```\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(excerpt);
  const output = run(command);
  for (const line of excerpt.trimEnd().split("\n")) assert.ok(output.includes(`${line}\n`), `not in the output: ${line}`);
});
