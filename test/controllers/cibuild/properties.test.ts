import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isDns1123Label, isLabelValue } from "../../../src/kube/names.ts";
import { assertValidKubeObject } from "../../helpers/k8s-schema.ts";
import { DIGEST, SEED_SPECS, SHA, buildPod, builtOutcomes, childOf, deploymentStatus, jobStatus, observe, parent, request, sync, type JobPhase } from "./world.ts";

const go = SEED_SPECS["build-go"]!;

const parentName = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,120}[a-z0-9])?$/);
const revision = fc.constantFrom(undefined, "main", "release/2.x", "v1.2.3", "0123456789abcdef0123456789abcdef01234567");
const spec = fc.record(
  {
    SCMRepoURL: fc.constantFrom("git@github.com:victorpaulo/microservices.git", "ssh://git@git.example.com:2222/team/app.git"),
    SCMSecret: fc.constantFrom("git-creds", "deploy-key"),
    SCMBranch: revision,
    subContext: fc.constantFrom(undefined, "app1", "services/api", "."),
    imageDestination: fc.constantFrom("kind-registry:5000/app:1.0", "registry.example.com/team/app", "ghcr.io/o/a:latest"),
    build: fc.record(
      {
        strategy: fc.constantFrom("kaniko", "buildkit"),
        dockerfile: fc.constantFrom("Dockerfile", "build/Dockerfile.prod"),
        buildArgs: fc.array(fc.record({ name: fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,10}$/), value: fc.string() }), { maxLength: 3 }).map((args) => args.filter((a, i) => args.findIndex((b) => b.name === a.name) === i)),
        timeout: fc.constantFrom("10m", "1h", "90s"),
        retries: fc.integer({ min: 0, max: 5 }),
      },
      { requiredKeys: [] },
    ),
    deploy: fc.record({ replicas: fc.integer({ min: 0, max: 5 }), port: fc.integer({ min: 1, max: 65535 }), enabled: fc.boolean() }, { requiredKeys: [] }),
    retention: fc.record({ succeededLimit: fc.integer({ min: 0, max: 3 }), failedLimit: fc.integer({ min: 0, max: 3 }) }, { requiredKeys: [] }),
    suspend: fc.boolean(),
    rebuildToken: fc.string({ maxLength: 8 }),
  },
  { requiredKeys: ["SCMRepoURL", "SCMSecret", "imageDestination"] },
).map((s) => JSON.parse(JSON.stringify(s)) as Record<string, unknown>);

const jobPhase = fc.constantFrom<JobPhase>("running", "complete", "failed-backoff", "failed-deadline", "failed-policy");

/** A world: a spec, some Jobs from earlier specs in various states, maybe a Deployment, and a previous status. */
const world = fc.record({
  name: parentName,
  spec,
  history: fc.array(fc.record({ token: fc.string({ maxLength: 4 }), phase: jobPhase, day: fc.integer({ min: 1, max: 28 }) }), { maxLength: 5 }),
  withDeployment: fc.boolean(),
  chainStatus: fc.boolean(),
});

function buildRequest(w: fc.Arbitrary<any> extends fc.Arbitrary<infer T> ? T : never) {
  const jobs = w.history.map((h: any) => {
    const r = sync(request({ parent: parent({ ...w.spec, rebuildToken: `old-${h.token}` }, { name: w.name }) }), "2026-03-01T00:00:00Z");
    const job = childOf(r, "Job");
    if (!job) return undefined;
    const day = String(h.day).padStart(2, "0");
    return observe(job, `2026-02-${day}T01:00:00Z`, jobStatus(h.phase, `2026-02-${day}T01:00:00Z`, `2026-02-${day}T01:10:00Z`));
  }).filter(Boolean);
  const unique = jobs.filter((j: any, i: number) => jobs.findIndex((k: any) => k.metadata.name === j.metadata.name) === i);
  const pods = unique.map((j: any, i: number) => buildPod(j, `p${i}`, "2026-02-01T01:00:01Z", builtOutcomes(j, SHA, DIGEST)));
  const deployments: any[] = [];
  if (w.withDeployment) {
    const d = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: `deploy-${w.name}`.slice(0, 63).replace(/[.-]+$/, ""), annotations: { "cicd.cicd.com/build-hash": "0000000000" } }, spec: { replicas: 1, selector: { matchLabels: { app: "x" } }, template: { metadata: { labels: { app: "x" } }, spec: { containers: [{ name: "app", image: `r.example/a@${DIGEST}` }] } } } };
    deployments.push(observe(d as any, "2026-02-01T00:00:00Z", deploymentStatus(1, 1)));
  }
  const base = request({ parent: parent(w.spec, { name: w.name }), jobs: unique as any, pods, deployments });
  if (!w.chainStatus) return base;
  const first = sync(base, "2026-03-02T10:00:00Z");
  return request({ parent: parent(w.spec, { name: w.name, status: first.status }), jobs: unique as any, pods, deployments });
}

