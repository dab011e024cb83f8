/**
 * What a CronJob will do: our real CronJob hooks inside the emulated Metacontroller loop
 * (src/emulator), run over simulated time, turned into a timeline of slots, Jobs created or
 * skipped (with the reason), Jobs finished and deleted, and the status at the end.
 *
 * Deterministic: the same inputs (seed included) give the same timeline.
 *
 * @packageDocumentation
 */
import { configureControllers } from "../controllers/registry.ts";
import { jobNameFor } from "../controllers/cronjob/scheduled-time.ts";
import { API_VERSION, KIND, SCHEDULED_AT_ANNOTATION } from "../controllers/cronjob/constants.ts";
import { formatInZone } from "../controllers/cronjob/time-zone.ts";
import { formatTime } from "../kube/time.ts";
import { controllerRef } from "../emulator/controller.ts";
import { Emulator } from "../emulator/emulator.ts";
import { seededRandom } from "../emulator/random.ts";
import { clone, type Obj } from "../emulator/store.ts";
import { inProcessTransport, type InProcessCall } from "../emulator/transport.ts";
import { listSlots, zonedSchedule, type DstMark } from "./slots.ts";

/** A time window in which the hook service is down (every call fails like a refused dial). */
export interface Outage {
  start: Date;
  end: Date;
}

/** Options of {@link simulateCronJob}. */
export interface SimulateOptions {
  /** The CronJob as applied (`batch.tutorial.kubebuilder.io/v1`); namespace defaults to `default`. */
  cronJob: Obj;
  /** Start: the CronJob is created at this instant. */
  from: Date;
  /** End of the simulation (inclusive). */
  to: Date;
  /** How long each Job runs once its Pod started, in seconds. @default 60 */
  jobDurationSeconds?: number;
  /** Probability (0..1) that a Job fails instead of completing. @default 0 */
  jobFailureRate?: number;
  /** Seed of the failure draws. @default 1 */
  seed?: number;
  /** Windows in which the hook service is down. */
  outages?: readonly Outage[];
}

/** Why a slot got no Job. */
export type SkipReason =
  /** `concurrencyPolicy: Forbid` and a Job was still running. */
  | "Forbid"
  /** More than `startingDeadlineSeconds` late when the hook could act. */
  | "Deadline"
  /** `spec.suspend` was true. */
  | "Suspended"
  /** The hook service was down when the slot was due and a later slot came first. */
  | "Outage"
  /** A later slot was due before the hook acted on this one (the hook runs the most recent only). */
  | "Superseded"
  /** The slot belongs to a schedule the CronJob had before a change. */
  | "BeforeScheduleChange"
  /** The simulation ended before the hook acted on the slot (it was due in the last moments). */
  | "Pending"
  /** The spec is invalid (the reason of the Ready condition, e.g. InvalidSchedule). */
  | (string & {});

/** One line of the timeline. Times are RFC 3339 UTC; `local` is the same instant in the CronJob's zone. */
export type TimelineEvent =
  | { at: string; local: string; type: "slot"; slot: string; job: string; outcome: "created"; createdAt: string; delaySeconds: number; dst?: DstMark }
  | { at: string; local: string; type: "slot"; slot: string; job: string; outcome: "skipped"; reason: SkipReason; message: string; dst?: DstMark }
  | { at: string; local: string; type: "succeeded" | "failed"; job: string }
  | { at: string; local: string; type: "deleted"; job: string; reason: "HistoryLimit" | "Replace" | "Other" }
  | { at: string; local: string; type: "outage-start" | "outage-end" };

/** Counts over the whole run. */
export interface SimulationSummary {
  slots: number;
  created: number;
  skipped: Record<string, number>;
  succeeded: number;
  failed: number;
  deleted: number;
  /** Jobs owned by the CronJob at the end (finished ones kept by the history limits included). */
  jobsAtEnd: string[];
  /** Hook calls made by the emulated Metacontroller. */
  hookCalls: number;
  /** Of those, calls that failed (the service was down). */
  failedHookCalls: number;
}

/** Result of {@link simulateCronJob}. */
export interface SimulationResult {
  name: string;
  namespace: string;
  schedule: string;
  timeZone: string;
  from: string;
  to: string;
  events: TimelineEvent[];
  summary: SimulationSummary;
  /** `status` of the CronJob at the end, as the hooks wrote it. */
  status: Obj;
}

const SKIP_MESSAGES: Record<string, string> = {
  Forbid: "concurrencyPolicy is Forbid and a Job was still running",
  Deadline: "more than startingDeadlineSeconds late",
  Suspended: "spec.suspend is true",
  Outage: "the hook service was down when it was due",
  Superseded: "a later slot was due before this one could start",
  BeforeScheduleChange: "before the schedule change",
  Pending: "the simulation ended before the hook acted on it",
};

// Hook decision reasons (src/controllers/cronjob/constants.ts SkipReason) → timeline reasons.
const DECISION_REASONS: Record<string, SkipReason> = { Forbid: "Forbid", TooLate: "Deadline", BeforeScheduleChange: "BeforeScheduleChange" };

