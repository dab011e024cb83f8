/**
 * Which modules a fresh node process resolves: runs node with a resolve hook that appends every
 * resolved URL to a file, then returns those URLs in order. Start-up cost and production
 * dependencies are decided by what gets imported, so tests assert on this list instead of trusting
 * the import statements they can see.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Runs `node --import <trace hook> --import tsx ...nodeArgs` in the repository root and returns the
 * URLs it resolved. Fails the test when the process exits non-zero.
 *
 * @param nodeArgs - what follows the two `--import`s, e.g. `["src/main.ts", "sync", "cronjob"]`
 * @param input - the process's stdin
 */
export function traceResolvedModules(nodeArgs: string[], input = ""): string[] {
  const dir = mkdtempSync(join(tmpdir(), "metahooks-trace-"));
  try {
    const trace = join(dir, "trace.txt");
    writeFileSync(trace, "");
    writeFileSync(
      join(dir, "hooks.mjs"),
      `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, result.url + "\\n");
  return result;
}
`,
    );
    writeFileSync(join(dir, "register.mjs"), `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`);
    const run = spawnSync(process.execPath, ["--import", join(dir, "register.mjs"), "--import", "tsx", ...nodeArgs], { input, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    return readFileSync(trace, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