test("property: same request and clock → byte-identical answer; a second call with its own status is stable", () => {
  fc.assert(
    fc.property(world, (w) => {
      const req = buildRequest(w);
      const a = JSON.stringify(sync(req, "2026-03-02T12:00:00Z"));
      const b = JSON.stringify(sync(structuredClone(req), "2026-03-02T12:00:00Z"));
      assert.equal(a, b);
      // Feeding the answer's status back (same observed world, later clock) changes no transition time.
      const r1 = JSON.parse(a);
      const again = sync({ ...req, parent: { ...(req as any).parent, status: r1.status } }, "2026-03-02T13:00:00Z");
      assert.deepStrictEqual(again.status, r1.status);
    }),
    { numRuns: 60 },
  );
});

test("property: every derived name and label value is a valid DNS-1123 label of at most 63 characters", () => {
  fc.assert(
    fc.property(world, (w) => {
      const r = sync(buildRequest(w), "2026-03-02T12:00:00Z");
      for (const child of r.children) {
        assertValidKubeObject(child);
        const spec = child.spec as any;
        if (child.metadata.labels?.["app.kubernetes.io/managed-by"] === "cibuild-hook") {
          assert.ok(isDns1123Label(child.metadata.name), child.metadata.name);
        }
        for (const labels of [child.metadata.labels, spec?.template?.metadata?.labels, spec?.selector?.matchLabels]) {
          for (const v of Object.values(labels ?? {})) assert.ok(isLabelValue(String(v)) && String(v).length <= 63, String(v));
        }
      }
    }),
    { numRuns: 60 },
  );
});

test("property: no credential value from a git URL appears anywhere in the answer", () => {
  const secret = fc.stringMatching(/^[A-Za-z0-9_~.-]{6,30}$/).filter((s) => !/^[.-]/.test(s) && !go.SCMRepoURL!.toString().includes(s) && !"cibuild".includes(s));
  const form = fc.constantFrom(
    (s: string) => `https://user:${s}@github.com/o/r.git`,
    (s: string) => `https://${s}@github.com/o/r.git`,
    (s: string) => `ssh://git:${s}@github.com/o/r.git`,
    (s: string) => `git:${s}@github.com:o/r.git`,
    (s: string) => `https://oauth2:${s}@gitlab.example.com/g/p.git`,
  );
  fc.assert(
    fc.property(secret, form, fc.boolean(), (s, f, structured) => {
      const url = f(s);
      const bad = structured ? { ...go, SCMRepoURL: undefined, source: { git: { url } } } : { ...go, SCMRepoURL: url };
      const ok = sync(request({ parent: parent(go) }), "2026-03-02T10:00:00Z");
      const job = observe(childOf(ok, "Job")!, "2026-03-02T10:00:01Z", jobStatus("running", "2026-03-02T10:00:01Z"));
      for (const h of ["sync", "finalize"] as const) {
        const r = sync(request({ parent: parent(JSON.parse(JSON.stringify(bad)), { status: ok.status }), jobs: [job], finalizing: h === "finalize" }), "2026-03-02T10:01:00Z", h);
        assert.ok(!JSON.stringify(r).includes(s), `credential echoed by ${h}`);
      }
    }),
    { numRuns: 100 },
  );
});

test("property: an invalid spec never drops an observed child", () => {
  const breaker = fc.constantFrom<Array<(s: Record<string, unknown>) => Record<string, unknown>>>(
    [(s) => ({ ...s, SCMRepoURL: "" })],
    [(s) => ({ ...s, imageDestination: "UPPER/case@sha256:1" })],
    [(s) => ({ ...s, subContext: "../up" })],
    [(s) => ({ ...s, SCMBranch: "-x" })],
    [(s) => ({ ...s, build: { strategy: "kaniko2" } })],
    [(s) => ({ ...s, build: { timeout: "soon" } })],
    [(s) => ({ ...s, source: { git: { url: "git@other:o/r.git" } } })],
    [(s) => ({ ...s, deploy: { replicas: -3 } })],
    [(s) => ({ ...s, SCMRepoURL: 42 })],
    [(s) => ({ ...s, SCMRepoURL: "ext::sh" })],
    [(s) => ({ ...s, build: { target: "a,b" } })],
    [() => ({ foo: "bar" })],
  );
  fc.assert(
    fc.property(world, breaker, (w, [breakSpec]) => {
      const req = buildRequest({ ...w, withDeployment: true }) as any;
      const observedNames = Object.values(req.children)
        .flatMap((group: any) => Object.values(group))
        .map((o: any) => `${o.kind}/${o.metadata.name}`)
        .sort();
      req.parent.spec = breakSpec!(w.spec);
      const r = sync(req, "2026-03-02T12:00:00Z");
      assert.equal(r.status.phase, "Invalid");
      assert.deepStrictEqual(r.children.map((c) => `${c.kind}/${c.metadata.name}`).sort(), observedNames);
    }),
    { numRuns: 60 },
  );
});

