import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import https from "node:https";
import type { TLSSocket } from "node:tls";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, readFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { loadServiceConfig, type Env } from "../src/config.ts";
import { startService, type Service } from "../src/server.ts";
import { createMetrics } from "../src/http/metrics.ts";
import { configureControllers } from "../src/controllers/registry.ts";
import { silentLogger } from "./helpers/silent-logger.ts";
import { eventually, send, slowPost } from "./helpers/slow-request.ts";
import { MINIMAL_CRONJOB } from "./helpers/requests.ts";

const parent = MINIMAL_CRONJOB;
const BODY = JSON.stringify({ parent, children: { "Job.batch/v1": {} } });

async function start(env: Env = {}, logger = silentLogger): Promise<Service> {
  const config = { ...loadServiceConfig({ PORT: "0", ADMIN_PORT: "0", HOST: "127.0.0.1", ...env }), fileWatchIntervalMs: 20 };
  return startService(config, { logger, controllers: configureControllers({}), clock: () => new Date("2026-01-05T12:00:30Z") });
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "metahooks-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("config: defaults, ranges and pairs", () => {
  const c = loadServiceConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.adminPort, 9090);
  assert.equal(c.maxConcurrentHooks, 32);
  assert.equal(c.hookTimeBudgetMs, 5000);
  assert.ok(c.hookTimeBudgetMs < 10_000, "the budget must stay under Metacontroller's 10 s timeout");
  assert.equal(c.shutdownGraceSeconds, 20);
  assert.equal(c.authTokenFile, undefined);
  assert.equal(c.tls, undefined);
  assert.throws(() => loadServiceConfig({ MAX_CONCURRENT_HOOKS: "0" }), /MAX_CONCURRENT_HOOKS/);
  assert.throws(() => loadServiceConfig({ HOOK_TIME_BUDGET_MS: "-5" }), /HOOK_TIME_BUDGET_MS/);
  assert.throws(() => loadServiceConfig({ SHUTDOWN_GRACE_SECONDS: "1.5" }), /SHUTDOWN_GRACE_SECONDS/);
  assert.throws(() => loadServiceConfig({ TLS_CERT_FILE: "/x" }), /TLS_KEY_FILE/);
  assert.throws(() => loadServiceConfig({ PORT: "9090" }), /ADMIN_PORT/);
  assert.throws(() => loadServiceConfig({ LOG_LEVEL: "loud" }), /LOG_LEVEL/);
  assert.throws(() => loadServiceConfig({ SHUTDOWN_DELAY_SECONDS: "30", SHUTDOWN_GRACE_SECONDS: "10" }), /SHUTDOWN_DELAY_SECONDS/);
  assert.deepEqual(loadServiceConfig({ TLS_CERT_FILE: "/c", TLS_KEY_FILE: "/k", AUTH_TOKEN_FILE: "/t" }).tls, { certFile: "/c", keyFile: "/k" });
});

