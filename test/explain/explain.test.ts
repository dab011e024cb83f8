import { test, before, after } from "node:test";
import { configureControllers } from "../../src/controllers/registry.ts";
import assert from "node:assert/strict";
import { runExplain } from "../../src/explain/command.ts";
import { formatLabelSelector } from "../../src/explain/gather.ts";
import { childChanges } from "../../src/explain/summary.ts";
import { describeInZone } from "../../src/controllers/cronjob/explain.ts";
import { startFakeApiServer, type FakeApiServer } from "../helpers/fake-apiserver.ts";
import { widgetController } from "../fixtures/kinds/widget/index.ts";

const NOW = new Date("2026-01-05T12:00:30Z");
const UID = "uid-widget-1";
const controllers = configureControllers({}, [widgetController]);

function job(name: string, labels: Record<string, string>, owner?: string) {
  return {
    resource: "jobs",
    object: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name,
        namespace: "team",
        labels,
        ...(owner ? { ownerReferences: [{ apiVersion: "example.com/v1", kind: "Widget", name: "w", uid: owner, controller: true }] } : {}),
      },
      spec: { template: { spec: { containers: [] } } },
      status: { active: 1 },
    },
  };
}

let api: FakeApiServer;
let kubeconfig: string;

before(async () => {
  api = await startFakeApiServer([
    {
      resource: "widgets",
      object: {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "w", namespace: "team", uid: UID, generation: 2, creationTimestamp: "2026-01-01T00:00:00Z" },
        spec: { schedule: "* * * * *", future: { kept: true } },
        status: {},
      },
    },
    job("w-1", { "controller-uid": UID }, UID), // ours
    job("other-1", { "controller-uid": UID }), // orphan with our label: adopted, then dropped by the hook
    job("w-stolen", { "controller-uid": UID }, "someone-else"), // controlled by another owner: not a child
    job("w-unlabelled", {}, UID), // no selector label: not a child
    { resource: "jobs", object: { ...job("w-2", { "controller-uid": UID }, UID).object, metadata: { name: "w-2", namespace: "elsewhere", labels: { "controller-uid": UID } } } },
    { resource: "pods", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "w-pod", namespace: "team", labels: { "example.com/widget": "w" } } } },
    { resource: "pods", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "x-pod", namespace: "team", labels: { "example.com/widget": "x" } } } },
  ]);
  kubeconfig = api.writeKubeconfig();
});

after(async () => {
  await api.close();
});

test("explain reads parent, children and related objects and prints what the hook would do", async () => {
  const out = await runExplain(["widget", "w", "-n", "team", "--kubeconfig", kubeconfig], { env: {}, clock: () => NOW, controllers });
  assert.equal(out.stderr, "");
  assert.equal(out.exitCode, 0);
  assert.equal(
    out.stdout,
    [
      "Widget team/w (generation 2) at 2026-01-05T12:00:30.000Z",
      "Hook:          sync",
      'Widget:        1 child(ren) to create, status {"observed":true,"pods":["w-pod"]}',
      "Children:",
      "  would create: Job/w-next",
      "  would delete: Job/other-1",
      "  would keep:   Job/w-1",
      "Decisions:     create w-next",
      "",
    ].join("\n"),
  );
  assert.ok(api.requests.includes("/apis/example.com/v1/namespaces/team/widgets/w"));
  assert.ok(api.requests.includes(`/apis/batch/v1/namespaces/team/jobs?labelSelector=controller-uid%3D${UID}`));
  assert.ok(api.requests.includes("/api/v1/namespaces/team/pods?labelSelector=example.com%2Fwidget%3Dw"));
});

test("without -n, explain uses the kubeconfig context's namespace, as kubectl does", async () => {
  const out = await runExplain(["widget", "w", "--kubeconfig", api.writeKubeconfig("team")], { env: {}, clock: () => NOW, controllers });
  assert.equal(out.exitCode, 0, out.stderr);
  assert.match(out.stdout, /^Widget team\/w /);
  const other = await runExplain(["widget", "w", "--kubeconfig", api.writeKubeconfig("elsewhere")], { env: {}, clock: () => NOW, controllers });
  assert.match(other.stderr, /Widget elsewhere\/w not found/);
});

test("explain -o json prints the raw hook response (unknown spec fields and related objects reach the hook)", async () => {
  const out = await runExplain(["widget", "w", "-n", "team", "-o", "json", "--kubeconfig", kubeconfig], { env: {}, clock: () => NOW, controllers });
  assert.equal(out.exitCode, 0, out.stderr);
  const response = JSON.parse(out.stdout);
  assert.deepEqual(response.status, { observed: true, pods: ["w-pod"] });
  assert.deepEqual(
    response.children.map((c: { metadata: { name: string } }) => c.metadata.name),
    ["w-1", "w-next"],
  );
});

