import { test } from "node:test";
import assert from "node:assert/strict";
import { runCliInProcess } from "../../helpers/cli.ts";
import request from "supertest";
import { DEFAULT_CIBUILD_OPTIONS, loadCIBuildOptions } from "../../../src/controllers/cibuild/options.ts";
import { createApp } from "../../../src/http/app.ts";
import { configureControllers, findController } from "../../../src/controllers/registry.ts";
import { silentLogger } from "../../helpers/silent-logger.ts";
import { SEED_SPECS, parent, request as hookRequest } from "./world.ts";

test("loadOptions: pinned defaults, overridden by GIT_SYNC_IMAGE / PREPARE_IMAGE / KANIKO_IMAGE / BUILDKIT_IMAGE", () => {
  assert.deepStrictEqual(loadCIBuildOptions({}), DEFAULT_CIBUILD_OPTIONS);
  assert.match(DEFAULT_CIBUILD_OPTIONS.gitSyncImage, /^registry\.k8s\.io\/git-sync\/git-sync:v4\.\d+\.\d+$/);
  assert.match(DEFAULT_CIBUILD_OPTIONS.kanikoImage, /^ghcr\.io\/osscontainertools\/kaniko:v\d+\.\d+\.\d+$/);
  assert.match(DEFAULT_CIBUILD_OPTIONS.buildkitImage, /moby\/buildkit:v\d+\.\d+\.\d+-rootless$/);
  assert.match(DEFAULT_CIBUILD_OPTIONS.prepareImage, /busybox:\d+\.\d+\.\d+$/);
  const digest = `mirror.example.com/kaniko@sha256:${"a".repeat(64)}`;
  const options = loadCIBuildOptions({
    GIT_SYNC_IMAGE: "mirror.example.com/git-sync:v4.7.1",
    PREPARE_IMAGE: "mirror.example.com/busybox:1.37.0",
    KANIKO_IMAGE: digest,
    BUILDKIT_IMAGE: "",
  });
  assert.equal(options.gitSyncImage, "mirror.example.com/git-sync:v4.7.1");
  assert.equal(options.kanikoImage, digest);
  assert.equal(options.buildkitImage, DEFAULT_CIBUILD_OPTIONS.buildkitImage);
  assert.throws(() => loadCIBuildOptions({ KANIKO_IMAGE: "gcr.io/kaniko-project/executor:latest" }), /KANIKO_IMAGE.*pinned/);
  assert.throws(() => loadCIBuildOptions({ PREPARE_IMAGE: "alpine" }), /PREPARE_IMAGE/);
  assert.throws(() => loadCIBuildOptions({ GIT_SYNC_IMAGE: "x y:1" }), /GIT_SYNC_IMAGE/);
});

test("BUILD_WORKSPACE_SIZE_LIMIT: unset leaves the build Pod's emptyDirs unbounded; set, it bounds workspace and buildkitd", () => {
  const def = findController("cibuild")!;
  const volumesOf = (env: Record<string, string>, spec: unknown) => {
    const [configured] = configureControllers(env).filter((c) => c.def.name === "cibuild");
    const r = def.sync(hookRequest({ parent: parent(spec) }) as any, new Date("2026-03-02T10:00:00Z"), configured!.options);
    return Object.fromEntries((r.response.children[0] as any).spec.template.spec.volumes.filter((v: any) => v.emptyDir).map((v: any) => [v.name, v.emptyDir]));
  };
  assert.deepStrictEqual(volumesOf({}, SEED_SPECS["build-go"]), { workspace: {} });
  assert.deepStrictEqual(volumesOf({ BUILD_WORKSPACE_SIZE_LIMIT: "10Gi" }, SEED_SPECS["build-go"]), { workspace: { sizeLimit: "10Gi" } });
  const buildkit = { ...(SEED_SPECS["build-go"] as object), build: { strategy: "buildkit" } };
  assert.deepStrictEqual(volumesOf({ BUILD_WORKSPACE_SIZE_LIMIT: "500M" }, buildkit), { workspace: { sizeLimit: "500M" }, buildkitd: { sizeLimit: "500M" } });
  for (const bad of ["10 Gi", "-1Gi", "0", "lots", "1Gb"]) {
    assert.throws(() => loadCIBuildOptions({ BUILD_WORKSPACE_SIZE_LIMIT: bad }), /BUILD_WORKSPACE_SIZE_LIMIT must be a positive quantity/, bad);
  }
});

