/**
 * Builds (once) the binaries of the e2e control plane from the Go module in this directory and
 * caches them outside the repository, keyed by version:
 * `${METAHOOKS_E2E_CACHE:-${XDG_CACHE_HOME:-~/.cache}/metahooks-e2e}/k8s-<v>-etcd-<v>/`.
 * A cold build of kube-apiserver takes many minutes on two cores; a warm run only stats the files.
 *
 * @packageDocumentation
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ETCD_VERSION, KUBERNETES_VERSION } from "./versions.ts";

/** The Go module (go.mod, go.sum, cmd/) the binaries are built from. */
export const GO_MODULE_DIR = dirname(fileURLToPath(import.meta.url));

/** Absolute paths of the control-plane binaries. */
export interface Binaries {
  kubeApiserver: string;
  etcd: string;
  /** Our PKI generator (cmd/certs), keyed by the hash of its source. */
  certs: string;
}

/** Root of the build cache. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.METAHOOKS_E2E_CACHE || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "metahooks-e2e");
}

/** Where the binaries live for the pinned versions (whether built yet or not). */
export function binaryPaths(env: NodeJS.ProcessEnv = process.env): Binaries {
  const dir = join(cacheRoot(env), `k8s-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}`);
  const certsHash = createHash("sha256")
    .update(readFileSync(join(GO_MODULE_DIR, "cmd/certs/main.go")))
    .digest("hex")
    .slice(0, 12);
  return { kubeApiserver: join(dir, "kube-apiserver"), etcd: join(dir, "etcd"), certs: join(dir, `certs-${certsHash}`) };
}

/**
 * The version stamp `hack/lib/version.sh` gives a release build. Without it the apiserver reports
 * `v0.0.0-master`, and helm refuses charts with a `kubeVersion` constraint.
 */
function versionLdflags(): string {
  const [major, minor] = KUBERNETES_VERSION.replace(/^v/, "").split(".");
  const pkg = "k8s.io/component-base/version";
  return [
    "-s -w",
    `-X ${pkg}.gitVersion=${KUBERNETES_VERSION}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ].join(" ");
}

function goBuild(output: string, target: string, ldflags: string, log: (line: string) => void): Promise<void> {
  // Build into a temp name and rename: an interrupted build never leaves a binary that looks done.
  const tmp = `${output}.tmp-${process.pid}`;
  const args = ["build", "-p", "2", "-trimpath", `-ldflags=${ldflags}`, "-o", tmp, target];
  log(`go ${args.join(" ")}`);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, { cwd: GO_MODULE_DIR, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", (err) => reject(new Error(`cannot run go (is Go installed? npm run e2e needs it): ${err.message}`)));
    child.on("exit", (code, signal) => {
      if (code === 0) {
        renameSync(tmp, output);
        log(`built ${output} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
        resolve();
      } else {
        rmSync(tmp, { force: true });
        reject(new Error(`go build ${target} failed (${signal ?? `exit ${code}`})`));
      }
    });
  });
}

/**
 * Returns the binaries, building those that are missing.
 * @throws Error when Go is missing or a build fails
 */
export async function ensureBinaries(log: (line: string) => void = () => {}): Promise<Binaries> {
  const paths = binaryPaths();
  mkdirSync(dirname(paths.kubeApiserver), { recursive: true });
  if (!existsSync(paths.certs)) await goBuild(paths.certs, "./cmd/certs", "-s -w", log);
  if (!existsSync(paths.etcd)) await goBuild(paths.etcd, "./cmd/etcd", "-s -w", log);
  if (!existsSync(paths.kubeApiserver)) {
    await goBuild(paths.kubeApiserver, "k8s.io/kubernetes/cmd/kube-apiserver", versionLdflags(), log);
  }
  return paths;
}
