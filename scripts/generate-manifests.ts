// Writes metacontroller/ (CRDs, CompositeControllers, kustomization) and the chart's generated
// files (charts/metahooks/files/crds/, charts/metahooks/files/compositecontrollers/) from the code.
// Usage: npm run generate
import { mkdirSync, writeFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { CHART_CONTROLLERS_DIR, CHART_CRDS_DIR, CHART_DIR, renderChartFiles, renderManifests } from "../src/crd/manifests.ts";

function writeAll(root: string, files: Map<string, string>, generatedDirs: string[]): void {
  for (const dir of generatedDirs) rmSync(join(root, dir), { recursive: true, force: true });
  for (const [path, content] of files) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    console.log(`wrote ${file}`);
  }
}

writeAll("metacontroller", renderManifests(), ["crds", "controllers"]);
// `crds` is where older versions put the CRDs (Helm's never-upgraded directory); remove it.
writeAll(CHART_DIR, renderChartFiles(), ["crds", CHART_CRDS_DIR, CHART_CONTROLLERS_DIR]);
