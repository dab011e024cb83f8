import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { eventually, slowPost, send } from "./helpers/slow-request.ts";
import { MINIMAL_CRONJOB } from "./helpers/requests.ts";

const parent = MINIMAL_CRONJOB;

test("SIGTERM to `metahooks serve`: the in-flight call is answered, then the process exits 0", async () => {
  const child = spawn(process.execPath, ["bin/metahooks.js", "serve"], {
    env: { ...process.env, PORT: "0", ADMIN_PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", SHUTDOWN_GRACE_SECONDS: "15" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const lines: string[] = [];
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += String(c)));
  try {
    const { hookUrl, adminUrl } = await new Promise<{ hookUrl: string; adminUrl: string }>((resolve, reject) => {
      const rl = createInterface({ input: child.stdout });
      rl.on("line", (line) => {
        lines.push(line);
        const parsed = JSON.parse(line) as { msg?: string; hookUrl?: string; adminUrl?: string };
        if (parsed.msg === "metahooks listening" && parsed.hookUrl && parsed.adminUrl) resolve({ hookUrl: parsed.hookUrl, adminUrl: parsed.adminUrl });
      });
      void exited.then(() => reject(new Error(`serve exited early: ${stderr}`)));
    });

    const inflight = slowPost(`${hookUrl}/sync/cronjob`, JSON.stringify({ parent, children: { "Job.batch/v1": {} } }));
    await inflight.sent;
    // Wait until the server has the call's headers (its size is measured then) before signalling;
    // it takes a slot only once the body is complete.
    assert.ok(
      await eventually(async () => /^metahooks_hook_request_size_bytes_count\{controller="cronjob",hook="sync"\} 1$/m.test((await send(`${adminUrl}/metrics`)).body), 10_000),
      "the call never arrived",
    );
    child.kill("SIGTERM");
    // The process must not exit while the call is in flight.
    const early = await Promise.race([exited.then(() => "exited"), new Promise((r) => setTimeout(() => r("running"), 300))]);
    assert.equal(early, "running", "the process exited with a call in flight");
    inflight.finish();
    const answer = await inflight.answer;
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.connection, "close");
    const { code, signal } = await exited;
    assert.equal(signal, null);
    assert.equal(code, 0);
    assert.ok(lines.some((l) => l.includes('"msg":"stopped"')), "the shutdown was logged");
    await assert.rejects(send(`${hookUrl}/healthz`), /ECONNREFUSED/);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});

/**
 * Starts `metahooks serve`, reads its first log line, then closes the read end of its stdout (as
 * `metahooks serve | head -1` does): every later log write fails with EPIPE.
 */
async function serveWithClosedStdout(env: Record<string, string>) {
  const child = spawn(process.execPath, ["bin/metahooks.js", "serve"], {
    env: { ...process.env, PORT: "0", ADMIN_PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += String(c)));
  const hookUrl = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once("line", (line) => {
      rl.close();
      child.stdout.destroy();
      resolve((JSON.parse(line) as { hookUrl: string }).hookUrl);
    });
    void exited.then(() => reject(new Error(`serve exited early: ${stderr}`)));
  });
  return { child, exited, hookUrl };
}

test("stdout closed (`serve | head -1`): SIGTERM still exits 0 within the grace period", async () => {
  const { child, exited, hookUrl } = await serveWithClosedStdout({ SHUTDOWN_GRACE_SECONDS: "3" });
  try {
    // The shutdown's own log lines are the first to fail with EPIPE, while exit is near: pino's
    // exit-time flushSync then retried the failed write for ever.
    assert.equal((await send(`${hookUrl}/healthz`)).status, 200);
    const signalled = Date.now();
    child.kill("SIGTERM");
    const outcome = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 8_000))]);
    assert.notEqual(outcome, "hung", "the process did not exit after SIGTERM");
    const { code, signal, at } = outcome as Awaited<typeof exited>;
    assert.equal(signal, null);
    assert.equal(code, 0);
    assert.ok(at - signalled < 4_000, `exited ${at - signalled} ms after SIGTERM (grace 3 s)`);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});

test("stdout closed: a second signal during a slow drain exits 1 at once", async () => {
  const { child, exited, hookUrl } = await serveWithClosedStdout({ SHUTDOWN_GRACE_SECONDS: "30" });
  const inflight = slowPost(`${hookUrl}/sync/cronjob`, JSON.stringify({ parent, children: { "Job.batch/v1": {} } }));
  try {
    await inflight.sent;
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGTERM");
    const early = await Promise.race([exited.then(() => "exited"), new Promise((r) => setTimeout(() => r("running"), 500))]);
    assert.equal(early, "running", "the first signal waits for the call in flight");
    const second = Date.now();
    child.kill("SIGTERM");
    const outcome = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 5_000))]);
    assert.notEqual(outcome, "hung", "the second signal was ignored");
    const { code, at } = outcome as Awaited<typeof exited>;
    assert.equal(code, 1);
    assert.ok(at - second < 2_000, `exited ${at - second} ms after the second signal`);
  } finally {
    inflight.finish();
    await inflight.answer.catch(() => undefined);
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});
