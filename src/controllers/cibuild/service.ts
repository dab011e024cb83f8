/**
 * The app Service (v1, updated in place), present only when `deploy.port` is set.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import type { NormalizedSpec } from "./validate.ts";
import { appLabels } from "./deployment.ts";
import { childNames } from "./naming.ts";

/**
 * The Service `svc-<name>` in front of the Deployment, or undefined without `deploy.port`.
 * Never sets `clusterIP`: the apiserver allocates it and an in-place update keeps it.
 */
export function serviceFor(parentName: string, spec: NormalizedSpec): KubeObject | undefined {
  const { port, servicePort } = spec.deploy;
  if (port === undefined) return undefined;
  const names = childNames(parentName);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: names.service, labels: appLabels(parentName) },
    spec: {
      type: spec.deploy.serviceType,
      selector: { app: names.appLabel },
      ports: [{ name: "http", port: servicePort ?? port, targetPort: port, protocol: "TCP" }],
    },
  };
}
