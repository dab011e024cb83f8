/**
 * The human summary of `metahooks explain`: what the hook would do now and why, computed from
 * the request we built and the pure hook's answer. No I/O, no clock (pure over its arguments).
 *
 * @packageDocumentation
 */
import type { ControllerDefinition, Decision } from "../controllers/types.ts";
import type { KubeObject, ObjectMap, SyncResponse } from "../metacontroller/contract.ts";
import { compareStrings } from "../metacontroller/contract.ts";
import { parseTime } from "../kube/time.ts";
import { parseSchedule } from "../controllers/cronjob/schedule.ts";
import { checkTimeZone, formatInZone as rfc3339InZone } from "../controllers/cronjob/time-zone.ts";

/** What the summary is made of. */
export interface ExplainInput {
  def: ControllerDefinition<any>;
  parent: KubeObject;
  /** Observed children, as sent to the hook. */
  children: ObjectMap;
  response: SyncResponse;
  decisions: Decision[];
  finalizing: boolean;
  now: Date;
}

/** What the hook's answer would change among the children. */
export interface ChildChanges {
  create: string[];
  delete: string[];
  keep: string[];
}

const childKey = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

/**
 * Compares observed with desired children: a desired child not observed is created; an observed
 * child left out is deleted by Metacontroller (background propagation). Keys are `Kind/name`, sorted.
 */
export function childChanges(children: ObjectMap, desired: KubeObject[]): ChildChanges {
  const observed = new Set(Object.values(children).flatMap((group) => Object.values(group ?? {}).map(childKey)));
  const wanted = new Set(desired.map(childKey));
  const sorted = (s: Iterable<string>) => [...s].sort(compareStrings);
  return {
    create: sorted([...wanted].filter((k) => !observed.has(k))),
    delete: sorted([...observed].filter((k) => !wanted.has(k))),
    keep: sorted([...wanted].filter((k) => observed.has(k))),
  };
}

/**
 * A time as `2026-01-05 07:00:00 America/New_York (UTC-05:00) = 2026-01-05T12:00:00Z`, so users
 * see the schedule in the CronJob's zone and the instant unambiguously. Built on the CronJob
 * controller's own zone formatting (the one its Jobs' scheduled-timestamp annotation uses).
 * @param zone - an IANA zone; an unknown zone falls back to UTC only
 */
export function describeInZone(date: Date, zone: string): string {
  const utc = date.toISOString().replace(/\.000Z$/, "Z");
  if (zone === "UTC" || zone === "Etc/UTC") return utc;
  let local: string;
  try {
    local = rfc3339InZone(date, zone); // e.g. 2026-01-05T07:00:00-05:00, or …Z at offset zero
  } catch {
    return utc;
  }
  const offset = local.endsWith("Z") ? "+00:00" : local.slice(19);
  return `${local.slice(0, 10)} ${local.slice(11, 19)} ${zone} (UTC${offset}) = ${utc}`;
}

