import { test } from "node:test";
import assert from "node:assert/strict";
import { controllers } from "../../src/controllers/registry.ts";

/** JSON paths of every `properties: {}` below `node`. */
function emptyProperties(node: unknown, path = ""): string[] {
  if (node === null || typeof node !== "object") return [];
  if (Array.isArray(node)) return node.flatMap((child, i) => emptyProperties(child, `${path}[${i}]`));
  const found: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && value && typeof value === "object" && Object.keys(value).length === 0) found.push(`${path}.properties`);
    found.push(...emptyProperties(value, `${path}.${key}`));
  }
  return found;
}

// The apiserver drops an empty `properties` map when it stores a CRD. Left in the file, it makes
// `kubectl apply --server-side` of the CRD conflict with helm, which created it (found by the
// e2e tests on a real kube-apiserver).
test("generated CRDs contain no empty properties map", () => {
  for (const def of controllers) {
    assert.deepEqual(emptyProperties(def.crd()), [], `${def.name} CRD`);
  }
});
