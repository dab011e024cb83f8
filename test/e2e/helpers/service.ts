/**
 * The hook service as users run it (`node bin/metahooks.js serve`, i.e. `npm start`), on loopback
 * ports picked for this run, for the apiserver (admission webhooks) and Metacontroller to call.
 *
 * @packageDocumentation
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { freePort } from "../controlplane/control-plane.ts";

/** A running `metahooks serve`. */
export interface RunningService {
  hookUrl: string;
  adminUrl: string;
  /** Set when the admission listener was configured. */
  admissionUrl?: string;
  /** Everything the process wrote (JSON log lines). */
  output(): string;
  stop(): Promise<void>;
}

function ready(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get(url, { timeout: 1000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on("error", () => resolve(false));
  });
}

/**
 * Starts the service and waits for its admin `/readyz`.
 * @param env - extra environment (e.g. ADMISSION_TLS_CERT_FILE); PORT, ADMIN_PORT, HOST are set here
 * @param options.admission - also pick a port for the admission listener
 */
export async function startService(env: Record<string, string> = {}, options: { admission?: boolean } = {}): Promise<RunningService> {
  const port = await freePort();
  const adminPort = await freePort();
  const admissionPort = options.admission ? await freePort() : undefined;
  const child: ChildProcess = spawn(process.execPath, ["bin/metahooks.js", "serve"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOST: "127.0.0.1",
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      ...(admissionPort ? { ADMISSION_PORT: String(admissionPort) } : {}),
      LOG_LEVEL: "info",
      SHUTDOWN_GRACE_SECONDS: "2",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const deadline = Date.now() + 30_000;
  while (!(await ready(`${adminUrl}/readyz`))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`metahooks serve did not become ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const scheme = env.TLS_CERT_FILE ? "https" : "http";
  return {
    hookUrl: `${scheme}://127.0.0.1:${port}`,
    adminUrl,
    ...(admissionPort ? { admissionUrl: `https://127.0.0.1:${admissionPort}` } : {}),
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
