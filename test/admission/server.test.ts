import { test } from "node:test";
import { configureControllers } from "../../src/controllers/registry.ts";
import assert from "node:assert/strict";
import https from "node:https";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAdmissionConfig, startAdmissionServer } from "../../src/admission/server.ts";
import { silentLogger } from "../helpers/silent-logger.ts";
import { admissionReview } from "../helpers/requests.ts";
import { widget, widgetController, widgetReview } from "../fixtures/kinds/widget/index.ts";

function selfSigned(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", `/CN=${name}`, "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  return { cert, key };
}

function post(url: string, path: string, body: unknown, ca: Buffer): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, url), { method: "POST", ca, agent: false, headers: { "Content-Type": "application/json" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

test("admission config: off without TLS files, both files required, port default 9443", () => {
  assert.equal(loadAdmissionConfig({}), undefined);
  assert.throws(() => loadAdmissionConfig({ ADMISSION_TLS_CERT_FILE: "/c" }), /must be set together/);
  assert.throws(() => loadAdmissionConfig({ ADMISSION_TLS_CERT_FILE: "/c", ADMISSION_TLS_KEY_FILE: "/k", ADMISSION_PORT: "x" }), /ADMISSION_PORT/);
  assert.equal(loadAdmissionConfig({ ADMISSION_TLS_CERT_FILE: "/c", ADMISSION_TLS_KEY_FILE: "/k" })?.port, 9443);
});

test("the HTTPS admission listener serves only admission routes, verified against its CA", async () => {
  const dir = mkdtempSync(join(tmpdir(), "metahooks-tls-"));
  const pair = selfSigned(dir, "one");
  const service = await startAdmissionServer(
    { port: 0, host: "127.0.0.1", certFile: pair.cert, keyFile: pair.key, bodyLimitBytes: 1 << 20, fileWatchIntervalMs: 50 },
    { controllers: configureControllers({}, [widgetController]), logger: silentLogger },
  );
  try {
    const ca = readFileSync(pair.cert);
    const denied = await post(service.url, "/validate/widget", widgetReview("CREATE", widget({ schedule: "" })), ca);
    assert.equal(denied.status, 200);
    assert.equal(denied.body.response.allowed, false);
    const patched = await post(service.url, "/mutate/widget", widgetReview("CREATE", widget({ schedule: "x" })), ca);
    assert.equal(patched.body.response.patchType, "JSONPatch");
    const hook = await post(service.url, "/sync/widget", { parent: widget({ schedule: "x" }) }, ca);
    assert.equal(hook.status, 404);
    const bad = await post(service.url, "/validate/widget", { nope: 1 }, ca);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error, "invalid_request");

    // cert-manager renews the Secret in place: the listener picks up the new pair.
    const renewed = selfSigned(dir, "two");
    copyFileSync(renewed.cert, pair.cert);
    copyFileSync(renewed.key, pair.key);
    const newCa = readFileSync(renewed.cert);
    let ok = false;
    for (let i = 0; i < 100 && !ok; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ok = await post(service.url, "/validate/widget", widgetReview("CREATE", widget({ schedule: "x" })), newCa).then(
        (r) => r.status === 200,
        () => false,
      );
    }
    assert.ok(ok, "the renewed certificate is served");
    await assert.rejects(post(service.url, "/validate/widget", widgetReview("CREATE", widget({ schedule: "x" })), ca));
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("metahooks serve starts the admission listener when the TLS files are set", async () => {
  const dir = mkdtempSync(join(tmpdir(), "metahooks-serve-tls-"));
  const pair = selfSigned(dir, "serve");
  const child = spawn(process.execPath, ["bin/metahooks.js", "serve"], {
    env: { ...process.env, PORT: "0", ADMIN_PORT: "0", HOST: "127.0.0.1", ADMISSION_PORT: "0", ADMISSION_TLS_CERT_FILE: pair.cert, ADMISSION_TLS_KEY_FILE: pair.key, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buffer = "";
      const timer = setTimeout(() => reject(new Error(`no admission URL logged: ${buffer}`)), 20_000);
      child.stdout!.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const m = /"admissionUrl":"([^"]+)"/.exec(buffer);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${buffer}`)));
    });
    const review = admissionReview(
      { apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name: "bad", namespace: "default" }, spec: { schedule: "61 * * * *", jobTemplate: {} } },
      { namespace: "default" },
    );
    const res = await post(url, "/validate/cronjob", review, readFileSync(pair.cert));
    assert.equal(res.status, 200);
    assert.equal(res.body.response.allowed, false);
    assert.match(res.body.response.status.message, /spec\.schedule: .*\(InvalidSchedule\)/);
  } finally {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the admission listener shares the service's body budget and is drained with the hook listener on shutdown", async () => {
  const { startService } = await import("../../src/server.ts");
  const { loadServiceConfig } = await import("../../src/config.ts");
  const { configureControllers } = await import("../../src/controllers/registry.ts");
  const { slowPost } = await import("../helpers/slow-request.ts");
  const dir = mkdtempSync(join(tmpdir(), "metahooks-drain-"));
  const pair = selfSigned(dir, "drain");
  const service = await startService(loadServiceConfig({ PORT: "0", ADMIN_PORT: "0", HOST: "127.0.0.1", SHUTDOWN_GRACE_SECONDS: "10" }), {
    logger: silentLogger,
    controllers: configureControllers({}),
    admission: { port: 0, host: "127.0.0.1", certFile: pair.cert, keyFile: pair.key, bodyLimitBytes: 1 << 20, fileWatchIntervalMs: 50 },
  });
  try {
    assert.ok(service.admission, "serve started the admission listener");
    const review = admissionReview(
      { apiVersion: "batch.tutorial.kubebuilder.io/v1", kind: "CronJob", metadata: { name: "hello" }, spec: { schedule: "* * * * *" } },
      { uid: "u-drain" },
    );
    const inflight = slowPost(`${service.admission.url}/validate/cronjob`, JSON.stringify(review), { rejectUnauthorized: false });
    await inflight.sent;
    for (let i = 0; i < 200 && service.bodyBudget.inUse === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(service.bodyBudget.inUse > 0, "the admission body is counted in the shared budget");
    const closing = service.close();
    const early = await Promise.race([closing.then(() => "closed"), new Promise((r) => setTimeout(() => r("draining"), 300))]);
    assert.equal(early, "draining", "shutdown did not wait for the in-flight admission call");
    inflight.finish();
    const answer = await inflight.answer;
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.connection, "close");
    await closing;
    assert.equal(service.admission.server.listening, false);
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
