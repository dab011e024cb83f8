/**
 * Prometheus metrics of the hook service, on a per-app registry (tests and several apps in one
 * process never share state). Served by the admin app on `/metrics`.
 *
 * Label values are bounded: controller and hook come from the registry, outcome and code from a
 * fixed list, decision actions/reasons are checked against a CamelCase/word pattern and anything
 * else (a child name that slipped into a reason, free text) is counted as `other`. Parent names,
 * namespaces and UIDs are never labels; they are in the logs.
 *
 * @packageDocumentation
 */
import client from "prom-client";
import type { Decision } from "../controllers/types.ts";

/** Outcome label of a hook call. */
export type HookOutcome =
  | "ok"
  | "bad_request"
  | "invalid_request"
  | "too_large"
  | "unauthorized"
  | "overloaded"
  | "timeout"
  | "client_timeout"
  | "error"
  | "aborted";

/**
 * Outcome label of a push delivery to the receiver: accepted (verified and recorded, whether or
 * not a CIBuild matched), ignored (not a push, or a push that starts nothing, e.g. a tag or a
 * branch deletion), unauthorized (401), replayed (409), too_large (413), overloaded (429),
 * bad_request (any other 4xx) and error (5xx, e.g. the Kubernetes API failed).
 */
export type ReceiverOutcome = "accepted" | "ignored" | "unauthorized" | "replayed" | "too_large" | "overloaded" | "bad_request" | "error";

/** Maps a receiver answer to its outcome label; `ignored` is told apart from `accepted` by the handler. */
export function receiverOutcomeOf(status: number, ignored: boolean): ReceiverOutcome {
  if (status === 200 || status === 202) return ignored ? "ignored" : "accepted";
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 409) return "replayed";
  if (status === 413) return "too_large";
  if (status === 429) return "overloaded";
  if (status >= 400 && status < 500) return "bad_request";
  return "error";
}

/** Prefix of every metric name. */
export const METRIC_PREFIX = "metahooks_";

/** Seconds; the top bucket is Metacontroller's default 10 s hook timeout. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Bytes, 1 KiB … 16 MiB: shows when requests approach BODY_LIMIT_BYTES. */
const SIZE_BUCKETS = client.exponentialBuckets(1024, 4, 8);
const CHILDREN_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/** A label value we accept from hook decisions: a word, ≤ 64 characters, no dots or dashes. */
const BOUNDED_LABEL = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** Maps a decision's action or reason to a bounded label value (`""` when absent). */
export function boundedLabel(value: string | undefined): string {
  if (value === undefined || value === "") return "";
  return BOUNDED_LABEL.test(value) ? value : "other";
}

/** Maps an HTTP status of a hook route to its outcome label. */
export function outcomeOf(status: number): HookOutcome {
  if (status === 200) return "ok";
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 413) return "too_large";
  if (status === 422) return "invalid_request";
  if (status === 429) return "overloaded";
  if (status >= 400 && status < 500) return "bad_request";
  return "error";
}

/** The metrics the app updates. */
export interface HookMetrics {
  readonly registry: client.Registry;
  /** Hook calls by controller, hook, HTTP code and outcome (`metahooks_hook_requests_total`). */
  readonly requests: client.Counter<"controller" | "hook" | "code" | "outcome">;
  /** Time from arrival to the last byte of the answer (`metahooks_hook_duration_seconds`). */
  readonly duration: client.Histogram<"controller" | "hook" | "outcome">;
  /** Request body sizes (`metahooks_hook_request_size_bytes`). */
  readonly requestSize: client.Histogram<"controller" | "hook">;
  /** Desired children per 200 answer (`metahooks_hook_children_desired`). */
  readonly childrenDesired: client.Histogram<"controller" | "hook">;
  /** Hook decisions (`metahooks_decisions_total`): jobs created, skipped with reason, builds… */
  readonly decisions: client.Counter<"controller" | "action" | "reason">;
  /** Parents answered with an invalid spec, by reason (`metahooks_parents_invalid_total`). */
  readonly parentsInvalid: client.Counter<"controller" | "reason">;
  /** Hook calls being served now (`metahooks_hook_in_flight_requests`). */
  readonly inFlight: client.Gauge;
  /** Reloads of mounted files (`metahooks_file_reloads_total{file, result}`). */
  readonly fileReloads: client.Counter<"file" | "result">;
  /** 1 while the service drains for shutdown (`metahooks_draining`). */
  readonly draining: client.Gauge;
  /**
   * Push deliveries answered by the receiver (`metahooks_receiver_deliveries_total{provider,
   * outcome}`); provider is github, gitea, gitlab or `unknown` (no provider header).
   */
  readonly receiverDeliveries: client.Counter<"provider" | "outcome">;
  /** CIBuilds annotated with a pushed commit (`metahooks_receiver_cibuilds_patched_total{provider}`). */
  readonly receiverPatched: client.Counter<"provider">;
}

