/**
 * The package as a user gets it: packed with `npm pack` from a staging copy of the repository, so
 * the working tree's dist/ is never rebuilt under the tests that run the CLI at the same time; then
 * installed into an empty project and used from plain `node --test`, from a TypeScript file checked
 * with tsc, and from Vitest, including the README's testing examples as written.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { distIsFresh } from "../../scripts/dist-freshness.mjs";
import { waitForListening } from "../helpers/serve-process.ts";

const repo = resolve(".");
const work = mkdtempSync(join(tmpdir(), "metahooks-package-"));
const stage = join(work, "stage");
const consumer = join(work, "consumer");
const readme = readFileSync("README.md", "utf8");
let listed: string[] = [];
let tarball = "";
let stagedManifest = "";
let install = { status: 1, stdout: "", output: "" };

function run(command: string, args: string[], cwd: string, input?: string): { status: number; stdout: string; output: string } {
  // NODE_TEST_CONTEXT would make a child `node --test` think it runs inside this test file.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const result = spawnSync(command, args, { cwd, input, encoding: "utf8", env: { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" } });
  return { status: result.status ?? 1, stdout: result.stdout, output: `${result.stdout}\n${result.stderr}` };
}

/** The fenced code block of a language that follows `marker` in the README. */
function readmeBlock(marker: string, language: string): string {
  const at = readme.indexOf(marker);
  assert.ok(at >= 0, `README has no ${JSON.stringify(marker)}`);
  const open = readme.lastIndexOf("```" + language + "\n", at);
  assert.ok(open >= 0, `no ${language} block around ${marker}`);
  const start = open + language.length + 4;
  return readme.slice(start, readme.indexOf("```", start));
}

before(() => {
  // Staging copy: what a clone has that the build and `npm pack` read.
  mkdirSync(stage);
  for (const entry of ["package.json", "README.md", "LICENSE", "tsconfig.json", "tsconfig.build.json", "bin", "src", "scripts"]) cpSync(entry, join(stage, entry), { recursive: true });
  symlinkSync(join(repo, "node_modules"), join(stage, "node_modules"), "dir");
  // `npm pack` runs the `prepack` script: the build (a full tsc compile and the bundle, ~7 s of
  // CPU), then the manifest's strip (scripts/pack-manifest.mjs), with `postpack` restoring it.
  // When the clone's dist/ is that build's output for the current sources (always so right after
  // `npm ci`), the staging copy takes it and its `prepack` only strips: the same files, one
  // compile fewer, and npm's real lifecycle around the manifest. Otherwise the pack builds,
  // exactly as a publish would.
  const prebuilt = distIsFresh(pathToFileURL(resolve(".") + "/"));
  if (prebuilt) {
    cpSync("dist", join(stage, "dist"), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(stage, "package.json"), "utf8"));
    assert.match(manifest.scripts.prepack, /^node scripts\/build\.mjs && node scripts\/pack-manifest\.mjs strip$/);
    manifest.scripts.prepack = "node scripts/pack-manifest.mjs strip";
    writeFileSync(join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  }
  stagedManifest = readFileSync(join(stage, "package.json"), "utf8");
  // One real pack: its JSON report lists the packed files, exactly what `npm pack --dry-run --json` would list.
  const pack = run("npm", ["pack", "--json", "--pack-destination", work], stage);
  assert.equal(pack.status, 0, `npm pack failed:\n${pack.output}`);
  const report = JSON.parse(pack.stdout)[0];
  listed = (report.files as Array<{ path: string }>).map((f) => f.path).sort();
  tarball = join(work, report.filename);

  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  // The dependencies come from the npm cache (warm after `npm ci`); the registry only when a
  // package is missing from it. Scripts are not turned off: the package has none to run.
  const args = ["install", "--no-package-lock", tarball];
  install = run("npm", [...args, "--offline"], consumer);
  if (install.status !== 0) install = run("npm", [...args, "--prefer-offline"], consumer);
  assert.equal(install.status, 0, `npm install of the tarball failed:\n${install.output}`);
});

after(() => rmSync(work, { recursive: true, force: true }));

