/**
 * Golden JSON fixtures: `test/fixtures/<kind>/<case>/request.json` (+ `now.txt`) and the expected
 * `response.json`. `UPDATE_GOLDEN=1 npm test` rewrites the expected files; review the diff.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";

/** One fixture case. */
export interface GoldenCase {
  name: string;
  dir: string;
  request: unknown;
  /** The fixed clock (from `now.txt`, RFC 3339). */
  now: Date;
  /** `sync` unless `hook.txt` says otherwise. */
  hook: string;
}

/** Lists the cases under `test/fixtures/<kind>/`. */
export function loadGoldenCases(kind: string): GoldenCase[] {
  const root = join("test", "fixtures", kind);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const dir = join(root, name);
      const hookFile = join(dir, "hook.txt");
      return {
        name,
        dir,
        request: JSON.parse(readFileSync(join(dir, "request.json"), "utf8")),
        now: new Date(readFileSync(join(dir, "now.txt"), "utf8").trim()),
        hook: existsSync(hookFile) ? readFileSync(hookFile, "utf8").trim() : "sync",
      };
    });
}

/**
 * Compares `actual` with `<dir>/<file>` (pretty JSON), or writes it when UPDATE_GOLDEN=1.
 * A missing golden file fails the test (so a new case cannot pass by accident).
 */
export function assertGolden(dir: string, file: string, actual: unknown): void {
  const path = join(dir, file);
  const text = JSON.stringify(actual, null, 2) + "\n";
  if (process.env.UPDATE_GOLDEN === "1") {
    writeFileSync(path, text);
    return;
  }
  assert.ok(existsSync(path), `missing golden file ${path}; run UPDATE_GOLDEN=1 npm test and review it`);
  assert.deepStrictEqual(actual, JSON.parse(readFileSync(path, "utf8")), `golden mismatch in ${path}`);
}
