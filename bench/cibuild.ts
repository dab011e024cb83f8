/**
 * CIBuild sync bodies at each phase, for the benchmark: the CIBuild golden fixtures
 * (test/fixtures/cibuild/<case>/request.json with their fixed clock in now.txt). Empty while the
 * CIBuild controller is not registered on this branch.
 */
import { existsSync, readFileSync } from "node:fs";
import { findController } from "../src/controllers/registry.ts";

/** Phase → fixture case. */
const PHASES: [phase: string, fixture: string][] = [
  ["fresh (Pending: creates the build Job)", "fresh"],
  ["Building (Job running)", "building"],
  ["Deploying (build succeeded, Deployment rolling out)", "succeeded-deploy"],
  ["Ready (Deployment available)", "ready"],
  ["Failed (build failed)", "failed-build"],
  ["Invalid (credentials in the git URL)", "invalid-credentials-in-url"],
];

export interface Scenario {
  name: string;
  path: string;
  body: string;
  /** The hook clock for this body (RFC 3339). */
  now: string;
  connections?: number;
}

export function cibuildScenarios(): Scenario[] {
  if (!findController("cibuild")) return [];
  const out: Scenario[] = [];
  for (const [phase, fixture] of PHASES) {
    const dir = new URL(`../test/fixtures/cibuild/${fixture}/`, import.meta.url);
    if (!existsSync(new URL("request.json", dir))) continue;
    out.push({
      name: `cibuild sync, ${phase}`,
      path: "/sync/cibuild",
      body: JSON.stringify(JSON.parse(readFileSync(new URL("request.json", dir), "utf8"))),
      now: readFileSync(new URL("now.txt", dir), "utf8").trim(),
    });
  }
  return out;
}
