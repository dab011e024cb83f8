// The package.json that goes into the tarball, without the `prepare` script.
//
// Why: a clone needs `prepare` (`npm ci` builds dist/ with it, so `npm start`, `npm test` and
// `npx metahooks` work with no extra command). An installed package does not: npm never runs a
// registry or tarball dependency's `prepare`, and its build script is not even in the tarball. But
// npm 11 lists a dependency's `prepare` among its install scripts and warns every consumer
// ("1 package has install scripts not yet covered by allowScripts: metahooks (prepare: …)"), and
// teams that audit install scripts would have to approve a script that never runs. So the packed
// manifest has no install-time script at all.
//
// npm reads the manifest it packs after `prepack` and before `postpack`, so:
//   prepack:  node scripts/build.mjs && node scripts/pack-manifest.mjs strip
//   postpack: node scripts/pack-manifest.mjs restore
// `strip` keeps the exact bytes in package.json.prepack (git-ignored, never packed) and `restore`
// puts them back. If a pack died in between, `strip` refuses to run again until `restore` has
// put the saved manifest back (so the saved copy is never overwritten by a stripped one).
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const MANIFEST = "package.json";
const SAVED = "package.json.prepack";
/** Scripts npm runs (or counts) when the package is installed as a dependency. */
const INSTALL_TIME = ["preinstall", "install", "postinstall", "prepare"];

const command = process.argv[2];
if (command === "strip") {
  if (existsSync(SAVED)) {
    console.error(`pack-manifest: ${SAVED} exists: an earlier pack did not finish. Put it back with \`node scripts/pack-manifest.mjs restore\` and pack again.`);
    process.exit(1);
  }
  const text = readFileSync(MANIFEST, "utf8");
  const manifest = JSON.parse(text);
  for (const name of INSTALL_TIME) delete manifest.scripts?.[name];
  writeFileSync(SAVED, text);
  writeFileSync(MANIFEST, JSON.stringify(manifest, null, 2) + "\n");
} else if (command === "restore") {
  if (!existsSync(SAVED)) {
    console.error(`pack-manifest: no ${SAVED} to restore (nothing was stripped)`);
    process.exit(1);
  }
  renameSync(SAVED, MANIFEST);
} else {
  console.error("usage: node scripts/pack-manifest.mjs strip|restore");
  process.exit(2);
}