test("the configured images reach the build Job", () => {
  const [configured] = configureControllers({ KANIKO_IMAGE: "mirror.example.com/kaniko:v1.28.3" }).filter((c) => c.def.name === "cibuild");
  assert.ok(configured);
  const def = findController("cibuild")!;
  const r = def.sync(hookRequest({ parent: parent(SEED_SPECS["build-go"]) }) as any, new Date("2026-03-02T10:00:00Z"), configured.options);
  const job = r.response.children[0] as any;
  const build = job.spec.template.spec.initContainers.find((c: any) => c.name === "build");
  assert.equal(build.image, "mirror.example.com/kaniko:v1.28.3");
});

test("--help documents the build image variables", async () => {
  const out = await runCliInProcess(["--help"]);
  assert.equal(out.status, 0);
  for (const word of ["cibuild", "GIT_SYNC_IMAGE", "PREPARE_IMAGE", "KANIKO_IMAGE", "BUILDKIT_IMAGE", DEFAULT_CIBUILD_OPTIONS.kanikoImage]) {
    assert.ok(out.stdout.includes(word), word);
  }
});

test("HTTP: /sync, /finalize and /customize cibuild routes", async () => {
  const app = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => new Date("2026-03-02T10:00:00Z") });
  const body = hookRequest({ parent: parent(SEED_SPECS["build-go"]) });
  const sync = await request(app).post("/sync/cibuild").send(body).expect(200);
  assert.equal(sync.body.children[0].kind, "Job");
  const fin = await request(app).post("/finalize/cibuild").send(body).expect(200);
  assert.deepStrictEqual([fin.body.children, fin.body.finalized], [[], true]);
  const cust = await request(app).post("/customize/cibuild").send({ parent: body.parent }).expect(200);
  assert.deepStrictEqual(cust.body.relatedResources.map((r: any) => r.resource), ["pods"]);
  assert.ok(!JSON.stringify(cust.body).includes("secrets"));
  // A CronJob parent on the CIBuild route is not a CIBuild request.
  await request(app).post("/sync/cibuild").send({ parent: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } } }).expect(422);
});

test("CLI: `metahooks customize cibuild` asks only for build Pods", async () => {
  const out = await runCliInProcess(["customize", "cibuild"], { input: JSON.stringify({ parent: parent(SEED_SPECS["build-go"]) }) });
  assert.equal(out.status, 0, out.stderr);
  const rule = JSON.parse(out.stdout).relatedResources[0];
  assert.deepStrictEqual(rule, {
    apiVersion: "v1",
    resource: "pods",
    labelSelector: { matchLabels: { "cicd.cicd.com/cibuild": "build-go" }, matchExpressions: [{ key: "cicd.cicd.com/build-hash", operator: "Exists" }] },
  });
});

test("the package API exports the pure CIBuild hook", async () => {
  const api = await import("../../../src/index.ts");
  const { SyncRequestSchema, syncCIBuild, DEFAULT_CIBUILD_OPTIONS, computeBuildHash, CIBuildSpecReason } = api;
  const { response } = syncCIBuild(SyncRequestSchema.parse(hookRequest({ parent: parent(SEED_SPECS["build-go"]) })), new Date("2026-03-02T10:00:05Z"), DEFAULT_CIBUILD_OPTIONS);
  assert.equal(response.children[0]!.metadata.name, `build-go-${computeBuildHash(SEED_SPECS["build-go"])}`);
  assert.equal(CIBuildSpecReason.CredentialsInURL, "CredentialsInURL");
  assert.ok(api.findController("cibuild"));
});
