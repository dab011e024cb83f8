/**
 * The CIBuild defaults table: what the hook assumes for every unset spec field. The mutating
 * webhook writes these, the CRD's descriptions show them, and normalisation reads them.
 *
 * Two defaults depend on other fields and are applied by the code that needs them:
 * `output.insecure` is true in legacy mode (no `spec.output`, `spec.imageDestination` set: the
 * seed's kind registry speaks plain HTTP), and `deploy.servicePort` is `deploy.port`.
 *
 * @packageDocumentation
 */
import type { SpecDefaults } from "../defaults.ts";

/** Defaults of unset spec fields (never stored by the apiserver: the stored spec is the build hash). */
export const CIBUILD_DEFAULTS = {
  source: { git: { sshKeySecretKey: "ssh", insecureIgnoreHostKey: false, depth: 1, submodules: "recursive" } },
  build: {
    strategy: "kaniko",
    dockerfile: "Dockerfile",
    buildArgs: [],
    cache: { enabled: false },
    reproducible: false,
    timeout: "30m",
    retries: 1,
  },
  output: { pushSecretKey: ".dockerconfigjson", insecure: false, immutableTag: true, additionalTags: [] },
  deploy: { enabled: true, replicas: 1, serviceType: "ClusterIP" },
  retention: { succeededLimit: 2, failedLimit: 2 },
  suspend: false,
} as const satisfies SpecDefaults;

/**
 * Object fields the mutating webhook completes only when the user set them: without `output` a
 * spec is in legacy mode, and adding `output` would switch it out of it.
 */
export const COMPLETE_ONLY_WHEN_SET: ReadonlySet<string> = new Set(["output"]);
