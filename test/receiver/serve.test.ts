// The push receiver inside `metahooks serve` (a real process, a fake Kubernetes API): its
// deliveries are counted on the admin port, and SIGTERM drains it like the hook listener.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { createInterface } from "node:readline";
import { startFakeApiServer, type StoredObject } from "../helpers/fake-apiserver.ts";
import { eventually, send } from "../helpers/slow-request.ts";

const SECRET = "push-secret-a";
const SHA = "0123456789abcdef0123456789abcdef01234567";
const objects: StoredObject[] = [
  {
    resource: "cibuilds",
    object: {
      apiVersion: "cicd.cicd.com/v1alpha1",
      kind: "CIBuild",
      metadata: { name: "web", namespace: "team-a", resourceVersion: "1" },
      spec: { source: { git: { url: "https://github.com/acme/web", revision: "main" } }, output: { image: "r.example/web" }, triggers: { push: { secretRef: { name: "webhook" } } } },
    },
  },
  { resource: "secrets", object: { apiVersion: "v1", kind: "Secret", metadata: { name: "webhook", namespace: "team-a" }, data: { token: Buffer.from(SECRET).toString("base64") } } },
];
const body = JSON.stringify({
  ref: "refs/heads/main",
  before: "f".repeat(40),
  after: SHA,
  deleted: false,
  repository: { full_name: "acme/web", clone_url: "https://github.com/acme/web.git", html_url: "https://github.com/acme/web", default_branch: "main" },
});
const headers = (delivery: string, signature = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`) => ({
  "X-GitHub-Event": "push",
  "X-GitHub-Delivery": delivery,
  "X-Hub-Signature-256": signature,
});

test("serve with RECEIVER_PORT: deliveries are counted on the admin port; SIGTERM answers the delivery in flight, then exits 0", async () => {
  let release: (() => void) | undefined;
  let held: Promise<void> | undefined;
  const api = await startFakeApiServer(structuredClone(objects), { writable: true, hold: () => held });
  const child = spawn(process.execPath, ["bin/metahooks.js", "serve"], {
    env: { ...process.env, PORT: "0", ADMIN_PORT: "0", RECEIVER_PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", SHUTDOWN_GRACE_SECONDS: "15", KUBECONFIG: api.writeKubeconfig() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += String(c)));
  const lines: string[] = [];
  try {
    const urls = await new Promise<{ receiverUrl: string; adminUrl: string }>((resolve, reject) => {
      let receiverUrl: string | undefined;
      createInterface({ input: child.stdout }).on("line", (line) => {
        lines.push(line);
        const parsed = JSON.parse(line) as { msg?: string; receiverUrl?: string; adminUrl?: string };
        if (parsed.receiverUrl) receiverUrl = parsed.receiverUrl;
        if (parsed.msg === "metahooks listening" && parsed.adminUrl && receiverUrl) resolve({ receiverUrl, adminUrl: parsed.adminUrl });
      });
      void exited.then(() => reject(new Error(`serve exited early: ${stderr}`)));
    });
    const push = `${urls.receiverUrl}/push/team-a`;

    assert.equal((await send(push, body, { headers: headers("d-1") })).status, 202);
    assert.equal((await send(push, body, { headers: headers("d-1") })).status, 409);
    assert.equal((await send(push, body, { headers: headers("d-2", "sha256=" + "0".repeat(64)) })).status, 401);
    assert.equal((await send(push, body, { headers: { ...headers("d-3"), "X-GitHub-Event": "issues" } })).status, 200);
    assert.equal((await send(push, "x".repeat(2 * 1024 * 1024), { headers: headers("d-4") })).status, 413);
    const metrics = (await send(`${urls.adminUrl}/metrics`)).body;
    for (const [outcome, n] of [["accepted", 1], ["replayed", 1], ["unauthorized", 1], ["ignored", 1], ["too_large", 1]] as const) {
      assert.match(metrics, new RegExp(`^metahooks_receiver_deliveries_total\\{provider="github",outcome="${outcome}"\\} ${n}$`, "m"), outcome);
    }
    assert.match(metrics, /^metahooks_receiver_cibuilds_patched_total\{provider="github"\} 1$/m);

    // A delivery held mid-verification (the Kubernetes API has not answered yet) when SIGTERM comes.
    held = new Promise<void>((resolve) => (release = resolve));
    const before = api.requests.length;
    const inflight = send(push, body, { headers: headers("d-5") });
    assert.ok(await eventually(() => api.requests.length > before, 10_000), "the delivery never reached the API");
    child.kill("SIGTERM");
    const early = await Promise.race([exited.then(() => "exited"), new Promise((r) => setTimeout(() => r("running"), 300))]);
    assert.equal(early, "running", "the process exited with a delivery in flight");
    assert.notEqual((await send(`${urls.adminUrl}/readyz`)).status, 200, "still Ready while draining");
    held = undefined;
    release!();
    const answer = await inflight;
    assert.equal(answer.status, 202, answer.body);
    assert.equal(answer.headers.connection, "close");
    const { code, signal } = await exited;
    assert.equal(signal, null);
    assert.equal(code, 0, stderr);
    assert.ok(lines.some((l) => l.includes('"msg":"stopped"')), "the shutdown was logged");
    await assert.rejects(send(`${urls.receiverUrl}/healthz`), /ECONNREFUSED/);
  } finally {
    release?.();
    if (child.exitCode === null) child.kill("SIGKILL");
    await api.close();
  }
});
