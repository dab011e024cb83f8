// The seed samples are committed twice (examples/ for users, test/fixtures/seed-samples/ for the
// tests): both must stay byte-identical to the originals in ../shared/seed-samples.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, sharedPath } from "./helpers/shared.ts";

test("test/fixtures/seed-samples and examples/ hold byte-identical copies of ../shared/seed-samples", () => {
  const copies: Array<[original: string, copy: string]> = [["cronjob/batch_v1_cronjob.yaml", "examples/cronjob/cronjob-sample.yaml"]];
  for (const kind of ["cronjob", "cibuild"]) {
    for (const file of readdirSync(sharedPath("seed-samples", kind))) {
      copies.push([`${kind}/${file}`, `test/fixtures/seed-samples/${kind}/${file}`]);
      if (kind === "cibuild" && file !== "cibuild-scaffold.yaml") copies.push([`${kind}/${file}`, `examples/cibuild/${file}`]);
    }
  }
  assert.ok(copies.length >= 10, `found ${copies.length} samples in ${sharedPath("seed-samples")}`);
  for (const [original, copy] of copies) {
    assert.equal(readFileSync(join(REPO_ROOT, copy), "utf8"), readFileSync(sharedPath("seed-samples", original), "utf8"), `${copy} differs from shared/seed-samples/${original}`);
  }
});