/**
 * Creates the metric set on a fresh registry.
 * @param processMetrics - also collect prom-client's default process metrics (CPU, RSS, heap, GC,
 *   event-loop lag) with the `metahooks_` prefix. Off by default so tests that build many apps do
 *   not install GC observers per app; the real service turns it on.
 */
export function createMetrics(processMetrics = false): HookMetrics {
  const registry = new client.Registry();
  const p = METRIC_PREFIX;
  const metrics: HookMetrics = {
    registry,
    requests: new client.Counter({
      name: `${p}hook_requests_total`,
      help: "Hook calls by controller, hook (sync, finalize, customize), HTTP status code and outcome.",
      labelNames: ["controller", "hook", "code", "outcome"],
      registers: [registry],
    }),
    duration: new client.Histogram({
      name: `${p}hook_duration_seconds`,
      help: "Time from a hook call's arrival to its answer, in seconds.",
      labelNames: ["controller", "hook", "outcome"],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    requestSize: new client.Histogram({
      name: `${p}hook_request_size_bytes`,
      help: "Size of hook request bodies in bytes (compare with BODY_LIMIT_BYTES).",
      labelNames: ["controller", "hook"],
      buckets: SIZE_BUCKETS,
      registers: [registry],
    }),
    childrenDesired: new client.Histogram({
      name: `${p}hook_children_desired`,
      help: "Number of desired children in each successful hook answer.",
      labelNames: ["controller", "hook"],
      buckets: CHILDREN_BUCKETS,
      registers: [registry],
    }),
    decisions: new client.Counter({
      name: `${p}decisions_total`,
      help: "Decisions taken by successful hook calls, by controller, action and reason (e.g. create, skip/Forbid, prune).",
      labelNames: ["controller", "action", "reason"],
      registers: [registry],
    }),
    parentsInvalid: new client.Counter({
      name: `${p}parents_invalid_total`,
      help: "Hook answers for parents whose spec is invalid, by controller and reason.",
      labelNames: ["controller", "reason"],
      registers: [registry],
    }),
    inFlight: new client.Gauge({
      name: `${p}hook_in_flight_requests`,
      help: "Hook calls being served now (MAX_CONCURRENT_HOOKS caps it).",
      registers: [registry],
    }),
    fileReloads: new client.Counter({
      name: `${p}file_reloads_total`,
      help: "Reloads of mounted files (auth_token, tls) after they changed, by result.",
      labelNames: ["file", "result"],
      registers: [registry],
    }),
    draining: new client.Gauge({
      name: `${p}draining`,
      help: "1 while the service drains for shutdown (readiness is false), else 0.",
      registers: [registry],
    }),
    receiverDeliveries: new client.Counter({
      name: `${p}receiver_deliveries_total`,
      help: "Push deliveries answered by the receiver, by provider (github, gitea, gitlab, unknown) and outcome (accepted, ignored, unauthorized, replayed, too_large, overloaded, bad_request, error).",
      labelNames: ["provider", "outcome"],
      registers: [registry],
    }),
    receiverPatched: new client.Counter({
      name: `${p}receiver_cibuilds_patched_total`,
      help: "CIBuilds the receiver annotated with a pushed commit, by provider.",
      labelNames: ["provider"],
      registers: [registry],
    }),
  };
  if (processMetrics) client.collectDefaultMetrics({ register: registry, prefix: p });
  return metrics;
}

/**
 * Counts a successful call's decisions. `object` (a child name) is never used as a label.
 * @param decisions - from {@link runHook}
 */
export function recordDecisions(metrics: HookMetrics, controller: string, decisions: readonly Decision[]): void {
  for (const d of decisions) {
    metrics.decisions.inc({ controller, action: boundedLabel(d.action) || "other", reason: boundedLabel(d.reason) });
  }
}

/**
 * Counts a parent answered with an invalid spec.
 * @param reason - the first spec problem's CamelCase reason (the condition reason the hook reports)
 */
export function recordInvalidParent(metrics: HookMetrics, controller: string, reason: string): void {
  metrics.parentsInvalid.inc({ controller, reason: boundedLabel(reason) || "other" });
}
