/**
 * The build Job's shell steps, run for real with /bin/sh against stub build tools on PATH that
 * behave as the real ones do (what they write, and when). The scripts' fixed paths are rewritten
 * to a temp dir only here.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILDKIT_METADATA_FILE, BUILDKIT_WRAPPER_SCRIPT } from "../../../src/controllers/cibuild/build-job.ts";
import { DIGEST, SEED_SPECS, SHA, buildPod, childOf, jobStatus, observe, parent, request, sync } from "./world.ts";

const TERMINATION_LOG = "/dev/termination-log";

/** What `buildctl --metadata-file` wrote for a pushed image, produced by Go's encoding/json (see the fixture's README). */
const BUILDCTL_METADATA = readFileSync("test/fixtures/build-tools/buildctl-metadata.json", "utf8");

/**
 * The metadata file as buildctl writes it (cmd/buildctl/build.go writeMetadataFile): a Go
 * `map[string]any` through `json.MarshalIndent(out, "", "  ")`, so top-level keys are sorted and
 * each sits on its own line indented by two spaces; base64 JSON values (the descriptor) are nested
 * objects keeping their own key order; no trailing newline.
 */
function writeLikeBuildctl(response: Record<string, unknown>): string {
  const sorted = Object.fromEntries(Object.keys(response).sort().map((k) => [k, response[k]]));
  return JSON.stringify(sorted, null, 2);
}

const sandboxes: string[] = [];
after(() => {
  for (const dir of sandboxes) rmSync(dir, { recursive: true, force: true });
});

function sandbox(): { root: string; bin: string; termination: string } {
  const root = mkdtempSync(join(tmpdir(), "cibuild-step-"));
  sandboxes.push(root);
  const bin = join(root, "bin");
  mkdirSync(bin);
  return { root, bin, termination: join(root, "termination-log") };
}

function stub(bin: string, name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
}

function runSh(script: string, args: string[], bin: string, env: Record<string, string> = {}): number {
  try {
    execFileSync("/bin/sh", ["-c", script, "step", ...args], { env: { PATH: `${bin}:/usr/bin:/bin`, ...env }, stdio: "pipe" });
    return 0;
  } catch (err) {
    return (err as { status: number }).status;
  }
}

