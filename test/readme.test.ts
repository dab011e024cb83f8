// The README's commands and code are what a new user tries first: run them as written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { runCliInProcess } from "./helpers/cli.ts";

const readme = readFileSync("README.md", "utf8");

function section(title: string): string {
  const start = readme.indexOf(`## ${title}`);
  assert.ok(start >= 0, `README has no section "${title}"`);
  const end = readme.indexOf("\n## ", start + 3);
  return readme.slice(start, end < 0 ? undefined : end);
}

test("the README's library example runs as written (importing the package by name)", () => {
  const code = /```ts\n([\s\S]*?)```/.exec(section("The hooks as a library"))?.[1];
  assert.ok(code, "no ts code block");
  const file = "readme-example.tmp.ts";
  writeFileSync(file, code);
  try {
    const out = spawnSync(process.execPath, ["--import", "tsx", file], { encoding: "utf8" });
    assert.equal(out.status, 0, out.stderr);
  } finally {
    rmSync(file, { force: true });
  }
});

test("every `npx metahooks` hook command in the README exits 0 on the file it names", async () => {
  const commands = [...readme.matchAll(/^npx metahooks (sync|finalize|customize) (\w+)(?: --now (\S+))? < (\S+)$/gm)];
  assert.ok(commands.length >= 3, "expected the README's CLI examples");
  for (const [line, hook, kind, now, file] of commands) {
    // In process: the binary's own wiring is test/cli.test.ts's concern.
    const out = await runCliInProcess([hook!, kind!, ...(now ? ["--now", now] : [])], { input: readFileSync(file!, "utf8") });
    assert.equal(out.status, 0, `${line}\n${out.stderr}`);
    assert.ok(Array.isArray(JSON.parse(out.stdout).children), line);
  }
});
