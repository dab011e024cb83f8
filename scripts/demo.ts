/**
 * `npm run demo`: a SIMULATION of both controllers running under Metacontroller, printed as a
 * timeline. An in-process emulator of Metacontroller's CompositeController loop (src/emulator/)
 * calls the real metahooks HTTP service on 127.0.0.1; Jobs, Pods and Deployments are moved on by a
 * simulated cluster, and time is simulated (a day passes in seconds). No cluster is involved.
 *
 * @packageDocumentation
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { findController } from "../src/controllers/registry.ts";
import type { SyncRecord } from "../src/emulator/controller.ts";
import { controllerRef } from "../src/emulator/controller.ts";
import { Emulator } from "../src/emulator/emulator.ts";
import { HookServer } from "../test/emulator/hook-server.ts";
import type { Obj } from "../src/emulator/store.ts";
import type { WorldEvent } from "../src/emulator/world.ts";

const out = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};
const hhmmss = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const pad = (s: string, n: number) => s.padEnd(n);

function loadYaml(path: string): Obj {
  const obj = parse(readFileSync(path, "utf8")) as Obj;
  obj.metadata.namespace ??= "default";
  return obj;
}

/** Prints one timeline row: time, event, children, status. */
function row(at: number, event: string, children: string, status: string): void {
  out(`${hhmmss(at)}  ${pad(event, 58)} ${pad(children, 30)} ${status}`);
}

function header(): void {
  out(`${"time".padEnd(8)}  ${pad("event", 58)} ${pad("children", 30)} status`);
  out(`${"-".repeat(8)}  ${"-".repeat(58)} ${"-".repeat(30)} ${"-".repeat(24)}`);
}

function finishedOf(job: Obj): string {
  const c = (job.status?.conditions ?? []).find((x: Obj) => (x.type === "Complete" || x.type === "Failed") && x.status === "True");
  if (c) return c.type === "Complete" ? "succeeded" : "failed";
  return job.status?.startTime ? "running" : "pending";
}

function ownedBy(emu: Emulator, parent: Obj, apiVersion: string, kind: string): Obj[] {
  const uid = emu.store.peek({ apiVersion: parent.apiVersion, kind: parent.kind, namespace: parent.metadata.namespace, name: parent.metadata.name })?.metadata.uid;
  return emu.store.list(apiVersion, kind, parent.metadata.namespace).filter((o) => controllerRef(o)?.uid === uid);
}

function jobSummary(emu: Emulator, parent: Obj): string {
  const counts: Record<string, number> = {};
  for (const j of ownedBy(emu, parent, "batch/v1", "Job")) counts[finishedOf(j)] = (counts[finishedOf(j)] ?? 0) + 1;
  const parts = Object.entries(counts).map(([k, v]) => `${v} ${k}`);
  return parts.length ? `Jobs: ${parts.join(", ")}` : "no Jobs";
}

/** What Metacontroller did in one sync pass, in words (only passes that changed something). */
function describeWrites(r: SyncRecord): string[] {
  const words: string[] = [];
  for (const w of r.writes) {
    if (w.error && !w.error.includes("AlreadyExists")) {
      words.push(`${w.op} ${w.target} FAILED`);
      continue;
    }
    const [kind, nsName] = w.target.split(" ");
    const name = nsName?.split("/")[1] ?? "";
    if (w.op === "create") words.push(`created ${kind} ${name}`);
    if (w.op === "update") words.push(`updated ${kind} ${name} in place`);
    if (w.op === "delete") words.push(`deleted ${kind} ${name}`);
    if (w.op === "add-finalizer") words.push(`added its finalizer to ${kind} ${name}`);
    if (w.op === "remove-finalizer") words.push(`removed its finalizer from ${kind} ${name}`);
  }
  return words;
}

function worldWords(e: WorldEvent): string {
  const name = e.target.split("/")[1] ?? e.target;
  switch (e.what) {
    case "job-started":
      return `cluster: Job ${name} started (Pod running)`;
    case "job-succeeded":
      return `cluster: Job ${name} succeeded`;
    case "job-failed":
      return `cluster: Job ${name} failed`;
    case "deployment-progressing":
      return `cluster: Deployment ${name} rolling out`;
    case "deployment-available":
      return `cluster: Deployment ${name} available`;
  }
}

