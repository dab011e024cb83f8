/**
 * CIBuild sync bodies at each phase, for the benchmark. Empty until the CIBuild controller is
 * registered on this branch.
 */
import { findController } from "../src/controllers/registry.ts";

export function cibuildScenarios(): { name: string; path: string; body: string }[] {
  if (!findController("cibuild")) return [];
  return [];
}
