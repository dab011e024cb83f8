/**
 * What can be tested of the container image without a Docker engine: the Dockerfile's steps run
 * by hand in a temp dir. Compile with tsconfig.build.json (the `build` stage), install production
 * dependencies only with the committed lockfile (the `deps` stage), and start the runtime stage's
 * command from that tree: it must answer a sync request with nothing from devDependencies.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { distIsFresh } from "../../scripts/dist-freshness.mjs";
import { MINIMAL_CRONJOB_SYNC } from "../helpers/requests.ts";
import { waitForListening } from "../helpers/serve-process.ts";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const work = mkdtempSync(join(tmpdir(), "metahooks-image-"));
let server: ChildProcess | undefined;
let hookPort = 0;

function run(command: string, args: string[], cwd: string): { status: number; output: string } {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
  return { status: result.status ?? 1, output: `${result.stdout}\n${result.stderr}` };
}

before(async () => {
  // build stage: `npm run build`. The clone's dist/ is that script's output (`npm ci` runs it as
  // `prepare`), so it is copied when it is newer than every source and compiler config; otherwise
  // the same compiler config compiles into the temp tree (a full compile costs ~7 s of CPU).
  if (distIsFresh(pathToFileURL(resolve(".") + "/"))) {
    cpSync("dist", join(work, "dist"), { recursive: true });
  } else {
    const tsc = resolve("node_modules/typescript/bin/tsc");
    const build = run(process.execPath, [tsc, "-p", resolve("tsconfig.build.json"), "--outDir", join(work, "dist")], ".");
    assert.equal(build.status, 0, `npm run build (tsc -p tsconfig.build.json) failed:\n${build.output}`);
  }
  // deps stage: production dependencies from the lockfile; offline first (warm cache).
  for (const file of ["package.json", "package-lock.json", ".npmrc"]) copyFileSync(file, join(work, file));
  const args = ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"];
  let install = run("npm", [...args, "--offline"], work);
  if (install.status !== 0) install = run("npm", args, work);
  assert.equal(install.status, 0, `npm ci --omit=dev failed:\n${install.output}`);
  // runtime stage: ENTRYPOINT ["node", "dist/main.js"], CMD ["serve"].
  server = spawn(process.execPath, ["dist/main.js", "serve"], {
    cwd: work,
    env: { PATH: process.env.PATH ?? "", PORT: "0", ADMIN_PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const listening = await waitForListening(server, 15_000);
  hookPort = Number(new URL(listening.hookUrl).port);
});

after(() => {
  server?.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

test("the production tree has every dependency and no devDependency", () => {
  for (const name of Object.keys(pkg.dependencies)) {
    assert.ok(existsSync(join(work, "node_modules", name, "package.json")), `missing dependency ${name}`);
  }
  // The lockfile marks packages only devDependencies need with `dev: true` (some, e.g. @types/node,
  // are also pulled in by production dependencies and rightly stay).
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
  const devOnly = Object.entries<any>(lock.packages).filter(([path, meta]) => path.startsWith("node_modules/") && meta.dev);
  assert.ok(devOnly.some(([path]) => path === "node_modules/typescript"), "the lockfile marks dev-only packages");
  for (const [path] of devOnly) assert.equal(existsSync(join(work, path)), false, `dev-only ${path} was installed`);
  assert.ok(existsSync(join(work, "dist", "main.js")), "npm run build wrote dist/main.js");
});

test("`node dist/main.js serve` from that tree answers a sync request", async () => {
  assert.ok(hookPort > 0);
  const body = MINIMAL_CRONJOB_SYNC;
  const response = await fetch(`http://127.0.0.1:${hookPort}/sync/cronjob`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const json = JSON.parse(text);
  assert.ok(Array.isArray(json.children), "the answer lists the desired children");
  assert.equal(typeof json.status, "object");
});

test("the Dockerfile builds from files the .dockerignore lets through", () => {
  const dockerfile = readFileSync("Dockerfile", "utf8");
  const ignore = readFileSync(".dockerignore", "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  assert.equal(ignore[0], "*", ".dockerignore starts from an empty context (no node_modules, dist, .git)");
  const allowed = new Set(ignore.filter((l) => l.startsWith("!")).map((l) => l.slice(1).replace(/\/$/, "")));
  const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/).filter((s) => !s.startsWith("--")));
  assert.ok(sources.length > 0);
  for (const source of sources) {
    assert.ok(allowed.has(source.replace(/\/$/, "")), `${source} is excluded by .dockerignore`);
    assert.ok(existsSync(source), `${source} does not exist`);
  }
  assert.match(dockerfile, /npm ci --omit=dev/);
  // `npm ci` runs the package's `prepare` build, which needs the sources and the compiler: in the
  // image the build runs once, explicitly, after the sources are copied.
  for (const [line] of dockerfile.matchAll(/^RUN npm ci.*$/gm)) assert.match(line, /--ignore-scripts/, line);
  assert.match(dockerfile, /^RUN npm run build$/m);
  assert.match(dockerfile, /^USER 1000:1000$/m, "runs as a numeric non-root user (runAsNonRoot can verify it)");
  assert.match(dockerfile, /^ENTRYPOINT \["node", "dist\/main\.js"\]$/m);
  assert.match(dockerfile, /^CMD \["serve"\]$/m);
  const fromLines = [...dockerfile.matchAll(/^FROM /gm)];
  assert.ok(fromLines.length >= 2, "multi-stage");
});