async function cronJobDay(): Promise<void> {
  const def = findController("cronjob");
  const cronJob = loadYaml("examples/cronjob/cronjob-sample.yaml");
  out(`== 1. CronJob ${cronJob.metadata.name}: schedule "${cronJob.spec.schedule}", concurrencyPolicy ${cronJob.spec.concurrencyPolicy}, one simulated day ==`);
  if (!def) return out("   (the cronjob controller is not registered in this build: skipped)\n");
  const start = Date.parse("2026-06-01T09:00:20Z");
  const emu: Emulator = new Emulator({
    start: new Date(start),
    world: { jobPlan: () => ({ startAfterSeconds: 1, runSeconds: 6 }), onEvent: (e) => worldListener(e) },
  });
  const server = HookServer.forControllers(() => emu.scheduler.date());
  await server.start();
  emu.addController(def.compositeController("http://metahooks") as Obj, server.baseUrl);
  const status = () => {
    const s = emu.get(cronJob)?.status ?? {};
    const sched = (s.conditions ?? []).find((c: Obj) => c.type === "Scheduling");
    const last = s.lastScheduleTime ? ` last=${hhmmss(Date.parse(s.lastScheduleTime)).slice(0, 5)}` : "";
    return `active=${(s.active ?? []).length}${last}${sched ? ` ${sched.reason}` : ""}`;
  };
  let detailed = true;
  const hourly = { created: 0, deleted: 0, passes: 0, succeeded: 0 };
  function worldListener(e: WorldEvent): void {
    if (e.what === "job-succeeded") hourly.succeeded++;
    if (detailed) row(e.at, worldWords(e), jobSummary(emu, cronJob), status());
  }
  let created = 0;
  emu.syncListeners.push((r) => {
    hourly.passes++;
    const words = describeWrites(r);
    for (const w of words) {
      if (w.startsWith("created Job")) {
        created++;
        hourly.created++;
      }
      if (w.startsWith("deleted Job")) hourly.deleted++;
    }
    if (detailed && words.length) row(r.at, `Metacontroller ${words.join("; ")}`, jobSummary(emu, cronJob), status());
  });
  header();
  emu.apply(cronJob);
  row(start, `you: kubectl apply CronJob ${cronJob.metadata.name}`, "no Jobs", "-");
  await emu.runUntil(start + 5 * 60_000 - 20_000);
  detailed = false;
  out(`… from here on, one line per simulated hour …`);
  let t = start + 5 * 60_000 - 20_000;
  for (let h = 0; h < 24; h++) {
    Object.assign(hourly, { created: 0, deleted: 0, passes: 0, succeeded: 0 });
    const next = Math.min(t + 3_600_000, start + 86_400_000);
    await emu.runUntil(next);
    row(next, `hour: ${hourly.created} Jobs created, ${hourly.succeeded} succeeded, ${hourly.deleted} pruned`, jobSummary(emu, cronJob), `${status()} (${hourly.passes} syncs)`);
    t = next;
    if (next >= start + 86_400_000) break;
  }
  const minutes = Math.floor((start + 86_400_000) / 60_000) - Math.floor(start / 60_000);
  out(`   ${created} Jobs for ${minutes} scheduled minutes; ${ownedBy(emu, cronJob, "batch/v1", "Job").length} kept (successfulJobsHistoryLimit 3); ${emu.syncs} hook calls.`);
  out();
  await server.stop();
}

async function ciBuildToReady(): Promise<void> {
  const def = findController("cibuild");
  out(`== 2. CIBuild build-go (seed sample "go"): from kubectl apply to Ready ==`);
  if (!def) return out("   (the cibuild controller is not registered in this build: skipped)\n");
  const cr = loadYaml("examples/cibuild/cibuild-go.yaml");
  const start = Date.parse("2026-06-01T12:00:00Z");
  const emu: Emulator = new Emulator({
    start: new Date(start),
    world: { jobPlan: () => ({ startAfterSeconds: 3, runSeconds: 95 }), deploymentReadySeconds: 20, onEvent: (e) => row(e.at, worldWords(e), children(), phase()) },
  });
  const server = HookServer.forControllers(() => emu.scheduler.date());
  await server.start();
  emu.addController(def.compositeController("http://metahooks") as Obj, server.baseUrl);
  function children(): string {
    const jobs = ownedBy(emu, cr, "batch/v1", "Job").map((j) => `Job ${finishedOf(j)}`);
    const deps = ownedBy(emu, cr, "apps/v1", "Deployment").map((d) => `Deployment ${d.status?.availableReplicas ?? 0}/${d.spec?.replicas ?? 1}`);
    return [...jobs, ...deps].join(", ") || "none";
  }
  function phase(): string {
    return emu.get(cr)?.status?.phase ?? "-";
  }
  let lastPhase = "-";
  emu.syncListeners.push((r) => {
    const words = describeWrites(r);
    if (words.length) row(r.at, `Metacontroller ${words.join("; ")}`, children(), phase());
    if (phase() !== lastPhase) {
      lastPhase = phase();
      const s = emu.get(cr)?.status ?? {};
      row(r.at, `hook: phase ${lastPhase}`, children(), phase());
      if (s.message) out(`          └ ${s.message}`);
    }
  });
  header();
  emu.apply(cr);
  row(start, `you: kubectl apply CIBuild ${cr.metadata.name}`, "none", "-");
  await emu.runUntil(start + 10 * 60_000);
  const s = emu.get(cr)?.status ?? {};
  const dep = ownedBy(emu, cr, "apps/v1", "Deployment")[0];
  out();
  out(`   Build commit ${s.currentBuild?.commitSHA ?? "?"} (from the prepare container's termination message)`);
  out(`   Deployment ${dep?.metadata.name ?? "?"} runs ${dep?.spec?.template?.spec?.containers?.[0]?.image ?? "?"}`);
  out(`   (the digest comes from the digest container's termination message: it reports the digest file kaniko wrote,`);
  out(`    and runs only after kaniko exited 0, so the app is never pointed at an unbuilt image)`);
  out(`   ${emu.syncs} hook calls; phase ${s.phase}.`);
  out();
  await server.stop();
}

out("SIMULATION — not a cluster. Metacontroller's CompositeController loop is emulated in-process");
out("(src/emulator/) and calls the real metahooks HTTP service on 127.0.0.1; Jobs, Pods and");
out("Deployments are moved on by a simulated cluster; time is simulated (no waiting).");
out("To run for real: install Metacontroller and metahooks with Helm (README, \"Install on a cluster\").");
out("Columns: simulated UTC time; who did what (you / Metacontroller acting on the hook's answer /");
out("the simulated cluster); the parent's children; the parent's status as last written from the hook.");
out();
await cronJobDay();
await ciBuildToReady();
