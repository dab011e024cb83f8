/**
 * The CIBuild customize hook: asks Metacontroller for the build Pods as related objects, so the
 * sync hook can read their termination messages (commit SHA, digest, failure text).
 *
 * Only Pods, and only build Pods: the selector requires the build-hash label, which app Pods do
 * not carry. Never Secrets — their data would be sent to the hook.
 *
 * @packageDocumentation
 */
import type { CustomizeRequest, CustomizeResponse } from "../../metacontroller/contract.ts";
import type { CIBuildOptions } from "./options.ts";
import { LABEL_BUILD_HASH, LABEL_CIBUILD, childNames } from "./naming.ts";
import { POD_RELATED } from "./resources.ts";

/**
 * The customize hook. Depends only on the parent's name, as Metacontroller caches the answer per
 * parent generation.
 */
export function customizeCIBuild(request: CustomizeRequest, _options?: CIBuildOptions): CustomizeResponse {
  return {
    relatedResources: [
      {
        apiVersion: POD_RELATED.apiVersion,
        resource: POD_RELATED.resource,
        labelSelector: {
          matchLabels: { [LABEL_CIBUILD]: childNames(request.parent.metadata.name).parentLabel },
          matchExpressions: [{ key: LABEL_BUILD_HASH, operator: "Exists" }],
        },
      },
    ],
  };
}
