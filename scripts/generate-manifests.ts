// Writes metacontroller/ (CRDs, CompositeControllers, kustomization) from the zod schemas.
// Usage: npm run generate
import { mkdirSync, writeFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { renderManifests } from "../src/crd/manifests.ts";

const root = "metacontroller";
rmSync(join(root, "crds"), { recursive: true, force: true });
rmSync(join(root, "controllers"), { recursive: true, force: true });
for (const [path, content] of renderManifests()) {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  console.log(`wrote ${file}`);
}
