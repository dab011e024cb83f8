/**
 * A throwaway Kubernetes control plane on loopback: etcd plus a real kube-apiserver with
 * certificates generated for this run, started the way envtest starts them (no kubelet, no
 * controller-manager, no scheduler). The apiserver runs with RBAC and strict TLS; the tests reach
 * it through an admin kubeconfig (client certificate in `system:masters`).
 *
 * @packageDocumentation
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from "node:fs";
import https from "node:https";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Binaries } from "./binaries.ts";

/** A running control plane. */
export interface ControlPlane {
  /** e.g. `https://127.0.0.1:41234` */
  readonly server: string;
  /** Admin kubeconfig for the apiserver. */
  readonly kubeconfig: string;
  /** Directory with the PKI (see cmd/certs), the logs and etcd's data. */
  readonly dir: string;
  /** Stops the apiserver, then etcd; idempotent. Removes `dir` unless `keepDir`. */
  stop(options?: { keepDir?: boolean }): Promise<void>;
}

/** Service CIDR of the apiserver; cmd/certs puts its first address into the serving certificate. */
const SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24";

/** A free TCP port on 127.0.0.1 (closed again at once; the tiny race is acceptable for tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function startProcess(binary: string, args: string[], logFile: string): ChildProcess {
  const fd = openSync(logFile, "a");
  const child = spawn(binary, args, { stdio: ["ignore", fd, fd] });
  closeSync(fd);
  return child;
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * Polls `probe` until it resolves true, failing early when `child` exits.
 * @throws Error with the last lines of `logFile` on timeout or early exit
 */
async function waitFor(what: string, child: ChildProcess, logFile: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${what} exited (${child.signalCode ?? child.exitCode}) before it was ready; last lines of ${logFile}:\n${tail(logFile)}`);
    }
    if (await probe().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000} s; last lines of ${logFile}:\n${tail(logFile)}`);
}

function httpOk(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
  });
}

function httpsOk(url: string, tls: { ca: Buffer; cert: Buffer; key: Buffer }): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(url, { ...tls, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
  });
}

async function stopProcess(child: ChildProcess | undefined, graceMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Writes an admin kubeconfig with the certificates inlined. */
function writeKubeconfig(file: string, server: string, pki: string): void {
  const b64 = (name: string) => readFileSync(join(pki, name)).toString("base64");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "e2e", cluster: { server, "certificate-authority-data": b64("ca.crt") } }],
    users: [{ name: "e2e-admin", user: { "client-certificate-data": b64("admin.crt"), "client-key-data": b64("admin.key") } }],
    contexts: [{ name: "e2e", context: { cluster: "e2e", user: "e2e-admin", namespace: "default" } }],
    "current-context": "e2e",
  };
  // JSON is YAML: kubectl, helm and client-node all read it.
  writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
}

/**
 * Generates the PKI, starts etcd and kube-apiserver on free loopback ports and waits for the
 * apiserver's `/readyz`. Everything started is stopped again when a step fails.
 * @throws Error with the failing component's last log lines
 */
export async function startControlPlane(binaries: Binaries, log: (line: string) => void = () => {}): Promise<ControlPlane> {
  const dir = mkdtempSync(join(tmpdir(), "metahooks-e2e-"));
  const pki = join(dir, "pki");
  const certs = spawnSync(binaries.certs, ["-dir", pki], { encoding: "utf8" });
  if (certs.status !== 0) throw new Error(`certs failed: ${certs.stderr}`);

  let etcd: ChildProcess | undefined;
  let apiserver: ChildProcess | undefined;
  let stopped: Promise<void> | undefined;
  const stop = (options: { keepDir?: boolean } = {}) => {
    stopped ??= (async () => {
      await stopProcess(apiserver);
      await stopProcess(etcd);
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  try {
    const [clientPort, peerPort, securePort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const etcdLog = join(dir, "etcd.log");
    mkdirSync(join(dir, "etcd"), { mode: 0o700 });
    etcd = startProcess(
      binaries.etcd,
      [
        "--name=e2e",
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=e2e=${peerUrl}`,
        // A test cluster lives for minutes: skipping fsync makes every write much cheaper.
        "--unsafe-no-fsync",
        "--log-level=warn",
      ],
      etcdLog,
    );
    let started = Date.now();
    await waitFor("etcd", etcd, etcdLog, 60_000, () => httpOk(`${etcdUrl}/health`));
    log(`etcd ready on ${etcdUrl} in ${Date.now() - started} ms`);

    const server = `https://127.0.0.1:${securePort}`;
    const apiserverLog = join(dir, "kube-apiserver.log");
    const p = (name: string) => join(pki, name);
    apiserver = startProcess(
      binaries.kubeApiserver,
      [
        `--etcd-servers=${etcdUrl}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${securePort}`,
        `--cert-dir=${join(dir, "apiserver-certs")}`,
        `--tls-cert-file=${p("apiserver.crt")}`,
        `--tls-private-key-file=${p("apiserver.key")}`,
        `--client-ca-file=${p("ca.crt")}`,
        "--authorization-mode=RBAC",
        `--service-account-issuer=${server}`,
        `--service-account-key-file=${p("sa.pub")}`,
        `--service-account-signing-key-file=${p("sa.key")}`,
        `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
        "--allow-privileged=true",
        // No controller-manager creates the `default` ServiceAccount of a namespace, so the
        // ServiceAccount admission plugin would reject every Pod (envtest disables it too).
        "--disable-admission-plugins=ServiceAccount",
        "--profiling=false",
      ],
      apiserverLog,
    );
    const tls = { ca: readFileSync(p("ca.crt")), cert: readFileSync(p("admin.crt")), key: readFileSync(p("admin.key")) };
    started = Date.now();
    await waitFor("kube-apiserver", apiserver, apiserverLog, 180_000, () => httpsOk(`${server}/readyz`, tls));
    log(`kube-apiserver ready on ${server} in ${Date.now() - started} ms`);

    const kubeconfig = join(dir, "kubeconfig");
    writeKubeconfig(kubeconfig, server, pki);
    return { server, kubeconfig, dir, stop };
  } catch (err) {
    await stop({ keepDir: true });
    throw err;
  }
}
