import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import request from "supertest";
import { parse, parseAllDocuments } from "yaml";
import { controllers, configureControllers } from "../../src/controllers/registry.ts";
import { createApp } from "../../src/http/app.ts";
import { createHash } from "node:crypto";
import { renderChart, runHelmAsync, stageChart, templateChart, TEST_IMAGE_REPOSITORY, type KubeDoc, type RenderOptions } from "../helpers/helm.ts";
import { startLookupApiserver, type CoreObject } from "../helpers/lookup-apiserver.ts";
import { assertValidCompositeController, metacontrollerValidators, prunedFields } from "../helpers/upstream-crd.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { MINIMAL_CRONJOB_SYNC } from "../helpers/requests.ts";

const TOKEN = "t0ken-".padEnd(40, "0");
const CA_PEM = "-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----\n";

function compositeControllers(docs: KubeDoc[]): KubeDoc[] {
  return docs.filter((d) => d.kind === "CompositeController");
}

/** The spec Metacontroller compares (DeepEqual) to decide whether to recreate a controller, by name. */
function specs(options: RenderOptions): Map<string, unknown> {
  return new Map(compositeControllers(renderChart(options)).map((cc) => [cc.metadata.name, cc.spec]));
}

describe("CompositeControllers against Metacontroller's real CRD", () => {
  test("the validator fails on what the apiserver would refuse or prune (so the tests below can fail)", () => {
    const cc = parse(readFileSync("metacontroller/controllers/cronjob.yaml", "utf8"));
    assert.doesNotThrow(() => assertValidCompositeController(cc));
    const wrongLayout = structuredClone(cc);
    wrongLayout.spec.hooks.sync.webhook.authorization = { type: "Bearer", credentials: { secretRef: { name: "s", namespace: "n", key: "token" } } };
    assert.throws(() => assertValidCompositeController(wrongLayout), /required property 'secretRef'.*credentials is not in the CRD's schema/s);
    const missingKey = structuredClone(cc);
    missingKey.spec.hooks.sync.webhook.authorization = { secretRef: { name: "s", namespace: "n" } };
    assert.throws(() => assertValidCompositeController(missingKey), /required property 'key'/);
    const typo = structuredClone(cc);
    typo.spec.hooks.sync.webhook.timeOut = "5s";
    assert.throws(() => assertValidCompositeController(typo), /\.spec\.hooks\.sync\.webhook\.timeOut is not in the CRD's schema/);
    const badDuration = structuredClone(cc);
    badDuration.spec.hooks.sync.webhook.timeout = "5 seconds";
    assert.throws(() => assertValidCompositeController(badDuration), /must match format "duration"/);
  });

  test("pruning keeps what x-kubernetes-preserve-unknown-fields and additionalProperties allow", () => {
    const schema = {
      type: "object",
      properties: {
        spec: { type: "object", properties: { a: { type: "string" }, free: { type: "object", "x-kubernetes-preserve-unknown-fields": true }, map: { type: "object", additionalProperties: { type: "object", properties: { x: { type: "string" } } } } } },
      },
    };
    const object = { apiVersion: "v", kind: "K", metadata: { name: "n", anything: 1 }, spec: { a: "1", b: 2, free: { deep: { z: 1 } }, map: { k: { x: "1", y: "2" } } } };
    assert.deepStrictEqual(prunedFields(object, schema).sort(), [".spec.b", ".spec.map.k.y"]);
  });

  test("metacontroller/controllers/*.yaml are stored unchanged by Metacontroller's CRD", () => {
    const files = readdirSync("metacontroller/controllers").filter((f) => f.endsWith(".yaml"));
    assert.equal(files.length, controllers.length);
    for (const file of files) {
      // helm and kubectl read YAML 1.1.
      const [cc] = parseAllDocuments(readFileSync(join("metacontroller/controllers", file), "utf8"), { version: "1.1" }).map((d) => d.toJSON());
      assertValidCompositeController(cc);
    }
    assert.ok(metacontrollerValidators().has("metacontroller.k8s.io/v1alpha1/CompositeController"));
  });

  // Every value that changes a CompositeController, each at least once, and together.
  const COMBINATIONS: Array<[string, RenderOptions]> = [
    ["defaults", {}],
    ["auth, generated token", { set: { "auth.enabled": "true" } }],
    ["auth, given token and extra tokens", { values: [{ auth: { enabled: true, token: TOKEN, extraTokens: ["n".repeat(32)] } }] }],
    ["auth, existing Secret", { set: { "auth.enabled": "true", "auth.existingSecret": "hook-token", "auth.secretKey": "bearer" } }],
    ["auth, authorization override", { values: [{ auth: { enabled: true, authorization: { secretRef: { name: "a", namespace: "b", key: "c" } } } }] }],
    ["TLS, CA from the Secret", { set: { "tls.enabled": "true", "tls.secretName": "hooks-tls" } }],
    ["TLS, inline CA", { values: [{ tls: { enabled: true, secretName: "hooks-tls", caBundle: { inline: CA_PEM } } }] }],
    ["TLS, CA from a ConfigMap", { values: [{ tls: { enabled: true, secretName: "hooks-tls", caBundle: { configMapRef: { name: "trust", namespace: "cert-manager" } } } }] }],
    ["hook version v2", { set: Object.fromEntries(controllers.map((d) => [`controllers.${d.name}.hookVersion`, "v2"])) }],
    ["hook version v1", { set: Object.fromEntries(controllers.map((d) => [`controllers.${d.name}.hookVersion`, "v1"])) }],
    ["hook timeouts", { set: Object.fromEntries(controllers.map((d) => [`controllers.${d.name}.hookTimeout`, "1m30s"])) }],
    ["credentials revision", { set: { credentialsRevision: "r7" } }],
    ...controllers.map((d): [string, RenderOptions] => [`only ${d.name} off`, { set: { [`controllers.${d.name}.enabled`]: "false" } }]),
    ...controllers.map((d): [string, RenderOptions] => [
      `only ${d.name} on`,
      { set: Object.fromEntries(controllers.filter((o) => o !== d).map((o) => [`controllers.${o.name}.enabled`, "false"])) },
    ]),
    [
      "everything together",
      {
        values: [{ auth: { enabled: true, token: TOKEN }, tls: { enabled: true, secretName: "hooks-tls", caBundle: { inline: CA_PEM } }, credentialsRevision: "r1" }],
        set: Object.fromEntries(controllers.flatMap((d) => [[`controllers.${d.name}.hookVersion`, "v2"], [`controllers.${d.name}.hookTimeout`, "25s"]])),
      },
    ],
  ];

  for (const [name, options] of COMBINATIONS) {
    test(`chart values "${name}": every CompositeController is stored unchanged, and reads the same under YAML 1.1`, () => {
      const result = templateChart(options);
      assert.equal(result.status, 0, result.stderr);
      const as11 = parseAllDocuments(result.stdout, { version: "1.1" }).map((d) => d.toJSON()).filter(Boolean);
      const as12 = parseAllDocuments(result.stdout, { version: "1.2" }).map((d) => d.toJSON()).filter(Boolean);
      assert.deepStrictEqual(as11, as12, "the rendered chart reads differently under YAML 1.1");
      const ccs = compositeControllers(as11 as KubeDoc[]);
      assert.ok(ccs.length >= 1);
      for (const cc of ccs) assertValidCompositeController(cc);
    });
  }
});

describe("credential rotation changes the CompositeController spec (Metacontroller re-reads only then)", () => {
  test("a new token changes every spec; the same values render the same spec", () => {
    const before = specs({ values: [{ auth: { enabled: true, token: TOKEN } }] });
    const again = specs({ values: [{ auth: { enabled: true, token: TOKEN } }] });
    const after = specs({ values: [{ auth: { enabled: true, token: TOKEN.replace(/0$/, "1") } }] });
    assert.equal(before.size, controllers.length);
    for (const [name, spec] of before) {
      assert.deepStrictEqual(again.get(name), spec, `${name}: an unchanged upgrade must not recreate the controller`);
      assert.notDeepStrictEqual(after.get(name), spec, `${name}: a new token must change the spec`);
    }
  });

  test("extra tokens (accepted, not sent) leave the spec alone", () => {
    const before = specs({ values: [{ auth: { enabled: true, token: TOKEN } }] });
    const after = specs({ values: [{ auth: { enabled: true, token: TOKEN, extraTokens: ["x".repeat(32)] } }] });
    assert.deepStrictEqual(after, before);
  });

  test("a new inline CA changes every spec", () => {
    const tls = (inline: string) => ({ values: [{ tls: { enabled: true, secretName: "hooks-tls", caBundle: { inline } } }] });
    const before = specs(tls(CA_PEM));
    const after = specs(tls(CA_PEM.replace("dummy", "other")));
    for (const [name, spec] of before) assert.notDeepStrictEqual(after.get(name), spec, name);
  });

  test("credentialsRevision (CA or existing Secret rotated where lookup cannot see it) changes every hook URL", () => {
    const before = compositeControllers(renderChart({ set: { "tls.enabled": "true", "tls.secretName": "hooks-tls" } }));
    const after = compositeControllers(renderChart({ set: { "tls.enabled": "true", "tls.secretName": "hooks-tls", credentialsRevision: "2026-12" } }));
    for (const cc of after) {
      const old = before.find((b) => b.metadata.name === cc.metadata.name)!;
      for (const [hookName, hook] of Object.entries<any>(cc.spec.hooks)) {
        const url = new URL(hook.webhook.url);
        assert.match(url.search, /^\?rev=[0-9a-f]{10}$/);
        assert.equal(url.pathname, new URL(old.spec.hooks[hookName].webhook.url).pathname);
        assert.notEqual(hook.webhook.url, old.spec.hooks[hookName].webhook.url);
      }
    }
  });

  test("the hook routes answer a URL that carries ?rev=", async () => {
    const app = createApp({ controllers: configureControllers({}), logger: silentLogger, clock: () => new Date("2026-01-05T12:00:30Z") });
    const res = await request(app).post("/sync/cronjob?rev=0123456789").send(MINIMAL_CRONJOB_SYNC).expect(200);
    assert.ok(Array.isArray(res.body.children));
  });
});

describe("rotation with the cluster's state (helm's lookup against a fake apiserver)", () => {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const secret = (name: string, data: Record<string, string>): CoreObject => ({ kind: "Secret", metadata: { name, namespace: "hooks" }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) });

  /** `helm template --dry-run=server` against a fake cluster holding `objects`, parsed. */
  async function renderAgainst(objects: CoreObject[], set: Record<string, string>): Promise<KubeDoc[]> {
    const api = await startLookupApiserver(objects);
    try {
      const args = ["template", "release", stageChart(), "--namespace", "hooks", "--dry-run=server", "--disable-openapi-validation", "--kube-apiserver", api.url, "--kubeconfig", "/dev/null"];
      for (const [k, v] of Object.entries({ "image.repository": TEST_IMAGE_REPOSITORY, ...set })) args.push("--set", `${k}=${v}`);
      const result = await runHelmAsync(args);
      assert.equal(result.status, 0, result.stderr);
      return parseAllDocuments(result.stdout).map((d) => d.toJSON() as KubeDoc).filter(Boolean);
    } finally {
      await api.close();
    }
  }
  const tokensOf = (docs: KubeDoc[]) => Buffer.from(docs.find((d) => d.kind === "Secret" && d.metadata.name === "release-metahooks-auth")!.data.tokens, "base64").toString();
  const sentSecretOf = (docs: KubeDoc[]) => (Object.values<any>(compositeControllers(docs)[0]!.spec.hooks)[0]).webhook.authorization.secretRef.name as string;
  const urlOf = (docs: KubeDoc[]) => new URL((Object.values<any>(compositeControllers(docs)[0]!.spec.hooks)[0]).webhook.url);

  test("an upgrade keeps a generated token, and leaves the spec as it was", async () => {
    const generated = "g".repeat(48);
    const docs = await renderAgainst([secret("release-metahooks-auth", { token: generated, tokens: `${generated}\n` })], { "auth.enabled": "true" });
    assert.equal(tokensOf(docs), `${generated}\n`);
    assert.equal(sentSecretOf(docs), `release-metahooks-auth-${createHash("sha256").update(generated).digest("hex").slice(0, 10)}`);
  });

  test("a new token: Metacontroller is pointed at it, the pods accept it and the old one until the next upgrade", async () => {
    const old = "o".repeat(40);
    const next = "n".repeat(40);
    const docs = await renderAgainst([secret("release-metahooks-auth", { token: old, tokens: `${old}\n` })], { "auth.enabled": "true", "auth.token": next });
    assert.equal(tokensOf(docs), `${next}\n${old}\n`);
    assert.equal(sentSecretOf(docs), `release-metahooks-auth-${createHash("sha256").update(next).digest("hex").slice(0, 10)}`);
    const settled = await renderAgainst([secret("release-metahooks-auth", { token: next, tokens: `${next}\n${old}\n` })], { "auth.enabled": "true", "auth.token": next });
    assert.equal(tokensOf(settled), `${next}\n`, "the next upgrade drops the old token");
  });

  test("a token changed inside auth.existingSecret changes the hook URLs' rev", async () => {
    const set = { "auth.enabled": "true", "auth.existingSecret": "hook-token" };
    const a = urlOf(await renderAgainst([secret("hook-token", { token: "a".repeat(32) })], set));
    const b = urlOf(await renderAgainst([secret("hook-token", { token: "b".repeat(32) })], set));
    assert.match(a.search, /^\?rev=[0-9a-f]{10}$/);
    assert.notEqual(a.search, b.search);
  });

  test("a new CA in the TLS Secret changes the hook URLs' rev", async () => {
    const set = { "tls.enabled": "true", "tls.secretName": "hooks-tls" };
    const a = urlOf(await renderAgainst([secret("hooks-tls", { "ca.crt": CA_PEM })], set));
    const b = urlOf(await renderAgainst([secret("hooks-tls", { "ca.crt": CA_PEM.replace("dummy", "other") })], set));
    assert.match(a.search, /^\?rev=[0-9a-f]{10}$/);
    assert.notEqual(a.search, b.search);
    const same = urlOf(await renderAgainst([secret("hooks-tls", { "ca.crt": CA_PEM, "tls.crt": "renewed leaf" })], set));
    assert.equal(same.search, a.search, "a leaf renewal under the same CA changes nothing");
  });
});
