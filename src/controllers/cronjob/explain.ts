/**
 * The CronJob's lines in `metahooks explain`: the schedule, the last and next run in the
 * CronJob's zone, the slot that is due and why it was skipped, the running Jobs. Pure over the
 * hook's request and answer.
 *
 * @packageDocumentation
 */
import { parseTime } from "../../kube/time.ts";
import { conditionsOf, oneLine } from "../explain-text.ts";
import type { ExplainInput } from "../types.ts";
import { DEFAULTS } from "./constants.ts";
import { parseSchedule } from "./schedule.ts";
import { checkTimeZone, formatInZone } from "./time-zone.ts";

/**
 * A time as `2026-01-05 07:00:00 America/New_York (UTC-05:00) = 2026-01-05T12:00:00Z`, so users
 * see the schedule in the CronJob's zone and the instant unambiguously. Built on the same zone
 * formatting the Jobs' scheduled-timestamp annotation uses.
 * @param zone - an IANA zone; an unknown zone falls back to UTC only
 */
export function describeInZone(date: Date, zone: string): string {
  const utc = date.toISOString().replace(/\.000Z$/, "Z");
  if (zone === "UTC" || zone === "Etc/UTC") return utc;
  let local: string;
  try {
    local = formatInZone(date, zone); // e.g. 2026-01-05T07:00:00-05:00, or …Z at offset zero
  } catch {
    return utc;
  }
  const offset = local.endsWith("Z") ? "+00:00" : local.slice(19);
  return `${local.slice(0, 10)} ${local.slice(11, 19)} ${zone} (UTC${offset}) = ${utc}`;
}

/** Human text for the hook's skip reasons (its bounded vocabulary). */
const SKIP_TEXT: Record<string, string> = {
  TooLate: "too late to start: the slot is further in the past than startingDeadlineSeconds allows",
  MissedSchedule: "too late to start: the slot is further in the past than startingDeadlineSeconds allows",
  Forbid: "concurrencyPolicy Forbid and a Job of an earlier slot is still running",
  ConcurrencyForbidden: "concurrencyPolicy Forbid and a Job of an earlier slot is still running",
  AlreadyExists: "a Job for this slot already exists",
  BeforeScheduleChange: "the slot is from before the last schedule change",
};

/**
 * Why a slot did not run, best evidence first: the parent is being deleted; the hook's
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

/** The CronJob section of the explain summary. */
export function explainCronJob(input: ExplainInput): string[] {
  const spec = ((input.parent as { spec?: unknown }).spec ?? {}) as Record<string, unknown>;
  const zone = typeof spec.timeZone === "string" && spec.timeZone ? spec.timeZone : DEFAULTS.timeZone;
  const schedule = typeof spec.schedule === "string" ? spec.schedule : "";
  const lines = [`Schedule:      ${JSON.stringify(schedule)} in ${zone}${spec.suspend === true ? " (suspended)" : ""}`];
  const status = input.response.status;
  const parentStatus = ((input.parent as { status?: Record<string, unknown> }).status ?? {}) as Record<string, unknown>;
  // Before this sync: the parent's record. After it: the hook's answer (it also reads the
  // children's scheduled-time annotations, so it survives a lost status).
  const lastBefore = parseTime(parentStatus.lastScheduleTime);
  const lastAfter = parseTime(status.lastScheduleTime) ?? lastBefore;
  const createdJobs = input.changes.create.filter((k) => k.startsWith("Job/"));
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
