import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startFakeApiServer } from "../helpers/fake-apiserver.ts";
import { runCli } from "../../src/cli/main.ts";

// The real binary, spawned once per behaviour class below (output with exit 0, an error with exit 1);
// the other cases run the same command in process.
const run = promisify(execFile);

/** `metahooks <args…>` in process: exit code and what it wrote where. */
async function cli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readStdin: () => Buffer.alloc(0),
    env,
    clock: () => new Date(),
  });
  return { code, stdout, stderr };
}

test("metahooks explain works end to end from the CLI against a kubeconfig", async () => {
  const uid = "uid-cli";
  const api = await startFakeApiServer([
    {
      resource: "cronjobs",
      object: {
        apiVersion: "batch.tutorial.kubebuilder.io/v1",
        kind: "CronJob",
        metadata: { name: "nightly", namespace: "ops", uid, generation: 3, creationTimestamp: "2026-01-01T00:00:00Z" },
        spec: {
          schedule: "30 2 * * *",
          timeZone: "Europe/Berlin",
          concurrencyPolicy: "Forbid",
          jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } } },
        },
        status: { lastScheduleTime: "2026-01-04T01:30:00Z" },
      },
    },
    {
      resource: "jobs",
      object: {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: {
          name: "nightly-29455770",
          namespace: "ops",
          labels: { "controller-uid": uid },
          annotations: { "batch.tutorial.kubebuilder.io/scheduled-at": "2026-01-04T01:30:00Z" },
          ownerReferences: [{ apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", name: "nightly", uid, controller: true }],
        },
        spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } },
        status: { active: 1, startTime: "2026-01-04T01:30:01Z" },
      },
    },
  ]);
  try {
    const kubeconfig = api.writeKubeconfig();
    const { stdout } = await run(process.execPath, ["bin/metahooks.js", "explain", "cronjob", "nightly", "-n", "ops", "--kubeconfig", kubeconfig, "--now", "2026-01-05T01:31:00Z"]);
    assert.match(stdout, /^CronJob ops\/nightly \(generation 3\)/);
    assert.match(stdout, /^Last run: +2026-01-04 02:30:00 Europe\/Berlin \(UTC\+01:00\) = 2026-01-04T01:30:00Z$/m);
    assert.match(stdout, /^Next run: +2026-01-06 02:30:00 Europe\/Berlin \(UTC\+01:00\) = 2026-01-06T01:30:00Z$/m);
    assert.match(stdout, /^Due slot: +2026-01-05 02:30:00 Europe\/Berlin \(UTC\+01:00\) = 2026-01-05T01:30:00Z: skipped: ConcurrencyForbidden/m);
    assert.match(stdout, /would keep: +Job\/nightly-29455770/);
    // In process, the same text.
    assert.deepEqual(await cli(["explain", "cronjob", "nightly", "-n", "ops", "--kubeconfig", kubeconfig, "--now", "2026-01-05T01:31:00Z"]), { code: 0, stdout, stderr: "" });
    const json = await cli(["explain", "cronjob", "nightly", "-n", "ops", "-o", "json", "--kubeconfig", kubeconfig, "--now", "2026-01-05T01:31:00Z"]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout).children.map((c: any) => c.metadata.name), ["nightly-29455770"]);
    const help = await cli(["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /metahooks explain <kind> <name>/);
    const missing = await cli(["explain", "cronjob", "missing", "-n", "ops", "--kubeconfig", kubeconfig]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, "");
    assert.match(missing.stderr, /CronJob ops\/missing not found/);
  } finally {
    await api.close();
  }
});

test("metahooks explain without any kubeconfig says so plainly", async () => {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const home = mkdtempSync(join(tmpdir(), "metahooks-nohome-"));
  try {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !["KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"].includes(k)) env[k] = v;
    env.HOME = home;
    const failed = await run(process.execPath, ["bin/metahooks.js", "explain", "cronjob", "hello"], { env }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    assert.ok(failed, "explain succeeded without a kubeconfig");
    assert.equal(failed.code, 1);
    assert.match(String(failed.stderr), /no kubeconfig found: pass --kubeconfig <file>, set KUBECONFIG, or create .*\.kube\/config/);
    const missing = await cli(["explain", "cronjob", "hello", "--kubeconfig", join(home, "nope")], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /kubeconfig file .*nope" does not exist/);
    // A kubeconfig that is not YAML: the parser's error quotes the lines around it (here a
    // token); only the reason and the position are printed.
    const { writeFileSync } = await import("node:fs");
    const secret = "sha256~SuperSecretTokenValue1234567890";
    const broken = join(home, "broken");
    writeFileSync(broken, `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${secret}\n     client-key-data: x: y\n`);
    const bad = await cli(["explain", "cronjob", "hello", "--kubeconfig", broken], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /kubeconfig .*broken is not valid YAML: bad indentation of a mapping entry at line 7, column 21/);
    assert.ok(!bad.stderr.includes("sha256~") && !bad.stderr.includes("Secret"), bad.stderr);
    writeFileSync(broken, `users:\n- name: u\n  user:\n    token: "${secret}\n`);
    const unterminated = await cli(["explain", "cronjob", "hello", "--kubeconfig", broken], env);
    assert.match(unterminated.stderr, /is not valid YAML: unexpected end of the stream within a double quoted scalar/);
    assert.ok(!unterminated.stderr.includes("sha256~") && !unterminated.stderr.includes("Secret"), unterminated.stderr);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