test("buildctl metadata fixture: the JS writer reproduces Go's MarshalIndent byte for byte", () => {
  const parsed = JSON.parse(BUILDCTL_METADATA) as Record<string, unknown>;
  assert.equal(writeLikeBuildctl(parsed), BUILDCTL_METADATA);
  // The trap: sorted keys put the *config* digest first.
  assert.match(BUILDCTL_METADATA, /^\{\n {2}"containerimage\.config\.digest": "sha256:/);
});

/** Runs the BuildKit wrapper with a fake `buildctl-daemonless.sh` that writes `metadata` where asked. */
function runBuildkitWrapper(metadata: string | undefined, exitCode = 0) {
  const box = sandbox();
  const metadataFile = join(box.root, "metadata.json");
  writeFileSync(join(box.root, "metadata.src"), metadata ?? "");
  stub(
    box.bin,
    "buildctl-daemonless.sh",
    [
      'echo "$@" > "$STUB_DIR/argv"',
      // buildctl writes the file only after a successful solve.
      `[ ${exitCode} -eq 0 ] || { echo "error: failed to solve: process did not complete successfully" >&2; exit ${exitCode}; }`,
      'while [ $# -gt 0 ]; do if [ "$1" = --metadata-file ]; then cp "$STUB_DIR/metadata.src" "$2"; fi; shift; done',
    ].join("\n"),
  );
  const script = BUILDKIT_WRAPPER_SCRIPT.replaceAll(BUILDKIT_METADATA_FILE, metadataFile).replaceAll(TERMINATION_LOG, box.termination);
  const code = runSh(script, ["build", "--frontend=dockerfile.v0"], box.bin, { STUB_DIR: box.root });
  return { code, message: existsSync(box.termination) ? readFileSync(box.termination, "utf8") : undefined, argv: readFileSync(join(box.root, "argv"), "utf8") };
}

test("BuildKit wrapper reports containerimage.digest, not the first sha256 (the config digest) of buildctl's metadata file", () => {
  const run = runBuildkitWrapper(BUILDCTL_METADATA);
  assert.equal(run.code, 0);
  assert.equal(run.message, DIGEST);
  assert.match(run.argv, /^build --frontend=dockerfile\.v0 --metadata-file /);
});

test("BuildKit wrapper: key order or extra keys do not matter, a nested \"digest\" is never taken", () => {
  const config = "sha256:" + "0".repeat(64);
  const other = "sha256:" + "a".repeat(64);
  const response = {
    "containerimage.config.digest": config,
    "containerimage.descriptor": { mediaType: "application/vnd.oci.image.index.v1+json", digest: other, size: 855, annotations: { "containerimage.digest": other } },
    "containerimage.digest": DIGEST,
    "image.name": "r.example/a:1",
    "buildx.build.ref": "x",
  };
  assert.equal(runBuildkitWrapper(writeLikeBuildctl(response)).message, DIGEST);
  // Without containerimage.digest the wrapper reports nothing rather than a wrong digest.
  const { "containerimage.digest": _, ...noDigest } = response;
  const run = runBuildkitWrapper(writeLikeBuildctl(noDigest));
  assert.equal(run.code, 0);
  assert.equal(run.message, "");
});

test("BuildKit wrapper: a failed build exits with buildctl's code and writes no termination message (the log tail is shown)", () => {
  const run = runBuildkitWrapper(undefined, 1);
  assert.equal(run.code, 1);
  assert.equal(run.message, undefined);
});

// ---------------------------------------------------------------------------------------------
// kaniko: the build Pod's steps after `prepare`, run in Pod order with the kubelet's rules.

/**
 * A stand-in for the kaniko executor, as osscontainertools/kaniko pkg/executor/push.go behaves:
 * `DoPush` writes `--digest-file` for every cache layer push (the options are copied, digest file
 * included) and for the final image *before* pushing it to the destinations.
 */
const FAKE_KANIKO = [
  'digest_file=""',
  'for a in "$@"; do case "$a" in --digest-file=*) digest_file="${a#--digest-file=}" ;; esac; done',
  'echo "INFO[0001] Resolved base name golang:1.23 to builder"',
  'echo "INFO[0009] Pushing layer $CACHE_REF to cache now"',
  '[ -z "$digest_file" ] || printf "%s" "$CACHE_DIGEST" > "$digest_file"',
  'case "$OUTCOME" in',
  "  run-fails) echo 'error building image: error building stage: failed to execute command: waiting for process to exit: exit status 2' >&2; exit 1 ;;",
  '  push-fails) [ -z "$digest_file" ] || printf "%s" "$FINAL_DIGEST" > "$digest_file"',
  "    echo 'error pushing image: failed to push to destination kind-registry:5000/app:1.0: UNAUTHORIZED: authentication required' >&2; exit 1 ;;",
  '  *) [ -z "$digest_file" ] || printf "%s" "$FINAL_DIGEST" > "$digest_file"; echo "INFO[0042] Pushed kind-registry:5000/app@$FINAL_DIGEST" ;;',
  "esac",
].join("\n");

/** The kubelet's message for a terminated container (kubelet's MaxContainerTerminationMessageLogLines/Length: 80 lines, 2048 bytes). */
function terminationMessage(file: string, exitCode: number, logs: string, policy: string | undefined): string {
  const written = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (written !== "" || policy !== "FallbackToLogsOnError" || exitCode === 0) return written;
  const tail = logs.split("\n").slice(-80).join("\n");
  return tail.length > 2048 ? tail.slice(-2048) : tail;
}

interface StepRun {
  exitCode: number;
  message: string;
}

/**
 * Runs the build Job's containers from `build` on, the way the kubelet does: init containers in
 * order, each only after the previous one exited 0, then the main containers. A container without
 * `command` runs the image entrypoint: the fake kaniko executor above.
 */
function runBuildPodSteps(job: any, outcome: string): Record<string, StepRun> {
  const box = sandbox();
  stub(box.bin, "executor", FAKE_KANIKO);
  const spec = job.spec.template.spec;
  const ordered: any[] = [...spec.initContainers.map((c: any) => ({ c, init: true })), ...spec.containers.map((c: any) => ({ c, init: false }))];
  const from = ordered.findIndex((x) => x.c.name === "build");
  const rewrite = (text: string, termination: string) => text.replaceAll("/workspace", join(box.root, "workspace")).replaceAll(TERMINATION_LOG, termination);
  mkdirSync(join(box.root, "workspace", "context"), { recursive: true });
  const results: Record<string, StepRun> = {};
  for (const { c, init } of ordered.slice(from)) {
    const termination = join(box.root, `termination-${c.name}`);
    // `sh -c <script> [args]` runs with the system shell; no command means the image entrypoint.
    const [program, ...rest]: string[] = c.command ? ["/bin/sh", ...c.command.slice(1), ...(c.args ?? [])] : [join(box.bin, "executor"), ...(c.args ?? [])];
    const env = {
      PATH: `${box.bin}:/usr/bin:/bin`,
      OUTCOME: outcome,
      CACHE_REF: "kind-registry:5000/app/cache:0f1e2d",
      CACHE_DIGEST: "sha256:" + "c".repeat(64),
      FINAL_DIGEST: DIGEST,
    };
    let exitCode = 0;
    let logs = "";
    try {
      logs = execFileSync(program!, rest.map((a) => rewrite(a, termination)), { env, stdio: "pipe", encoding: "utf8" });
    } catch (err) {
      const e = err as { status: number; stdout: string; stderr: string };
      exitCode = e.status;
      logs = `${e.stdout}${e.stderr}`;
    }
    results[c.name] = { exitCode, message: terminationMessage(termination, exitCode, logs.trimEnd(), c.terminationMessagePolicy) };
    if (init && exitCode !== 0) break;
  }
  return results;
}

const kanikoSpec = { ...SEED_SPECS["build-go"], build: { cache: { enabled: true } } };

function hookAfter(results: Record<string, StepRun>, job: any) {
  const failed = Object.values(results).some((r) => r.exitCode !== 0);
  const outcomes = { "git-sync": {}, prepare: { message: SHA }, ...results };
  const pod = buildPod(job, "k1", "2026-03-02T10:00:07Z", outcomes);
  const observed = observe(job, "2026-03-02T10:00:06Z", jobStatus(failed ? "failed-backoff" : "complete", "2026-03-02T10:00:06Z", "2026-03-02T10:04:30Z"));
  return sync(request({ parent: parent(kanikoSpec), jobs: [observed], pods: [pod] }), "2026-03-02T10:04:31Z");
}

for (const [outcome, error] of [
  ["run-fails", /error building image: error building stage/],
  ["push-fails", /error pushing image: failed to push to destination .*UNAUTHORIZED/],
] as const) {
  test(`kaniko ${outcome} after a cache push: the build shows kaniko's error, never the cache digest`, () => {
    const job = childOf(sync(request({ parent: parent(kanikoSpec) }), "2026-03-02T10:00:05Z"), "Job") as any;
    const steps = runBuildPodSteps(job, outcome);
    assert.equal(steps.build!.exitCode, 1);
    assert.match(steps.build!.message, error);
    assert.doesNotMatch(steps.build!.message, /sha256:/);
    assert.equal(steps.digest, undefined, "the digest step never runs after a failed build");
    const r = hookAfter(steps, job);
    assert.equal(r.status.phase, "Failed");
    const current = r.status.currentBuild as any;
    assert.equal(current.reason, "BuildFailed");
    assert.match(current.message, error);
    assert.equal(current.digest, undefined);
    assert.equal(childOf(r, "Deployment"), undefined);
  });
}

test("kaniko success after cache pushes: the final image's digest is reported and deployed", () => {
  const job = childOf(sync(request({ parent: parent(kanikoSpec) }), "2026-03-02T10:00:05Z"), "Job") as any;
  const steps = runBuildPodSteps(job, "ok");
  assert.ok(Object.values(steps).every((s) => s.exitCode === 0), JSON.stringify(steps));
  const r = hookAfter(steps, job);
  assert.equal((r.status.currentBuild as any).digest, DIGEST);
  const image = (childOf(r, "Deployment") as any).spec.template.spec.containers[0].image;
  assert.equal(image, `kind-registry:5000/microservices-app1@${DIGEST}`);
});

test("digest step: only a bare sha256 digest is reported; a missing or odd file reports nothing", () => {
  const job = childOf(sync(request({ parent: parent(kanikoSpec) }), "2026-03-02T10:00:05Z"), "Job") as any;
  const script: string = job.spec.template.spec.containers.find((c: any) => c.name === "digest")?.command?.[2];
  assert.ok(script, "kaniko Jobs have a digest step");
  for (const [content, expected] of [
    [DIGEST, DIGEST],
    [`${DIGEST}\n`, DIGEST],
    [undefined, ""],
    ["", ""],
    [`${DIGEST}\n${"sha256:" + "c".repeat(64)}`, ""],
    ["sha256:XYZ", ""],
    ["$(touch pwned)", ""],
  ] as Array<[string | undefined, string]>) {
    const box = sandbox();
    mkdirSync(join(box.root, "workspace"));
    if (content !== undefined) writeFileSync(join(box.root, "workspace", "image-digest"), content);
    const code = runSh(script.replaceAll("/workspace", join(box.root, "workspace")).replaceAll(TERMINATION_LOG, box.termination), [], box.bin);
    assert.equal(code, 0);
    assert.equal(existsSync(box.termination) ? readFileSync(box.termination, "utf8") : "", expected, JSON.stringify(content));
  }
});