interface ConditionLike {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function conditionsOf(status: Record<string, unknown>): ConditionLike[] {
  return Array.isArray(status.conditions) ? (status.conditions as ConditionLike[]) : [];
}

/** Messages (e.g. git's stderr) may span lines; the summary keeps one fact per line. */
function oneLine(text: unknown): string {
  return String(text).replace(/\s*[\r\n]+\s*/g, " | ");
}

function formatCondition(c: ConditionLike): string {
  return `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ""}${c.message ? `: ${oneLine(c.message)}` : ""}`;
}

function formatDecision(d: Decision): string {
  return [d.action, d.object, d.reason ? `(${d.reason})` : undefined].filter(Boolean).join(" ");
}

/** Human text for the hook's skip reasons (bounded vocabulary of the CronJob hook). */
const SKIP_TEXT: Record<string, string> = {
  TooLate: "too late to start: the slot is further in the past than startingDeadlineSeconds allows",
  MissedSchedule: "too late to start: the slot is further in the past than startingDeadlineSeconds allows",
  Forbid: "concurrencyPolicy Forbid and a Job of an earlier slot is still running",
  ConcurrencyForbidden: "concurrencyPolicy Forbid and a Job of an earlier slot is still running",
  AlreadyExists: "a Job for this slot already exists",
  BeforeScheduleChange: "the slot is from before the last schedule change",
};

/**
 * Why a CronJob slot did not run, best evidence first: the parent is being deleted; the hook's
 * `Ready=False` condition (invalid spec or zone, name too long, suspended, never fires); its
 * `Scheduling=False` condition (missed deadline, Forbid); its skip decisions; then what the spec
 * alone says (suspend, startingDeadlineSeconds).
 */
function skipExplanation(input: ExplainInput, spec: Record<string, unknown>, slot: Date): string {
  if (input.finalizing) return "the CronJob is being deleted";
  const conditions = conditionsOf(input.response.status);
  for (const type of ["Ready", "Scheduling"]) {
    const c = conditions.find((x) => x.type === type && x.status === "False");
    if (c) return `${c.reason ?? type}${c.message ? `: ${oneLine(c.message)}` : ""}${c.reason && SKIP_TEXT[c.reason] ? ` (${SKIP_TEXT[c.reason]})` : ""}`;
  }
  const skips = input.decisions.filter((d) => d.action === "skip" && d.reason).map((d) => d.reason!);
  if (skips.length) return skips.map((r) => `${r}${SKIP_TEXT[r] ? ` (${SKIP_TEXT[r]})` : ""}`).join("; ");
  if (spec.suspend === true) return "Suspended (spec.suspend is true)";
  const deadline = spec.startingDeadlineSeconds;
  if (typeof deadline === "number" && (input.now.getTime() - slot.getTime()) / 1000 > deadline) {
    return `TooLate (${SKIP_TEXT.TooLate})`;
  }
  return "no reason recorded by the hook (see Decisions)";
}

function cronJobLines(input: ExplainInput, changes: ChildChanges): string[] {
  const spec = ((input.parent as { spec?: unknown }).spec ?? {}) as Record<string, unknown>;
  const zone = typeof spec.timeZone === "string" && spec.timeZone ? spec.timeZone : "UTC";
  const schedule = typeof spec.schedule === "string" ? spec.schedule : "";
  const lines = [`Schedule:      ${JSON.stringify(schedule)} in ${zone}${spec.suspend === true ? " (suspended)" : ""}`];
  const status = input.response.status;
  const parentStatus = ((input.parent as { status?: Record<string, unknown> }).status ?? {}) as Record<string, unknown>;
  // Before this sync: the parent's record. After it: the hook's answer (it also reads the
  // children's scheduled-time annotations, so it survives a lost status).
  const lastBefore = parseTime(parentStatus.lastScheduleTime);
  const lastAfter = parseTime(status.lastScheduleTime) ?? lastBefore;
  const createdJobs = changes.create.filter((k) => k.startsWith("Job/"));
  const recovered = !lastBefore && lastAfter && !createdJobs.length ? `${describeInZone(lastAfter, zone)} (from the Jobs; status.lastScheduleTime is unset)` : undefined;
  lines.push(`Last run:      ${lastBefore ? describeInZone(lastBefore, zone) : (recovered ?? "never")}`);
  const zoneOk = checkTimeZone(zone) === undefined;
  const parsed = zoneOk ? parseSchedule(schedule, zone) : undefined;
  if (!parsed || !parsed.ok) {
    const why = !zoneOk ? `the time zone ${JSON.stringify(zone)} is invalid` : `the schedule is invalid (${parsed && !parsed.ok ? parsed.message : ""})`;
    lines.push(`Next run:      none: ${why}`);
  } else {
    // Same anchor as the hook: the last run, else the creation time (also the @every grid).
    const created = parseTime(input.parent.metadata.creationTimestamp);
    const anchor = lastAfter ?? created ?? new Date(0);
    const from = anchor.getTime() > input.now.getTime() ? anchor : input.now;
    const next = spec.suspend === true || input.finalizing ? undefined : parsed.schedule.nextSlot(from, anchor);
    const none = spec.suspend === true ? "none while suspended" : input.finalizing ? "none (deleting)" : "none: the schedule never fires again";
    lines.push(`Next run:      ${next ? describeInZone(next, zone) : none}`);
    if (createdJobs.length && lastAfter) {
      lines.push(`Due slot:      ${describeInZone(lastAfter, zone)}: starts now as ${createdJobs.join(", ")}`);
    } else {
      const due = parsed.schedule.latestSlot(input.now, anchor);
      if (due) lines.push(`Due slot:      ${describeInZone(due, zone)}: skipped: ${skipExplanation(input, spec, due)}`);
      else lines.push(`Due slot:      none since ${lastAfter ? "the last run" : "creation"}`);
    }
  }
  const active = Array.isArray(status.active) ? (status.active as Array<{ name?: string }>).map((a) => a.name) : [];
  lines.push(`Active Jobs:   ${active.length ? active.join(", ") : "none"}`);
  return lines;
}

function cibuildLines(input: ExplainInput): string[] {
  const status = input.response.status;
  const current = status.currentBuild as Record<string, unknown> | undefined;
  // The phase message usually repeats the build's; say it once.
  const phaseMessage = status.message && status.message !== current?.message ? ` (${oneLine(status.message)})` : "";
  const lines = [`Phase:         ${String(status.phase ?? "unknown")}${phaseMessage}`];
  if (current) {
    const failure = current.reason && current.phase === "Failed" ? ` because ${String(current.reason)}` : "";
    lines.push(
      `Build:         ${String(current.name ?? "?")} ${String(current.phase ?? "?")}${failure}${current.message ? `: ${oneLine(current.message)}` : ""}`,
    );
  }
  const good = status.lastSuccessfulBuild as Record<string, unknown> | undefined;
  if (good) lines.push(`Deployed image: ${String(good.imageRef ?? good.name ?? "?")}`);
  const deployment = status.deployment as Record<string, unknown> | undefined;
  if (deployment) {
    lines.push(
      `Deployment:    ${String(deployment.name)} ready ${String(deployment.readyReplicas ?? 0)}/${String(deployment.replicas ?? "?")}`,
    );
  }
  return lines;
}

/**
 * The summary text (ends with a newline).
 *
 * Sections: the parent and hook; kind-specific lines (CronJob: schedule, last and next run in
 * the CronJob's zone, the last slot and why it was skipped; CIBuild: phase, build and its failure
 * reason); conditions; the Jobs and other children that would be created, deleted or kept; the
 * hook's decisions; the resync time.
 */
export function formatExplanation(input: ExplainInput): string {
  const { def, parent, response } = input;
  const changes = childChanges(input.children, response.children);
  const ns = parent.metadata.namespace ? `${parent.metadata.namespace}/` : "";
  const lines = [
    `${def.kind} ${ns}${parent.metadata.name} (generation ${parent.metadata.generation ?? "?"}) at ${input.now.toISOString()}`,
    `Hook:          ${input.finalizing ? "finalize (the parent is being deleted)" : "sync"}`,
  ];
  if (def.name === "cronjob") lines.push(...cronJobLines(input, changes));
  if (def.name === "cibuild") lines.push(...cibuildLines(input));
  const conditions = conditionsOf(response.status);
  if (conditions.length) {
    lines.push("Conditions:");
    for (const c of conditions) lines.push(`  ${formatCondition(c)}`);
  }
  lines.push("Children:");
  const list = (label: string, keys: string[]) => lines.push(`  ${label} ${keys.length ? keys.join(", ") : "none"}`);
  list("would create:", changes.create);
  list("would delete:", changes.delete);
  list("would keep:  ", changes.keep);
  if (input.decisions.length) lines.push(`Decisions:     ${input.decisions.map(formatDecision).join("; ")}`);
  if (response.resyncAfterSeconds !== undefined) {
    const at = new Date(input.now.getTime() + response.resyncAfterSeconds * 1000);
    lines.push(`Next sync:     in ${response.resyncAfterSeconds} s (${at.toISOString()})`);
  }
  if (input.finalizing && response.finalized !== undefined) lines.push(`Finalized:     ${response.finalized}`);
  return lines.join("\n") + "\n";
}
