// Whether a clone's dist/ is `npm run build`'s output for the sources as they are now: the
// bundled command line (dist/bin/metahooks.js, the build's last output) newer than every file and
// folder under src/ (a deletion touches its folder) and every compiler input. `npm ci` builds
// dist/ (the `prepare` script), so a fresh clone's is fresh; while someone edits src/ it goes
// stale until the next build.
// Read by bin/metahooks.js (in a clone only: an installed package has no src/ and no scripts/)
// and by the tests that copy the compiled package instead of compiling it again.
import { existsSync, readdirSync, statSync } from "node:fs";

/**
 * @param root - the clone's root folder (a `file:` URL ending in "/")
 * @returns true when dist/ was built after the last change to its inputs
 */
export function distIsFresh(root) {
  const built = new URL("dist/bin/metahooks.js", root);
  if (!existsSync(built)) return false;
  const builtAt = statSync(built).mtimeMs;
  const sources = new URL("src/", root);
  const inputs = [sources, ...readdirSync(sources, { recursive: true }).map((entry) => new URL(String(entry), sources))];
  for (const file of ["tsconfig.json", "tsconfig.build.json", "scripts/build.mjs"]) inputs.push(new URL(file, root));
  return inputs.every((input) => !existsSync(input) || statSync(input).mtimeMs < builtAt);
}