/**
 * Runs one CronJob from `from` to `to` in the emulator with our hooks called in process.
 * @throws Error when the object is not a CronJob of our API group, or the window is empty
 */
export async function simulateCronJob(options: SimulateOptions): Promise<SimulationResult> {
  const cronJob = clone(options.cronJob);
  if (cronJob?.apiVersion !== API_VERSION || cronJob?.kind !== KIND) throw new Error(`not a ${API_VERSION} ${KIND}`);
  const from = options.from.getTime();
  const to = options.to.getTime();
  if (!(to > from)) throw new Error("the end of the simulation must be after its start");
  const name: string = cronJob.metadata?.name ?? "";
  cronJob.metadata = { ...cronJob.metadata, namespace: cronJob.metadata?.namespace ?? "default" };
  const namespace: string = cronJob.metadata.namespace;
  const spec = cronJob.spec ?? {};
  const zone: string = typeof spec.timeZone === "string" ? spec.timeZone : "UTC";
  let zoneOk = true;
  try {
    formatInZone(new Date(from), zone);
  } catch {
    zoneOk = false;
  }
  const local = (t: number) => (zoneOk ? formatInZone(new Date(t), zone) : formatTime(new Date(t)));
  // Events are written as whole literals (no `{ ...at(t), type }`): V8 gives a spread copy that
  // gains keys a new hidden class every time, and a week has tens of thousands of events.
  const utc = (t: number) => formatTime(new Date(t));

  const outages = mergeOutages(options.outages ?? []);
  const inOutage = (t: number) => outages.some((o) => t >= o.start && t < o.end);

  const rng = seededRandom(options.seed ?? 1);
  const failureRate = options.jobFailureRate ?? 0;
  const runSeconds = options.jobDurationSeconds ?? 60;
  const emu = new Emulator({
    start: new Date(from),
    // The Pod starts in the API round that creates the Job: the duration counts from creation.
    // No Pods: a CronJob's hooks never read them (see WorldOptions.pods).
    world: { jobPlan: () => ({ startAfterSeconds: 0, runSeconds, outcome: rng() < failureRate ? "Failed" : "Complete" }), onEvent: (w) => onWorldEvent(w), pods: false },
  });

  const events: Array<{ order: number; t: number; event: TimelineEvent }> = [];
  let order = 0;
  const push = (t: number, event: TimelineEvent) => events.push({ order: order++, t, event });

  // What the hook said about each slot's Job name (the last word wins), and about Jobs it left out.
  const slotReasons = new Map<string, SkipReason>();
  // Every answered call in time order, with the reason when the CronJob was blocked (suspended, invalid).
  const calls: HookCallNote[] = [];
  const leftOut = new Map<string, "HistoryLimit" | "Replace">();
  let hookCalls = 0;
  let failedHookCalls = 0;
  const onCall = (call: InProcessCall) => {
    if (call.kind !== "cronjob" || !call.result) return;
    const note: HookCallNote = { t: call.at.getTime() };
    calls.push(note);
    for (const d of call.result.decisions) {
      if (d.action === "skip" && d.object && d.reason) slotReasons.set(d.object, DECISION_REASONS[d.reason] ?? d.reason);
      else if (d.action === "skip" && d.reason) note.blocked = d.reason;
      else if (d.action === "prune" && d.object) leftOut.set(d.object, "HistoryLimit");
      else if (d.action === "replace" && d.object) leftOut.set(d.object, "Replace");
    }
  };
  const controllers = configureControllers({});
  const transport = inProcessTransport(controllers, { clock: () => emu.scheduler.date(), down: () => inOutage(emu.now()), onCall });
  const def = controllers.find((c) => c.def.name === "cronjob")!.def;
  emu.addController(def.compositeController("http://metahooks.invalid") as Obj, { transport }, { keepRecords: false });
  emu.syncListeners.push((r) => {
    hookCalls++;
    if (!r.ok) failedHookCalls++;
  });

  let uid: string | undefined;
  const created = new Map<string, { t: number; slot: number }>();
  const owned = (o: Obj) => o.kind === "Job" && uid !== undefined && controllerRef(o)?.uid === uid;
  emu.store.watch((e) => {
    const o = e.object;
    if (!owned(o)) return;
    const jobName: string = o.metadata.name;
    if (e.type === "ADDED") {
      const slot = Date.parse(o.metadata.annotations?.[SCHEDULED_AT_ANNOTATION] ?? "");
      created.set(jobName, { t: emu.now(), slot });
    } else if (e.type === "DELETED") {
      const t = emu.now();
      push(t, { at: utc(t), local: local(t), type: "deleted", job: jobName, reason: leftOut.get(jobName) ?? "Other" });
    }
  });
  const onWorldEvent = (w: { at: number; what: string; target: string }) => {
    if (w.what !== "job-succeeded" && w.what !== "job-failed") return;
    const jobName = w.target.slice(w.target.lastIndexOf("/") + 1);
    if (!created.has(jobName)) return;
    push(w.at, { at: utc(w.at), local: local(w.at), type: w.what === "job-succeeded" ? "succeeded" : "failed", job: jobName });
  };

  for (const o of outages) {
    if (o.start >= from && o.start <= to) push(o.start, { at: utc(o.start), local: local(o.start), type: "outage-start" });
    if (o.end >= from && o.end <= to) push(o.end, { at: utc(o.end), local: local(o.end), type: "outage-end" });
  }

  const live = emu.apply(cronJob);
  uid = live.metadata.uid;
  await emu.runUntil(to);

  // Slots: the hook's own schedule evaluation; none when the schedule or zone is invalid.
  let slotCount = 0;
  const skipped: Record<string, number> = {};
  const schedule: string = typeof spec.schedule === "string" ? spec.schedule : "";
  let zs;
  try {
    zs = zonedSchedule(schedule, zone);
  } catch {
    zs = undefined;
  }
  if (zs) {
    const createdBySlot = new Map<number, [string, { t: number }]>();
    for (const [jobName, c] of created) createdBySlot.set(c.slot, [jobName, c]);
    for (const s of listSlots(zs, new Date(from), { to: new Date(to), anchor: new Date(from) })) {
      slotCount++;
      const t = s.at.getTime();
      const jobName = jobNameFor(name, s.at);
      const made = createdBySlot.get(t);
      if (made) {
        const [job, c] = made;
        const event: TimelineEvent = { at: utc(t), local: local(t), type: "slot", slot: formatTime(s.at), job, outcome: "created", createdAt: formatTime(new Date(c.t)), delaySeconds: Math.round((c.t - t) / 100) / 10 };
        if (s.mark) event.dst = s.mark;
        push(t, event);
        continue;
      }
      const reason = skipReason(t, jobName, slotReasons, calls, inOutage);
      skipped[reason] = (skipped[reason] ?? 0) + 1;
      let message = SKIP_MESSAGES[reason] ?? `the CronJob is not Ready (${reason})`;
      if (reason !== "Outage" && inOutage(t)) message += "; the hook service was down when it was due";
      const event: TimelineEvent = { at: utc(t), local: local(t), type: "slot", slot: formatTime(s.at), job: jobName, outcome: "skipped", reason, message };
      if (s.mark) event.dst = s.mark;
      push(t, event);
    }
  }

  events.sort((a, b) => a.t - b.t || a.order - b.order);
  const end = emu.get(live)!;
  const jobsAtEnd = emu.store.list("batch/v1", "Job", namespace).filter(owned).map((j) => j.metadata.name as string).sort();
  const timeline = events.map((e) => e.event);
  return {
    name,
    namespace,
    schedule,
    timeZone: zone,
    from: formatTime(new Date(from)),
    to: formatTime(new Date(to)),
    events: timeline,
    summary: {
      slots: slotCount,
      created: created.size,
      skipped,
      succeeded: timeline.filter((e) => e.type === "succeeded").length,
      failed: timeline.filter((e) => e.type === "failed").length,
      deleted: timeline.filter((e) => e.type === "deleted").length,
      jobsAtEnd,
      hookCalls,
      failedHookCalls,
    },
    status: end.status ?? {},
  };
}

