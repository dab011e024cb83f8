/**
 * PLACEHOLDER — replaced by the CronJob controller (issue 2). Keeps observed children unchanged.
 */
import { z } from "zod";
import type { ControllerDefinition } from "../types.ts";
import { listChildren } from "../../metacontroller/contract.ts";
import { reemitObserved } from "../../kube/objects.ts";
import { buildCrd } from "../../crd/build-crd.ts";

export const cronJobController: ControllerDefinition<undefined> = {
  name: "cronjob",
  apiVersion: "batch.tutorial.kubebuilder.io/v1",
  kind: "CronJob",
  sync: (request) => ({
    response: { status: {}, children: listChildren(request.children, "Job.batch/v1").map(reemitObserved) },
    decisions: [],
  }),
  finalize: (request) => ({
    response: { status: {}, children: [], finalized: listChildren(request.children, "Job.batch/v1").length === 0 },
    decisions: [],
  }),
  crd: () =>
    buildCrd({
      group: "batch.tutorial.kubebuilder.io",
      version: "v1",
      kind: "CronJob",
      plural: "cronjobs",
      singular: "cronjob",
      spec: z.looseObject({ schedule: z.string() }),
      status: z.looseObject({}),
      printerColumns: [],
    }),
  compositeController: (base) => ({
    apiVersion: "metacontroller.k8s.io/v1alpha1",
    kind: "CompositeController",
    metadata: { name: "cronjob-controller" },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: "batch.tutorial.kubebuilder.io/v1", resource: "cronjobs" },
      childResources: [{ apiVersion: "batch/v1", resource: "jobs" }],
      hooks: { sync: { webhook: { url: `${base}/sync/cronjob`, timeout: "10s" } } },
    },
  }),
};
