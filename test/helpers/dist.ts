/**
 * Whether the clone's dist/ is `npm run build`'s output for the sources as they are now.
 *
 * `npm ci` builds dist/ (the `prepare` script), so on a fresh clone it is fresh; while someone edits
 * src/ it goes stale until the next build. Tests that need the compiled package (the image's
 * production tree, the packed tarball) copy a fresh dist/ instead of compiling again — a full
 * compile costs ~7 s of CPU — and compile into a temp tree when it is stale, never into dist/
 * itself, which other tests read at the same time.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** True when dist/main.js is newer than every file and folder under src/ and every compiler input. */
export function distIsFresh(): boolean {
  if (!existsSync("dist/main.js")) return false;
  const built = statSync("dist/main.js").mtimeMs;
  const inputs = ["src", "tsconfig.json", "tsconfig.build.json", "scripts/build.mjs", ...readdirSync("src", { recursive: true }).map((e) => join("src", String(e)))];
  return inputs.every((path) => statSync(path).mtimeMs < built);
}
