/**
 * The CIBuild customize hook: asks Metacontroller for the build Pods as related objects, so the
 * sync hook can read their termination messages (commit SHA, digest, failure text; §3.4).
 *
 * Only Pods, and only build Pods: the selector requires the build-hash label, which app Pods do
 * not carry. Never Secrets — their data would be sent to the hook.
 *
 * @packageDocumentation
 */
import type { CustomizeRequest, CustomizeResponse } from "../../metacontroller/contract.ts";
import type { CIBuildOptions } from "./options.ts";
import { LABEL_BUILD_HASH, LABEL_CIBUILD, LABEL_PROBE, childNames } from "./naming.ts";

/**
 * The customize hook. Depends only on the parent's name and `spec.triggers.poll` (probe Pods), as
 * Metacontroller caches the answer per parent generation.
 */
export function customizeCIBuild(request: CustomizeRequest, _options?: CIBuildOptions): CustomizeResponse {
  const parentLabel = childNames(request.parent.metadata.name).parentLabel;
  const rules: CustomizeResponse["relatedResources"] = [
    {
      apiVersion: "v1",
      resource: "pods",
      labelSelector: {
        matchLabels: { [LABEL_CIBUILD]: parentLabel },
        matchExpressions: [{ key: LABEL_BUILD_HASH, operator: "Exists" }],
      },
    },
  ];
  // Probe Pods only when polling: the answer is cached per generation, and the spec decides.
  const spec = request.parent.spec as { triggers?: { poll?: unknown } } | undefined;
  if (spec && typeof spec === "object" && spec.triggers && typeof spec.triggers === "object" && spec.triggers.poll !== undefined) {
    rules.push({
      apiVersion: "v1",
      resource: "pods",
      labelSelector: { matchLabels: { [LABEL_CIBUILD]: parentLabel }, matchExpressions: [{ key: LABEL_PROBE, operator: "Exists" }] },
    });
  }
  return { relatedResources: rules };
}
