/**
 * `npm run e2e`: builds the control plane's binaries when they are missing (Go, cached outside
 * the repository), starts etcd and a real kube-apiserver on loopback, runs every
 * `test/e2e/*.e2e.ts` with node's test runner against it, and stops everything it started, also
 * when the tests fail or the run is interrupted.
 *
 * Usage: npm run e2e [-- <substring filter>...]
 * Environment: METAHOOKS_E2E_CACHE (build cache), METAHOOKS_E2E_KEEP=1 (keep the temp dir with the
 * logs and kubeconfig), METACONTROLLER_BIN (enables the Metacontroller-in-the-loop tests).
 *
 * The tests read KUBECONFIG and METAHOOKS_E2E_PKI (the generated certificates) from the
 * environment this script gives them.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ensureBinaries } from "./controlplane/binaries.ts";
import { startControlPlane, type ControlPlane } from "./controlplane/control-plane.ts";

const log = (line: string) => console.error(`[e2e] ${line}`);

async function main(): Promise<number> {
  const filters = process.argv.slice(2);
  const files = readdirSync("test/e2e")
    .filter((f) => f.endsWith(".e2e.ts"))
    .map((f) => join("test/e2e", f))
    .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
    .sort();
  if (files.length === 0) {
    log("no e2e test files matched");
    return 1;
  }

  const started = Date.now();
  const binaries = await ensureBinaries(log);
  log(`binaries ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);

  let controlPlane: ControlPlane | undefined;
  let tests: ChildProcess | undefined;
  let interrupted: NodeJS.Signals | undefined;
  const keepDir = process.env.METAHOOKS_E2E_KEEP === "1";
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = signal;
    log(`${signal}: stopping`);
    tests?.kill(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  try {
    controlPlane = await startControlPlane(binaries, log);
    log(`control plane up after ${((Date.now() - started) / 1000).toFixed(1)} s (dir ${controlPlane.dir})`);
    if (interrupted) return 130;
    const env = { ...process.env, KUBECONFIG: controlPlane.kubeconfig, METAHOOKS_E2E_PKI: join(controlPlane.dir, "pki") };
    // One file at a time: the files share one apiserver and cluster-scoped objects (CRDs, the
    // CompositeControllers, webhook configurations), and the machine has few cores.
    tests = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", "--test-concurrency=1", ...files], {
      stdio: "inherit",
      env,
    });
    const code = await new Promise<number>((resolve) => tests!.on("exit", (c, s) => resolve(c ?? (s ? 128 : 1))));
    log(`tests finished (exit ${code}) after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return interrupted ? 130 : code;
  } finally {
    if (controlPlane) {
      await controlPlane.stop({ keepDir });
      log(keepDir ? `stopped; kept ${controlPlane.dir}` : "stopped etcd and kube-apiserver");
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    log(err.stack ?? err.message);
    process.exit(1);
  },
);