test("property: any JSON spec gets a 200-style answer (never a thrown error)", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const r = sync(request({ parent: parent(value) }), "2026-03-02T12:00:00Z");
      assert.ok(typeof r.status.phase === "string");
    }),
    { numRuns: 200 },
  );
});

test("property: a spec the hook accepts is accepted by the generated CRD schema", async () => {
  const { Ajv } = await import("ajv");
  const { ciBuildController } = await import("../../../src/controllers/cibuild/index.ts");
  const { validateSpec } = await import("../../../src/controllers/cibuild/validate.ts");
  const crd = ciBuildController.crd() as any;
  const schema = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(schema);
  fc.assert(
    fc.property(spec, (s) => {
      if (validateSpec(s).length > 0) return;
      assert.ok(validate(s), JSON.stringify(validate.errors));
    }),
    { numRuns: 200 },
  );
});

/** Hostile git URL classes git would not treat as a plain https/ssh remote. */
const helperScheme = fc.oneof(fc.constant(""), fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9+.-]{0,12}$/));
const urlTail = fc.string({ maxLength: 40 }).filter((s) => !/\s/.test(s));
const hostileGitUrl = fc.oneof(
  // `<transport>::<address>` runs git-remote-<transport> (ext:: runs any command).
  fc.tuple(fc.oneof(helperScheme, fc.constantFrom("ext", "fd", "ssh", "https", "git")), urlTail).map(([t, rest]) => `${t}::${rest}`),
  // file:// in any case, with or without a host.
  fc.tuple(fc.constantFrom("file", "FILE", "File"), fc.constantFrom("", "localhost"), fc.stringMatching(/^(\/[a-z0-9._-]{1,8}){1,4}$/)).map(([s, h, p]) => `${s}://${h}${p}`),
);

test("property: remote-helper URLs (<transport>::…) and file:// never reach git-sync", () => {
  fc.assert(
    fc.property(hostileGitUrl, fc.boolean(), (url, structured) => {
      const spec = structured ? { ...go, SCMRepoURL: undefined, source: { git: { url } } } : { ...go, SCMRepoURL: url };
      const r = sync(request({ parent: parent(JSON.parse(JSON.stringify(spec))) }), "2026-03-02T10:00:00Z");
      assert.equal(r.status.phase, "Invalid", url);
      const reason = (r.status.conditions as any[]).find((c) => c.type === "SpecValid").reason;
      // A URL that also carries user:password@ is refused for its credentials first.
      assert.ok(reason === "InvalidGitURL" || reason === "CredentialsInURL", `${url} → ${reason}`);
      assert.equal(childOf(r, "Job"), undefined);
    }),
    { numRuns: 200 },
  );
});

test("property: build.target reaches kaniko's comma-separated --target as exactly one stage (no , or quotes)", () => {
  const target = fc.oneof(fc.string({ maxLength: 12 }), fc.stringMatching(/^[a-z][a-z0-9._-]{0,8}$/), fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom(",", '"', "'"), fc.string({ maxLength: 5 })).map((p) => p.join("")));
  fc.assert(
    fc.property(target, fc.constantFrom("kaniko", "buildkit"), (t, strategy) => {
      const r = sync(request({ parent: parent({ ...go, build: { strategy, target: t } }) }), "2026-03-02T10:00:00Z");
      const job = childOf(r, "Job") as any;
      if (/[,"']/.test(t)) {
        assert.equal(r.status.phase, "Invalid", t);
        assert.equal(job, undefined);
        return;
      }
      if (!job) return; // other target problems (empty, whitespace) are refused too
      const pod = job.spec.template.spec;
      const args: string[] = [...pod.initContainers, ...pod.containers].find((c: any) => c.name === "build").args;
      const prefix = strategy === "kaniko" ? "--target=" : "--opt=target=";
      assert.deepStrictEqual(args.filter((a) => a.startsWith(prefix)), [`${prefix}${t}`]);
      assert.doesNotMatch(t, /[,"']/);
    }),
    { numRuns: 300 },
  );
});