test("explain reports a missing parent, a bad token and an unknown kind on stderr with exit 1, bad arguments with exit 2 (a usage error)", async () => {
  const missing = await runExplain(["widget", "nope", "-n", "team", "--kubeconfig", kubeconfig], { env: {}, clock: () => NOW, controllers });
  assert.equal(missing.exitCode, 1);
  assert.match(missing.stderr, /Widget team\/nope not found on http:\/\/127\.0\.0\.1:\d+/);

  const unknown = await runExplain(["gadget", "w", "--kubeconfig", kubeconfig], { env: {}, clock: () => NOW, controllers });
  assert.equal(unknown.exitCode, 1);
  assert.match(unknown.stderr, /unknown kind "gadget"; kinds: widget/);

  const badOutput = await runExplain(["widget", "w", "-o", "yaml"], { env: {}, clock: () => NOW, controllers });
  assert.equal(badOutput.exitCode, 2);
  assert.match(badOutput.stderr, /-o supports only "json"/);

  const noName = await runExplain(["widget"], { env: {}, clock: () => NOW, controllers });
  assert.equal(noName.exitCode, 2);
  assert.match(noName.stderr, /expected <kind> <name>/);

  const unauthorized = await runExplain(["widget", "w", "-n", "team"], {
    env: {},
    clock: () => NOW,
    controllers,
    loadReader: async () => ({ server: api.url, get: async () => Promise.reject(new Error("GET /x: HTTP 401: Unauthorized")) }),
  });
  assert.match(unauthorized.stderr, /HTTP 401: Unauthorized/);
});

test("a parent being deleted is explained through the finalize hook", async () => {
  const deleting = await startFakeApiServer([
    {
      resource: "widgets",
      object: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "team", uid: UID, deletionTimestamp: "2026-01-05T12:00:00Z" }, spec: { schedule: "x" } },
    },
  ]);
  try {
    const out = await runExplain(["widget", "w", "-n", "team", "--kubeconfig", deleting.writeKubeconfig()], { env: {}, clock: () => NOW, controllers });
    assert.equal(out.exitCode, 0, out.stderr);
    assert.match(out.stdout, /Hook: +finalize \(the parent is being deleted\)/);
    assert.match(out.stdout, /Finalized: +true/);
  } finally {
    await deleting.close();
  }
});

test("label selectors are formatted in the API's syntax", () => {
  assert.equal(
    formatLabelSelector({
      matchLabels: { a: "b" },
      matchExpressions: [
        { key: "c", operator: "In", values: ["d", "e"] },
        { key: "f", operator: "NotIn", values: ["g"] },
        { key: "h", operator: "Exists" },
        { key: "i", operator: "DoesNotExist" },
      ],
    }),
    "a=b,c in (d,e),f notin (g),h,!i",
  );
  assert.throws(() => formatLabelSelector({ matchExpressions: [{ key: "x", operator: "Gt" }] }), /unknown label selector operator/);
});

test("times are shown in the CronJob's zone with the UTC instant", () => {
  const t = new Date("2024-11-03T05:30:00Z");
  assert.equal(describeInZone(t, "UTC"), "2024-11-03T05:30:00Z");
  assert.equal(describeInZone(t, "America/New_York"), "2024-11-03 01:30:00 America/New_York (UTC-04:00) = 2024-11-03T05:30:00Z");
  assert.equal(describeInZone(new Date("2024-11-03T06:30:00Z"), "America/New_York"), "2024-11-03 01:30:00 America/New_York (UTC-05:00) = 2024-11-03T06:30:00Z");
  assert.equal(describeInZone(t, "Europe/London"), "2024-11-03 05:30:00 Europe/London (UTC+00:00) = 2024-11-03T05:30:00Z");
  assert.equal(describeInZone(t, "Not/AZone"), "2024-11-03T05:30:00Z");
});

test("child changes compare observed and desired by kind and name", () => {
  const obj = (kind: string, name: string) => ({ apiVersion: "v1", kind, metadata: { name } });
  assert.deepEqual(
    childChanges({ "Job.batch/v1": { a: obj("Job", "a"), b: obj("Job", "b") }, "Service.v1": {} }, [obj("Job", "b"), obj("Service", "a")]),
    { create: ["Service/a"], delete: ["Job/a"], keep: ["Job/b"] },
  );
});