test("the tarball holds the compiled package and nothing a user does not need", () => {
  for (const file of ["package.json", "README.md", "LICENSE", "bin/metahooks.js", "dist/index.js", "dist/index.d.ts", "dist/testing/index.js", "dist/testing/index.d.ts", "dist/main.js", "dist/simulate/cronjob.js", "dist/emulator/emulator.js", "dist/bin/metahooks.js", "dist/bin/THIRD-PARTY-NOTICES.txt"]) {
    assert.ok(listed.includes(file), `${file} is packed`);
  }
  const junk = listed.filter((f) => !/^(dist\/.+\.(js|d\.ts)|dist\/bin\/THIRD-PARTY-NOTICES\.txt|bin\/metahooks\.js|package\.json|README\.md|LICENSE)$/.test(f) || /\.test\.|(^|\/)test\//.test(f));
  assert.deepEqual(junk, [], "only dist/*.js, dist/*.d.ts, the bundle's notices, the bin, package.json, the README and the licence");
  // About 160 compiled modules with their declarations, and the bundled command line's 16 files.
  assert.ok(listed.length < 300, `${listed.length} files`);
  const pkg = JSON.parse(readFileSync(join(consumer, "node_modules/metahooks/package.json"), "utf8"));
  assert.equal(pkg.dependencies.tsx, undefined, "tsx is not a runtime dependency");
  assert.ok(!existsSync(join(consumer, "node_modules/tsx")), "installing the package does not bring tsx");
});

test("the packed manifest has no install-time script, so installing it warns about none; the clone's manifest is put back as it was", () => {
  const pkg = JSON.parse(readFileSync(join(consumer, "node_modules/metahooks/package.json"), "utf8"));
  for (const name of ["preinstall", "install", "postinstall", "prepare"]) assert.equal(pkg.scripts?.[name], undefined, `scripts.${name} is not packed`);
  assert.doesNotMatch(install.output, /install.scripts|prepare/i);
  // The clone keeps its `prepare` (npm ci builds dist/ with it), byte for byte.
  assert.equal(readFileSync(join(stage, "package.json"), "utf8"), stagedManifest);
  assert.match(JSON.parse(stagedManifest).scripts.prepare, /build\.mjs/);
  assert.ok(!existsSync(join(stage, "package.json.prepack")), "no saved manifest is left behind");
});

test("plain `node --test` imports `metahooks` and `metahooks/testing` (no TypeScript tooling)", () => {
  const request = readFileSync("examples/cronjob/sync-request.json", "utf8");
  writeFileSync(
    join(consumer, "plain.test.mjs"),
    `import { test } from "node:test";
import assert from "node:assert/strict";
import { configureControllers, listSlots, runHook, simulateCronJob, syncCronJob, SyncRequestSchema, zonedSchedule } from "metahooks";
import { syncAt } from "metahooks/testing";

const request = ${request};
test("runHook", () => {
  const cronjob = configureControllers({}).find((k) => k.def.name === "cronjob");
  const { response } = runHook(cronjob.def, "sync", request, new Date("2026-01-05T12:00:30Z"), cronjob.options);
  assert.equal(response.children.length, 1);
  assert.equal(syncCronJob(SyncRequestSchema.parse(request), new Date("2026-01-05T12:00:30Z")).response.children.length, 1);
});
test("testing helpers", () => {
  assert.equal(syncAt(request.parent, "2026-01-05T12:00:30Z").created.length, 1);
});
test("simulate and slots", async () => {
  const { summary } = await simulateCronJob({ cronJob: request.parent, from: new Date("2026-01-05T11:00:00Z"), to: new Date("2026-01-05T11:05:30Z") });
  assert.equal(summary.created, 5);
  assert.equal(listSlots(zonedSchedule("@hourly"), new Date("2026-01-01T00:00:00Z"), { count: 2 }).length, 2);
});
test("only the exported entry points resolve", async () => {
  await assert.rejects(import("metahooks/dist/main.js"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
});
`,
  );
  const out = run(process.execPath, ["--test", "plain.test.mjs"], consumer);
  assert.equal(out.status, 0, out.output);
  assert.match(out.output, /pass 4/);
});

test("CommonJS code can require() the package (Node 20.19+ loads ES modules from require)", () => {
  writeFileSync(
    join(consumer, "consumer.cjs"),
    `const { runHook, configureControllers } = require("metahooks");
const { syncAt } = require("metahooks/testing");
const request = require(${JSON.stringify(resolve("examples/cronjob/sync-request.json"))});
const cronjob = configureControllers({}).find((k) => k.def.name === "cronjob");
const { response } = runHook(cronjob.def, "sync", request, new Date("2026-01-05T12:00:30Z"), cronjob.options);
process.stdout.write(String(response.children.length + syncAt(request.parent, "2026-01-05T12:00:30Z").created.length));
`,
  );
  const out = run(process.execPath, ["consumer.cjs"], consumer);
  assert.equal(out.status, 0, out.output);
  assert.equal(out.stdout, "2");
});

test("the README's node:test example passes as written against the installed package", () => {
  writeFileSync(join(consumer, "nightly-backup.test.mjs"), readmeBlock("// nightly-backup.test.mjs", "js"));
  const out = run(process.execPath, ["--test", "nightly-backup.test.mjs"], consumer);
  assert.equal(out.status, 0, out.output);
  assert.match(out.output, /pass 3/);
});

test("the README's Vitest example passes against the installed package", () => {
  const yaml = /const cronJob = `\n([\s\S]*?)`;/.exec(readmeBlock("// nightly-backup.test.mjs", "js"))?.[1];
  assert.ok(yaml, "the node:test example defines the CronJob YAML");
  mkdirSync(join(consumer, "vitest"));
  writeFileSync(join(consumer, "vitest", "nightly-backup.yaml"), yaml);
  writeFileSync(join(consumer, "vitest", "nightly-backup.test.ts"), readmeBlock("// nightly-backup.test.ts", "ts"));
  // Vitest is the repository's devDependency, linked in instead of installed again.
  symlinkSync(join(repo, "node_modules/vitest"), join(consumer, "node_modules/vitest"), "dir");
  const out = run(process.execPath, [join(repo, "node_modules/vitest/vitest.mjs"), "run", "--root", join(consumer, "vitest")], consumer);
  assert.equal(out.status, 0, out.output);
  assert.match(out.output, /1 passed/);
});

test("a TypeScript consumer type-checks against the package's declarations", () => {
  writeFileSync(
    join(consumer, "consumer.ts"),
    `import { runHook, findController, type SyncResponse, type CronJobSpec } from "metahooks";
import { buildRequest, runSync, cronJobJob, type HookRun, type HookRequest } from "metahooks/testing";

const spec: CronJobSpec = { schedule: "*/5 * * * *", jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } } } } };
const parent = { apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name: "c" }, spec };
const request: HookRequest = buildRequest(parent, { children: [cronJobJob(parent, "2026-01-01T00:00:00Z", "succeeded")], hookVersion: "v2" });
const run: HookRun = runSync(request, new Date("2026-01-01T00:05:01Z"));
const reason: string | undefined = run.condition("Scheduling")?.reason;
const response: SyncResponse = runHook(findController("cronjob")!, "sync", request, new Date(), undefined).response;
const names: string[] = run.created.map((j) => j.metadata.name);
export { reason, response, names };
// @ts-expect-error a time must be a Date or a string
runSync(request, 42);
`,
  );
  writeFileSync(
    join(consumer, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, types: [] }, files: ["consumer.ts"] }),
  );
  const out = run(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], consumer);
  assert.equal(out.status, 0, out.output);
});

