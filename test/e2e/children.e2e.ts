/**
 * What the hooks emit, checked by a real kube-apiserver: every child of every golden fixture and
 * example request is created as a dry run (`dryRun=All`) with strict field validation, and every
 * status is written to the parent's `/status` subresource and read back unchanged (a field our
 * CRD does not declare would be pruned without an error on a real cluster).
 */
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { controllers } from "../../src/controllers/registry.ts";
import type { Kind } from "../../src/controllers/types.ts";
import { runHook } from "../../src/metacontroller/run-hook.ts";
import { loadGoldenCases } from "../helpers/golden.ts";
import { createNamespace, createObject, kubeRequest, objectPath, type KubeObject, requireE2eHarness } from "./helpers/kube.ts";
import { installOurCrds } from "./helpers/setup.ts";

requireE2eHarness();
let ns = "";

interface HookCase {
  label: string;
  def: Kind;
  hook: "sync" | "finalize";
  request: any;
  now: Date;
}

/**
 * The example requests of examples/ at the times their documentation uses (the README's
 * `--now` for the CIBuild walk-through, the CronJob example tests' clock).
 */
const EXAMPLE_REQUESTS: Array<{ file: string; kind: string; hook: "sync" | "finalize"; now: string }> = [
  { file: "examples/cronjob/sync-request.json", kind: "cronjob", hook: "sync", now: "2026-01-05T12:00:30Z" },
  { file: "examples/cronjob/sync-request-running.json", kind: "cronjob", hook: "sync", now: "2026-01-05T12:00:30Z" },
  { file: "examples/cronjob/finalize-request.json", kind: "cronjob", hook: "finalize", now: "2026-01-05T12:00:30Z" },
  { file: "examples/cibuild/go-1-fresh.request.json", kind: "cibuild", hook: "sync", now: "2026-03-02T10:00:05Z" },
  { file: "examples/cibuild/go-2-job-running.request.json", kind: "cibuild", hook: "sync", now: "2026-03-02T10:01:00Z" },
  { file: "examples/cibuild/go-3-job-succeeded.request.json", kind: "cibuild", hook: "sync", now: "2026-03-02T10:04:31Z" },
  { file: "examples/cibuild/go-4-deployment-available.request.json", kind: "cibuild", hook: "sync", now: "2026-03-02T10:06:01Z" },
];

function hookCases(): HookCase[] {
  const cases: HookCase[] = [];
  for (const def of controllers) {
    for (const golden of loadGoldenCases(def.name)) {
      if (golden.hook !== "sync" && golden.hook !== "finalize") continue;
      cases.push({ label: `${def.name}/${golden.name}`, def, hook: golden.hook, request: golden.request, now: golden.now });
    }
  }
  for (const example of EXAMPLE_REQUESTS) {
    const def = controllers.find((c) => c.name === example.kind)!;
    cases.push({ label: example.file, def, hook: example.hook, request: JSON.parse(readFileSync(example.file, "utf8")), now: new Date(example.now) });
  }
  return cases;
}

const cases = hookCases();

/** The hook's answer for a case, computed by the real hook code with the service's default options. */
function respond(c: HookCase) {
  const options = c.def.loadOptions ? c.def.loadOptions({}) : undefined;
  return runHook(c.def, c.hook, c.request, c.now, options).response;
}

before(async () => {
  installOurCrds();
  ns = await createNamespace("e2e-children");
});

test("the fixtures cover both kinds and emit children", () => {
  assert.ok(cases.filter((c) => c.def.name === "cronjob").length >= 10);
  assert.ok(cases.filter((c) => c.def.name === "cibuild").length >= 10);
  assert.ok(cases.reduce((n, c) => n + respond(c).children.length, 0) >= 20);
});

