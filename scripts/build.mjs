#!/usr/bin/env node
// `npm run build` (also the `prepare` script, so `npm ci` in a clone builds it, and the first step
// of `prepack`, so `npm pack` and `npm publish` do):
// 1. compiles src/ to dist/ (ESM JavaScript and .d.ts) with tsconfig.build.json: the library the
//    package exports, and `dist/main.js`, which the container image runs (`serve`);
// 2. bundles the command line from dist/main.js into dist/bin/ with esbuild, which is what
//    bin/metahooks.js (`npx metahooks`) runs.
// dist/ is emptied first, so a renamed or deleted module never lingers in the package.
//
// Why a bundle for the command line: every `metahooks sync|next|simulate` call is a new process,
// and most of its start-up was Node's module loader, not our code: about 180 modules (zod alone
// is 95 files) each resolved, read and compiled. One file per lazily loaded part instead cut
// `metahooks sync cronjob < request.json` from 465 to 307 ms (median) on the 2-core CI machine
// (bench/cli-startup.ts, bench/RESULTS.md). Only the packages on the commands' paths are bundled (BUNDLED below);
// the server's and `explain`'s (express, pino, prom-client, @kubernetes/client-node) stay in
// node_modules and load only when those commands run. Their licence texts are written beside
// the bundle (THIRD-PARTY-NOTICES.txt), as their licences ask of copies.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve("typescript/bin/tsc");
} catch {
  // `npm ci --omit=dev` in a clone has no compiler; failing here would fail that install too.
  console.warn("metahooks build: typescript is not installed (devDependencies omitted); dist/ left as it is");
  process.exit(0);
}
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
if (result.status !== 0) process.exit(result.status ?? 1);

/** Runtime dependencies bundled into the command line (the rest stay external). */
const BUNDLED = ["croner", "yaml", "zod"];
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})].filter((name) => !BUNDLED.includes(name));
const { build } = await import("esbuild");
await build({
  entryPoints: { metahooks: fileURLToPath(new URL("../dist/main.js", import.meta.url)) },
  outdir: fileURLToPath(new URL("../dist/bin", import.meta.url)),
  bundle: true,
  // Lazily imported commands (serve, explain, simulate, next) become chunks loaded on use.
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  // Not minified: stack traces of a failing command stay readable.
  minify: false,
  legalComments: "eof",
  // yaml's Node build is CommonJS and requires Node's built-ins; in an ES module bundle esbuild's
  // require shim needs a real `require` to hand them over.
  banner: { js: 'import { createRequire as __metahooksCreateRequire } from "node:module";\nconst require = __metahooksCreateRequire(import.meta.url);' },
  logLevel: "warning",
});
const notices = BUNDLED.map((name) => {
  const dir = require.resolve(`${name}/package.json`).replace(/package\.json$/, "");
  const meta = JSON.parse(readFileSync(`${dir}package.json`, "utf8"));
  return `${name} ${meta.version} (${meta.license})\n\n${readFileSync(`${dir}LICENSE`, "utf8").trim()}\n`;
});
writeFileSync(
  new URL("../dist/bin/THIRD-PARTY-NOTICES.txt", import.meta.url),
  `dist/bin/ bundles these packages with metahooks' own code:\n\n${notices.join("\n" + "-".repeat(72) + "\n\n")}`,
);