/**
 * Outage windows in time order, overlapping or touching ones merged: the service is down from the
 * first start to the last end, so the timeline says "down" and "back" once (two windows given as
 * 00:00–00:40 and 00:10–01:00 are one outage until 01:00, not one that ends at 00:40).
 * @returns epoch-millisecond windows `[start, end)`
 */
function mergeOutages(outages: readonly Outage[]): Array<{ start: number; end: number }> {
  const sorted = outages.map((o) => ({ start: o.start.getTime(), end: o.end.getTime() })).sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Array<{ start: number; end: number }> = [];
  for (const o of sorted) {
    const last = merged[merged.length - 1];
    if (last && o.start <= last.end) last.end = Math.max(last.end, o.end);
    else merged.push(o);
  }
  return merged;
}

/** One answered hook call: when, and why the CronJob was blocked then (if it was). */
interface HookCallNote {
  t: number;
  blocked?: string;
}

/**
 * Why a slot got no Job: the hook's word about it; else the CronJob's state at the first call
 * after the slot (blocked: suspended or invalid); else what kept the hook from acting on it.
 * @param calls - answered calls in time order
 */
function skipReason(t: number, jobName: string, slotReasons: ReadonlyMap<string, SkipReason>, calls: readonly HookCallNote[], inOutage: (t: number) => boolean): SkipReason {
  const said = slotReasons.get(jobName);
  if (said) return said;
  let lo = 0;
  let hi = calls.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (calls[mid]!.t < t) lo = mid + 1;
    else hi = mid;
  }
  const after = calls[lo];
  const before = calls[lo - 1];
  if (after?.blocked) return after.blocked;
  // No call since the slot: a blocked CronJob asks for no resync, so its state still holds.
  if (!after && before?.blocked) return before.blocked;
  if (inOutage(t)) return "Outage";
  return after ? "Superseded" : "Pending";
}