test("every child the hooks emit is accepted by the apiserver (dryRun=All, fieldValidation=Strict)", async () => {
  const rejected: string[] = [];
  let checked = 0;
  for (const c of cases) {
    const observed = new Set(observedNames(c.request));
    for (const child of respond(c).children as KubeObject[]) {
      // Metacontroller creates children in the parent's namespace.
      const obj = asNew({ ...child, metadata: { ...child.metadata, namespace: ns } }, observed.has(`${child.kind}/${child.metadata.name}`));
      const res = await createObject(obj, { dryRun: true });
      checked++;
      if (res.status !== 201) rejected.push(`${c.label}: ${child.kind} ${child.metadata.name}: ${res.status} ${res.body?.message ?? JSON.stringify(res.body)}`);
    }
  }
  assert.ok(checked > 0);
  assert.deepEqual(rejected, []);
});

/** `Kind/name` of every child the request says was observed. */
function observedNames(request: any): string[] {
  return Object.values((request.children ?? {}) as Record<string, Record<string, KubeObject> | null>).flatMap((group) =>
    Object.values(group ?? {}).map((o) => `${o.kind}/${o.metadata.name}`),
  );
}

/**
 * The child as a create request. A child the hook keeps comes back as it was observed, with what
 * the apiserver generated when it was first created: its identity (uid, resourceVersion, …), and
 * for a Job the selector and the `controller-uid`/`job-name` template labels derived from that
 * uid. Metacontroller updates such a child and leaves those fields as they are; to create it here
 * they go (the apiserver generates them again); every field the hook wrote stays.
 */
function asNew(child: KubeObject, observed: boolean): KubeObject {
  if (!observed) return child;
  const copy = structuredClone(child) as any;
  for (const key of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp"]) delete copy.metadata[key];
  delete copy.status;
  if (copy.kind === "Job" && !copy.spec?.manualSelector) {
    delete copy.spec.selector;
    const labels = copy.spec?.template?.metadata?.labels ?? {};
    for (const key of ["controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name"]) delete labels[key];
  }
  return copy;
}

const VALID_SPEC: Record<string, unknown> = {
  cronjob: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "OnFailure" } } } } },
  cibuild: { SCMRepoURL: "https://git.example.com/a.git", imageDestination: "registry.example.com/a:1" },
};

/** Creates the case's parent (its own spec; a valid one when the apiserver rejects that, as for invalid-spec fixtures). */
async function createParent(c: HookCase, name: string): Promise<any> {
  const parent = c.request.parent;
  const metadata = { name, namespace: ns, ...(parent.metadata.labels ? { labels: parent.metadata.labels } : {}) };
  let res = await createObject({ apiVersion: parent.apiVersion, kind: parent.kind, metadata, spec: parent.spec });
  // 400: a field the CRD does not declare (the seed's scaffold sample); 422: a value its schema rejects.
  if (res.status === 400 || res.status === 422) res = await createObject({ apiVersion: parent.apiVersion, kind: parent.kind, metadata, spec: VALID_SPEC[c.def.name] });
  assert.equal(res.status, 201, `${c.label}: parent not created: ${res.body?.message}`);
  return res.body;
}

for (const c of cases) {
  test(`status of ${c.label} is stored by /status and read back unchanged`, async () => {
    const response = respond(c);
    const name = `s-${c.label.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`.slice(0, 60).replace(/-+$/, "");
    const stored = await createParent(c, name);
    // Metacontroller writes the hook's status plus observedGeneration (the parent's generation).
    const status = { ...response.status, observedGeneration: stored.metadata.generation };
    const path = await objectPath(stored.apiVersion, stored.kind, ns, name, "status");
    const put = await kubeRequest("PUT", path, { body: { ...stored, status }, query: { fieldValidation: "Strict" } });
    assert.equal(put.status, 200, `PUT /status: ${put.status} ${put.body?.message ?? JSON.stringify(put.body)}`);
    const read = await kubeRequest("GET", await objectPath(stored.apiVersion, stored.kind, ns, name));
    assert.deepEqual(read.body.status, status);
  });
}