test("hook and admin ports: metrics only on admin, health on both", async () => {
  const service = await start();
  try {
    assert.equal((await send(`${service.hookUrl}/sync/cronjob`, BODY)).status, 200);
    assert.equal((await send(`${service.hookUrl}/healthz`)).status, 200);
    assert.equal((await send(`${service.hookUrl}/readyz`)).status, 200);
    assert.equal((await send(`${service.hookUrl}/metrics`)).status, 404);
    const metrics = await send(`${service.adminUrl}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /metahooks_hook_requests_total\{controller="cronjob",hook="sync",code="200",outcome="ok"\} 1/);
    assert.equal((await send(`${service.adminUrl}/readyz`)).status, 200);
  } finally {
    await service.close();
  }
});

test("graceful close: readiness false, in-flight call finishes, keep-alive sockets close, new connections refused", async () => {
  const lines: string[] = [];
  const logger = pino({ level: "info" }, new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } }));
  const service = await start({ SHUTDOWN_DELAY_SECONDS: "1", SHUTDOWN_GRACE_SECONDS: "10" }, logger);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  // An idle keep-alive socket from an earlier call: Node 20's close() alone would keep it open.
  const first = await send(`${service.hookUrl}/sync/cronjob`, BODY, { agent });
  assert.equal(first.headers.connection, "keep-alive");
  const idleSockets = Object.values(agent.freeSockets).flat();
  assert.equal(idleSockets.length, 1);
  const idleClosed = new Promise<void>((r) => idleSockets[0]!.once("close", () => r()));

  const inflight = slowPost(`${service.hookUrl}/sync/cronjob`, BODY);
  await inflight.sent;
  const closed = service.close();
  assert.equal(service.draining, true);
  assert.equal((await send(`${service.adminUrl}/readyz`)).status, 503);
  assert.equal((await send(`${service.hookUrl}/readyz`)).status, 503);
  assert.match((await send(`${service.adminUrl}/metrics`)).body, /metahooks_draining 1/);

  inflight.finish();
  const answer = await inflight.answer;
  assert.equal(answer.status, 200, "the in-flight call is answered");
  assert.equal(answer.headers.connection, "close");
  await idleClosed;
  await closed;
  await assert.rejects(send(`${service.hookUrl}/healthz`), /ECONNREFUSED/);
  await assert.rejects(send(`${service.adminUrl}/healthz`), /ECONNREFUSED/);
  agent.destroy();
  // The drain finished by itself: nothing had to be cut at the end of the grace period.
  assert.ok(lines.some((l) => l.includes('"msg":"stopped"')));
  assert.ok(!lines.some((l) => l.includes("grace period over")), "connections were only closed by the grace deadline");
});

test("a call that outlives the grace period is cut and close() still resolves", async () => {
  const service = await start({ SHUTDOWN_GRACE_SECONDS: "0", HOOK_TIME_BUDGET_MS: "60000" });
  const stuck = slowPost(`${service.hookUrl}/sync/cronjob`, BODY);
  await stuck.sent;
  await service.close();
  await assert.rejects(stuck.answer);
  assert.equal(await service.close(), undefined, "close() is idempotent");
});

test("AUTH_TOKEN_FILE: hook routes need the token, a rotated file takes effect, a broken one keeps the old token", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "token");
  writeFileSync(file, "first-token-0123\n");
  const lines: string[] = [];
  const logger = pino({ level: "debug" }, new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } }));
  const service = await start({ AUTH_TOKEN_FILE: file }, logger);
  try {
    const call = (token?: string) => send(`${service.hookUrl}/sync/cronjob`, BODY, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
    assert.equal((await call()).status, 401);
    assert.equal((await call("first-token-0123")).status, 200);
    assert.equal((await send(`${service.hookUrl}/healthz`)).status, 200);
    assert.equal((await send(`${service.adminUrl}/metrics`)).status, 200);

    // Kubernetes swaps a Secret volume's files atomically; a rename does the same here.
    writeFileSync(join(dir, "next"), "second-token-4567");
    renameSync(join(dir, "next"), file);
    assert.ok(await eventually(async () => (await call("second-token-4567")).status === 200), "the new token is accepted");
    assert.equal((await call("first-token-0123")).status, 401);

    writeFileSync(join(dir, "next"), "   \n");
    renameSync(join(dir, "next"), file);
    assert.ok(await eventually(async () => /file="auth_token",result="failure"/.test((await send(`${service.adminUrl}/metrics`)).body)));
    assert.equal((await call("second-token-4567")).status, 200, "an empty file keeps the previous token");
    const all = lines.join("") + (await send(`${service.adminUrl}/metrics`)).body;
    assert.ok(!all.includes("first-token-0123") && !all.includes("second-token-4567"), "a token leaked into logs or metrics");
  } finally {
    await service.close();
  }
});

test("AUTH_TOKEN_FILE with two lines accepts both tokens, so a rotation never answers 401", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "tokens");
  writeFileSync(file, "old-token-0123456789\n");
  const service = await start({ AUTH_TOKEN_FILE: file });
  try {
    const call = (token: string) => send(`${service.hookUrl}/sync/cronjob`, BODY, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal((await call("new-token-9876543210")).status, 401);
    // Step 1 of a rotation: the new token joins the old one.
    writeFileSync(join(dir, "next"), "new-token-9876543210\nold-token-0123456789\n");
    renameSync(join(dir, "next"), file);
    assert.ok(await eventually(async () => (await call("new-token-9876543210")).status === 200), "the new token is accepted");
    assert.equal((await call("old-token-0123456789")).status, 200, "the old token still passes while Metacontroller may send it");
    assert.equal((await call("other-token-000000000")).status, 401);
    // Step 2, once Metacontroller sends the new token: the old one goes.
    writeFileSync(join(dir, "next"), "new-token-9876543210\n");
    renameSync(join(dir, "next"), file);
    assert.ok(await eventually(async () => (await call("old-token-0123456789")).status === 401), "the old token is dropped");
    assert.equal((await call("new-token-9876543210")).status, 200);
  } finally {
    await service.close();
  }
});

test("AUTH_TOKEN_FILE that cannot be read stops start-up without naming its content", async (t) => {
  const dir = tempDir(t);
  await assert.rejects(start({ AUTH_TOKEN_FILE: join(dir, "missing") }), /AUTH_TOKEN_FILE .*missing cannot be read: ENOENT/);
  writeFileSync(join(dir, "empty"), "\n");
  await assert.rejects(start({ AUTH_TOKEN_FILE: join(dir, "empty") }), /must hold one token/);
  writeFileSync(join(dir, "spaces"), "two words\n");
  await assert.rejects(start({ AUTH_TOKEN_FILE: join(dir, "spaces") }), /one token of visible ASCII characters per line/);
});

/** A self-signed certificate; openssl is a prerequisite of the TLS tests (they fail without it). */
function makeCert(dir: string, cn: string): { cert: string; key: string } {
  const cert = join(dir, `${cn}.crt`);
  const key = join(dir, `${cn}.key`);
  const r = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", `/CN=${cn}`, "-keyout", key, "-out", cert], { stdio: "ignore" });
  assert.equal(r.status, 0, "openssl req failed: the TLS tests need openssl on PATH");
  return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
}

function peerCommonName(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.get(`${url}/healthz`, { rejectUnauthorized: false, agent: false }, (res) => {
      const cert = (res.socket as TLSSocket).getPeerCertificate();
      res.resume();
      resolve(String(cert.subject?.CN));
    });
    req.on("error", reject);
  });
}

test("TLS_CERT_FILE/TLS_KEY_FILE: hooks over HTTPS, certificate reloaded when the files change", async (t) => {
  const dir = tempDir(t);
  const one = makeCert(dir, "one");
  const two = makeCert(dir, "two");
  const certFile = join(dir, "tls.crt");
  const keyFile = join(dir, "tls.key");
  writeFileSync(certFile, one.cert);
  writeFileSync(keyFile, one.key);
  const service = await start({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile });
  try {
    assert.match(service.hookUrl, /^https:/);
    assert.match(service.adminUrl, /^http:/);
    assert.equal(await peerCommonName(service.hookUrl), "one");
    const answer = await send(`${service.hookUrl}/sync/cronjob`, BODY);
    assert.equal(answer.status, 200);

    // A mismatched pair (new cert, old key) mid-rotation keeps the old context.
    writeFileSync(certFile, two.cert);
    assert.ok(await eventually(async () => /file="tls",result="failure"/.test((await send(`${service.adminUrl}/metrics`)).body)));
    assert.equal(await peerCommonName(service.hookUrl), "one");

    writeFileSync(keyFile, two.key);
    assert.ok(await eventually(async () => (await peerCommonName(service.hookUrl)) === "two"), "the new certificate is served");
  } finally {
    await service.close();
  }
});

test("every service variable is documented in `metahooks --help` and the README", () => {
  const help = spawnSync(process.execPath, ["bin/metahooks.js", "--help"], { encoding: "utf8" }).stdout;
  const readme = readFileSync("README.md", "utf8");
  const vars = ["PORT", "ADMIN_PORT", "HOST", "LOG_LEVEL", "BODY_LIMIT_BYTES", "AUTH_TOKEN_FILE", "TLS_CERT_FILE", "TLS_KEY_FILE", "MAX_CONCURRENT_HOOKS", "HOOK_TIME_BUDGET_MS", "SHUTDOWN_GRACE_SECONDS", "SHUTDOWN_DELAY_SECONDS"];
  for (const v of vars) {
    assert.match(help, new RegExp(`\\b${v}\\b`), `${v} missing from --help`);
    assert.match(readme, new RegExp(`\`${v}\``), `${v} missing from the README`);
  }
  // …and every metric the service registers is in the README's metrics table.
  const names = (createMetrics().registry.getMetricsAsArray() as { name: string }[]).map((m) => m.name);
  assert.ok(names.length >= 9);
  for (const name of names) assert.ok(readme.includes(`\`${name}\``), `${name} missing from the README`);
});

test("without HOST the hook and admin ports answer on IPv6 and IPv4 loopback (IPv6-only clusters)", async (t) => {
  const probe = http.createServer();
  const hasIpv6 = await new Promise<boolean>((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(0, "::1", () => probe.close(() => resolve(true)));
  });
  assert.equal(loadServiceConfig({}).host, undefined, "no HOST: Node's dual-stack default");
  const config = { ...loadServiceConfig({ PORT: "0", ADMIN_PORT: "0" }), fileWatchIntervalMs: 20 };
  const service = await startService(config, { logger: silentLogger, controllers: configureControllers({}) });
  t.after(() => service.close());
  for (const base of [service.hookUrl, service.adminUrl]) {
    const port = new URL(base).port;
    // IPv4 always; IPv6 wherever the machine has an IPv6 loopback (the probe above).
    for (const host of hasIpv6 ? ["[::1]", "127.0.0.1"] : ["127.0.0.1"]) {
      const res = await fetch(`http://${host}:${port}/healthz`);
      assert.equal(res.status, 200, `${host}:${port}`);
    }
  }
});
