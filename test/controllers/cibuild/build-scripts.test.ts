/**
 * The build Job's shell steps, run for real with /bin/sh against stub build tools on PATH that
 * behave as the real ones do (what they write, and when). The scripts' fixed paths are rewritten
 * to a temp dir only here.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILDKIT_METADATA_FILE, BUILDKIT_WRAPPER_SCRIPT } from "../../../src/controllers/cibuild/build-job.ts";
import { DIGEST } from "./world.ts";

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

function sandbox(): { root: string; bin: string; termination: string } {
  const root = mkdtempSync(join(tmpdir(), "cibuild-step-"));
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
