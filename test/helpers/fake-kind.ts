/**
 * A small fake parent kind with admission support, so the admission and explain layers are tested
 * without depending on the real kinds' rules.
 */
import type { ControllerDefinition, SpecProblem } from "../../src/controllers/types.ts";
import type { KubeObject } from "../../src/metacontroller/contract.ts";
import { listChildren } from "../../src/metacontroller/contract.ts";
import { reemitObserved } from "../../src/kube/objects.ts";
import { buildCrd } from "../../src/crd/build-crd.ts";
import { z } from "zod";

/** Widget spec: `schedule` required (no `TZ=`), `mode` Allow|Forbid, `limits.kept` >= 0. */
export const WidgetSpec = z.object({
  schedule: z.string(),
  mode: z.enum(["Allow", "Forbid"]).optional(),
  suspend: z.boolean().optional(),
  limits: z.object({ kept: z.int().optional(), failed: z.int().optional() }).optional(),
  args: z.array(z.object({ name: z.string(), value: z.string().optional() })).optional(),
  labels: z.record(z.string(), z.string()).optional(),
});

function validateWidget(parent: KubeObject, oldParent?: KubeObject): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const spec = (parent as { spec?: unknown }).spec;
  const parsed = WidgetSpec.safeParse(spec);
  if (!parsed.success) return [{ reason: "InvalidSpec", field: "spec", message: parsed.error.issues[0]!.message }];
  if (parsed.data.schedule.startsWith("TZ=")) {
    const oldSchedule = (oldParent as { spec?: { schedule?: string } } | undefined)?.spec?.schedule;
    if (!oldSchedule?.startsWith("TZ=")) {
      problems.push({ reason: "InvalidSchedule", field: "spec.schedule", message: "TZ= is not allowed; use spec.timeZone" });
    }
  }
  if (parsed.data.schedule === "") problems.push({ reason: "InvalidSchedule", field: "spec.schedule", message: "must not be empty" });
  if ((parsed.data.limits?.kept ?? 0) < 0) problems.push({ reason: "InvalidLimit", field: "spec.limits.kept", message: "must be >= 0" });
  if (!oldParent && parent.metadata.name.length > 20) {
    problems.push({ reason: "NameTooLong", field: "metadata.name", message: "must be at most 20 characters" });
  }
  return problems;
}

function defaultWidget(spec: unknown): unknown {
  const parsed = WidgetSpec.safeParse(spec);
  if (!parsed.success) return spec;
  const s = parsed.data;
  return {
    ...s,
    mode: s.mode ?? "Allow",
    suspend: s.suspend ?? false,
    limits: { ...s.limits, kept: s.limits?.kept ?? 3, failed: s.limits?.failed ?? 1 },
    ...(s.args ? { args: s.args.map((a) => ({ ...a, value: a.value ?? "" })) } : {}),
  };
}

export const widgetController: ControllerDefinition<undefined> = {
  name: "widget",
  apiVersion: "example.com/v1",
  kind: "Widget",
  // Keeps Jobs named like the parent, drops the others, wants `<name>-next`; reports related pods.
  sync: (request) => {
    const name = request.parent.metadata.name;
    const kept = listChildren(request.children, "Job.batch/v1").filter((j) => j.metadata.name.startsWith(name));
    const next = { apiVersion: "batch/v1", kind: "Job", metadata: { name: `${name}-next` }, spec: {} };
    const pods = listChildren(request.related, "Pod.v1").map((p) => p.metadata.name);
    return {
      response: {
        status: { observed: true, ...(pods.length ? { pods } : {}) },
        children: [...kept.map(reemitObserved), ...(kept.some((j) => j.metadata.name === next.metadata.name) ? [] : [next])],
      },
      decisions: [{ action: "create", object: next.metadata.name }],
    };
  },
  finalize: () => ({ response: { status: {}, children: [], finalized: true }, decisions: [] }),
  admission: { validate: validateWidget, defaultSpec: defaultWidget },
  crd: () =>
    buildCrd({
      group: "example.com",
      version: "v1",
      kind: "Widget",
      plural: "widgets",
      singular: "widget",
      spec: WidgetSpec,
      status: z.looseObject({}),
      printerColumns: [],
    }),
  customize: (request) => ({
    relatedResources: [{ apiVersion: "v1", resource: "pods", labelSelector: { matchLabels: { "example.com/widget": request.parent.metadata.name } } }],
  }),
  compositeController: (base) => ({
    apiVersion: "metacontroller.k8s.io/v1alpha1",
    kind: "CompositeController",
    metadata: { name: "widget-controller" },
    spec: {
      generateSelector: true,
      parentResource: { apiVersion: "example.com/v1", resource: "widgets" },
      childResources: [{ apiVersion: "batch/v1", resource: "jobs" }],
      hooks: { sync: { webhook: { url: `${base}/sync/widget` } } },
    },
  }),
};

/** An AdmissionReview request for a Widget. */
export function widgetReview(
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT",
  object: unknown,
  oldObject?: unknown,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      kind: { group: "example.com", version: "v1", kind: "Widget" },
      resource: { group: "example.com", version: "v1", resource: "widgets" },
      name: (object as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? "w",
      namespace: "default",
      operation,
      userInfo: { username: "admin" },
      object: object ?? null,
      oldObject: oldObject ?? null,
      dryRun: false,
      ...extra,
    },
  };
}

/** A Widget object. */
export function widget(spec: unknown, name = "w", metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: "example.com/v1", kind: "Widget", metadata: { name, namespace: "default", ...metadata }, spec };
}