test("the bundled command line names every package it copies, with its licence text", () => {
  const notices = readFileSync(join(consumer, "node_modules/metahooks/dist/bin/THIRD-PARTY-NOTICES.txt"), "utf8");
  for (const name of ["croner", "yaml", "zod"]) {
    const { version } = JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8"));
    assert.ok(notices.includes(`${name} ${version} (`), `${name} ${version} is named`);
  }
  assert.match(notices, /Permission is hereby granted/);
  assert.match(notices, /Permission to use, copy, modify/);
  // The server's packages are not copied: they load from node_modules when `serve` runs.
  const bundle = readdirSync(join(consumer, "node_modules/metahooks/dist/bin")).map((f) => readFileSync(join(consumer, "node_modules/metahooks/dist/bin", f), "utf8")).join("\n");
  for (const name of ["express", "pino", "prom-client", "@kubernetes/client-node"]) assert.ok(bundle.includes(`from "${name}"`) || bundle.includes(`import("${name}")`), `${name} is imported, not bundled`);
});

test("the installed bin serves: its server part loads express, pino and prom-client from node_modules", async () => {
  const bin = join(consumer, "node_modules/metahooks/bin/metahooks.js");
  const child = spawn(process.execPath, [bin, "serve"], { cwd: consumer, env: { ...process.env, PORT: "0", ADMIN_PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] });
  try {
    const { hookUrl } = await waitForListening(child, 30_000);
    assert.match(hookUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
});

test("the installed bin runs compiled code: sync, next and simulate", () => {
  const bin = join(consumer, "node_modules/metahooks/bin/metahooks.js");
  const sync = run(process.execPath, [bin, "sync", "cronjob", "--now", "2026-01-05T12:00:30Z"], consumer, readFileSync("examples/cronjob/sync-request.json", "utf8"));
  assert.equal(sync.status, 0, sync.output);
  assert.equal(JSON.parse(sync.stdout).children.length, 1);
  const next = run(process.execPath, [bin, "next", "30 2 * * *", "--time-zone", "Europe/Berlin", "--from", "2026-03-28", "-n", "2"], consumer);
  assert.match(next.stdout, /moved/);
  const simulate = run(process.execPath, [bin, "simulate", join(repo, "examples/cronjob/cronjob-sample.yaml"), "--from", "2026-01-01", "--to", "2026-01-01T00:10", "-o", "json"], consumer);
  assert.equal(simulate.status, 0, simulate.output);
  const { summary } = JSON.parse(simulate.stdout)[0];
  assert.equal(summary.created, 9, "a Job for every minute up to 00:09");
  assert.deepEqual(summary.skipped, { Pending: 1 }, "00:10 is due at the very end");
});
