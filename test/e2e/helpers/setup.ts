/**
 * Cluster-wide setup the e2e files share (each file may run alone, so every step is idempotent):
 * Metacontroller's real CRDs and our CRDs, applied with kubectl exactly as a user would.
 *
 * @packageDocumentation
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { kubectl, mustSucceed } from "./tools.ts";
import { resetDiscovery, type KubeObject } from "./kube.ts";
import { sharedPath } from "../../helpers/shared.ts";

/** Metacontroller's CRDs as published (in the shared folder beside the checkout: see helpers/shared.ts). */
export function upstreamMetacontrollerCrds(): string {
  return sharedPath("upstream", "metacontroller", "metacontroller-crds-v1.yaml");
}
/**
 * Our CRDs as users apply them with kubectl (`kubectl apply -f metacontroller/crds/`); the chart
 * renders byte-identical copies from its files/crds/.
 */
export const CHART_CRD_DIR = resolve("metacontroller", "crds");

/** Parses every document of a YAML file (YAML 1.2, the reading the file's author means). */
export function readYamlDocs(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
      return doc.toJSON() as KubeObject | null;
    })
    .filter((doc): doc is KubeObject => doc !== null);
}

/** The YAML files of a directory, sorted. */
export function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * Applies CRD files as the README tells users to (`kubectl apply -f`, strict field validation)
 * and waits until they are established. Client-side apply also takes over CRDs an earlier
 * `helm install` created, as a user's upgrade does.
 */
export function applyCrds(files: string[]): string[] {
  const names: string[] = [];
  for (const file of files) {
    mustSucceed(kubectl(["apply", "--validate=strict", "-f", file]), `kubectl apply -f ${file}`);
    names.push(...readYamlDocs(file).filter((d) => d.kind === "CustomResourceDefinition").map((d) => d.metadata.name!));
  }
  mustSucceed(kubectl(["wait", "--for=condition=Established", "--timeout=60s", ...names.map((n) => `crd/${n}`)]), "kubectl wait Established");
  resetDiscovery();
  return names;
}

/** Installs Metacontroller's real CRDs (CompositeController, DecoratorController, ControllerRevision). */
export function installMetacontrollerCrds(): string[] {
  return applyCrds([upstreamMetacontrollerCrds()]);
}

/** Installs our CRDs with kubectl from `metacontroller/crds/`. */
export function installOurCrds(): string[] {
  return applyCrds(yamlFiles(CHART_CRD_DIR));
}

/**
 * Differences where `actual` lost or changed something `expected` set (extra fields in `actual`,
 * such as server-side defaults, are fine). Returns JSON paths, empty when `expected` is kept.
 */
export function missingOrChanged(expected: unknown, actual: unknown, path = ""): string[] {
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return [`${path || "."}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([key, value]) => missingOrChanged(value, (actual as Record<string, unknown>)[key], `${path}.${key}`));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
    return expected.flatMap((value, i) => missingOrChanged(value, actual[i], `${path}[${i}]`));
  }
  return Object.is(expected, actual) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/**
 * What the apiserver stores for an object as sent: a Secret's `stringData` is write-only and
 * merged into `data` (base64), so compare against that.
 */
export function asStored(obj: KubeObject): KubeObject {
  if (obj.kind !== "Secret" || !obj.stringData) return obj;
  const { stringData, ...rest } = obj as KubeObject & { stringData: Record<string, string>; data?: Record<string, string> };
  const data = { ...(rest.data ?? {}) };
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, "utf8").toString("base64");
  return { ...rest, data };
}
