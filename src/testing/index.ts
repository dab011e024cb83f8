/**
 * `metahooks/testing`: unit-test your own CronJob and CIBuild objects against the real hooks.
 *
 * Build the request Metacontroller would send for a parent (YAML or JSON text, or an object) and
 * the children it observes, run the sync or finalize hook at a fixed time, and read what the hook
 * decided: Jobs created, observed children deleted, the status and its conditions.
 *
 * @example
 * ```ts
 * import { syncAt } from "metahooks/testing";
 * const run = syncAt(readFileSync("cronjob.yaml", "utf8"), "2026-01-05T12:00:30Z");
 * assert.equal(run.created.length, 1);
 * assert.equal(run.condition("Ready")?.status, "True");
 * ```
 *
 * @packageDocumentation
 */
import { configureControllers, type ConfiguredController } from "../controllers/registry.ts";
import type { Decision } from "../controllers/types.ts";
import type { Env } from "../config.ts";
import type { KubeObject, SyncResponse } from "../metacontroller/contract.ts";
import { runHook } from "../metacontroller/run-hook.ts";
import { DEFAULT_RESOURCES } from "../emulator/selectors.ts";
import { buildJob } from "../controllers/cronjob/job.ts";
import { readCronJobSpec } from "../controllers/cronjob/validate.ts";
import { formatTime, parseExactTime } from "../kube/time.ts";
import { parseManifests } from "../kube/manifest-yaml.ts";

/** Any Kubernetes object as plain JSON. */
export type TestObject = Record<string, any>;

/** A parent or child: YAML or JSON text (one document), or an object. */
export type ObjectInput = string | TestObject;

/** Options of {@link buildRequest}. */
export interface RequestOptions {
  /**
   * Observed objects: children of the parent's child kinds go to `children`; any other kind (for
   * CIBuild the build Pods) to `related`, as a customize hook's related resources arrive.
   * Text may hold several YAML documents.
   */
  children?: ObjectInput | readonly ObjectInput[];
  /** Hook version: `v1` keys children by `name`, `v2` by `namespace/name`. @default "v1" */
  hookVersion?: "v1" | "v2";
  /** Set for a finalize request (the parent is being deleted). @default false */
  finalizing?: boolean;
  /**
   * `metadata.creationTimestamp` when the parent has none (the API server always sets it).
   * @default "2000-01-01T00:00:00Z": an object that has existed for long
   */
  creationTimestamp?: string;
}

/** A Metacontroller CompositeController sync/finalize request body. */
export interface HookRequest {
  controller: TestObject;
  parent: TestObject;
  children: Record<string, Record<string, TestObject>>;
  related: Record<string, Record<string, TestObject>>;
  finalizing: boolean;
}

/** Options of {@link runSync} and {@link runFinalize}. */
export interface RunOptions {
  /**
   * Environment the kind's options come from (CIBuild build images), as for the server.
   * @default {} (the pinned defaults)
   */
  env?: Env;
}

/** A hook's answer plus readers for what it decided. */
export interface HookRun {
  /** The response exactly as the HTTP route would answer it. */
  response: SyncResponse;
  /** The hook's decisions (`{ action, reason?, object? }`), as logged by the server. */
  decisions: Decision[];
  /** The desired children (what Metacontroller makes the cluster look like). */
  children: TestObject[];
  /** Desired children that were not observed: Metacontroller creates them. */
  created: TestObject[];
  /** Observed children left out of the answer: Metacontroller deletes them. */
  deleted: TestObject[];
  /** The parent's whole new status. */
  status: TestObject;
  /** A status condition by type (`Ready`, `Scheduling`, …), or undefined. */
  condition(type: string): { type: string; status: string; reason?: string; message?: string } | undefined;
}

const DEFAULT_CREATION = "2000-01-01T00:00:00Z";

/** Reads objects from YAML/JSON text (every document, read as kubectl reads it: see parseManifests) or passes objects through (copied). */
export function readObjects(input: ObjectInput | readonly ObjectInput[]): TestObject[] {
  const inputs = Array.isArray(input) ? input : [input];
  const out: TestObject[] = [];
  for (const item of inputs as ObjectInput[]) {
    if (typeof item !== "string") {
      out.push(structuredClone(item));
      continue;
    }
    let documents: unknown[];
    try {
      // As kubectl reads the file (YAML 1.1 scalars: `suspend: yes` is true, `0500` is 320).
      documents = parseManifests(item);
    } catch (err) {
      throw new Error(`not valid YAML: ${(err as Error).message}`);
    }
    for (const value of documents) {
      if (typeof value !== "object" || Array.isArray(value)) throw new Error("every document must be one Kubernetes object");
      out.push(value as TestObject);
    }
  }
  return out;
}

function readOne(input: ObjectInput): TestObject {
  const [first, ...rest] = readObjects(input);
  if (!first || rest.length > 0) throw new Error("the parent must be exactly one object");
  return first;
}

function controllerFor(parent: TestObject, env: Env = {}): ConfiguredController {
  const found = configureControllers(env).find((c) => c.def.apiVersion === parent.apiVersion && c.def.kind === parent.kind);
  if (!found) {
    const kinds = configureControllers(env).map((c) => `${c.def.apiVersion} ${c.def.kind}`).join(", ");
    throw new Error(`no metahooks controller for ${parent.apiVersion} ${parent.kind} (kinds: ${kinds})`);
  }
  return found;
}

/** `Kind.apiVersion`, Metacontroller's key of a child group (`Job.batch/v1`, `Service.v1`). */
export function groupKey(obj: TestObject): string {
  return `${obj.kind}.${obj.apiVersion}`;
}

/**
 * Builds the request Metacontroller would send for `parent` and the observed `children`: server
 * fields the API server would have set are filled in when missing (namespace `default`, a uid
 * derived from the name, generation 1, creationTimestamp), children default to the parent's
 * namespace, and every child kind of the controller has its (possibly empty) group.
 * @throws Error when the parent is not a kind metahooks serves, or the text is not YAML/JSON
 */
export function buildRequest(parent: ObjectInput, options: RequestOptions = {}): HookRequest {
  const p = readOne(parent);
  const { def } = controllerFor(p);
  const namespace: string = p.metadata?.namespace ?? "default";
  p.metadata = {
    uid: `uid-${namespace}-${p.metadata?.name ?? ""}`,
    generation: 1,
    resourceVersion: "1",
    creationTimestamp: options.creationTimestamp ?? DEFAULT_CREATION,
    ...p.metadata,
    namespace,
  };
  const controller = def.compositeController("http://metahooks.invalid") as TestObject;
  const childKeys = new Set<string>(
    (controller.spec?.childResources ?? []).map((c: TestObject) => `${DEFAULT_RESOURCES[c.resource]?.kind ?? c.resource}.${c.apiVersion}`),
  );
  const children: HookRequest["children"] = Object.fromEntries([...childKeys].map((k) => [k, {}]));
  const related: HookRequest["related"] = {};
  for (const child of options.children === undefined ? [] : readObjects(options.children)) {
    child.metadata = { ...child.metadata, namespace: child.metadata?.namespace ?? namespace };
    const key = groupKey(child);
    const target = childKeys.has(key) ? children : related;
    const name = options.hookVersion === "v2" ? `${child.metadata.namespace}/${child.metadata.name}` : child.metadata.name;
    (target[key] ??= {})[name] = child;
  }
  return { controller, parent: p, children, related, finalizing: options.finalizing ?? false };
}

// A text is read strictly (RFC 3339 that exists on the calendar): Date would roll 2026-02-30 over
// to March, and a test would then check a clock it never meant.
function toDate(now: Date | string): Date {
  const date = typeof now === "string" ? parseExactTime(now) : now;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new Error(`not an RFC 3339 time that exists on the calendar (such as 2026-01-02T03:04:05Z): ${JSON.stringify(now)}`);
  }
  return date;
}

function observedOf(request: HookRequest): TestObject[] {
  return Object.values(request.children).flatMap((group) => Object.values(group ?? {}));
}

function identity(o: TestObject): string {
  return `${groupKey(o)} ${o.metadata?.namespace ?? ""}/${o.metadata?.name}`;
}

function readRun(request: HookRequest, response: SyncResponse, decisions: Decision[]): HookRun {
  const children = response.children as TestObject[];
  const observed = observedOf(request);
  const parentNs = request.parent.metadata.namespace;
  const withNs = (o: TestObject) => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata?.namespace ?? parentNs } });
  const desired = new Set(children.map((c) => identity(withNs(c))));
  const seen = new Set(observed.map(identity));
  const status = (response.status ?? {}) as TestObject;
  return {
    response,
    decisions,
    children,
    created: children.filter((c) => !seen.has(identity(withNs(c)))),
    deleted: observed.filter((o) => !desired.has(identity(o))),
    status,
    condition: (type) => (Array.isArray(status.conditions) ? status.conditions.find((c: TestObject) => c.type === type) : undefined),
  };
}

/**
 * Runs the sync hook on a request exactly as `POST /sync/<kind>` does (validation included).
 * @param now - the hook's clock: a Date or an RFC 3339 text
 * @throws HookError when the request is not valid for the kind (the route would answer 4xx/5xx)
 */
export function runSync(request: HookRequest, now: Date | string, options: RunOptions = {}): HookRun {
  const { def, options: kindOptions } = controllerFor(request.parent, options.env);
  const result = runHook(def, "sync", request, toDate(now), kindOptions);
  return readRun(request, result.response, result.decisions);
}

/** Runs the finalize hook (`POST /finalize/<kind>`): the parent is being deleted. */
export function runFinalize(request: HookRequest, now: Date | string, options: RunOptions = {}): HookRun {
  const { def, options: kindOptions } = controllerFor(request.parent, options.env);
  const result = runHook(def, "finalize", { ...request, finalizing: true }, toDate(now), kindOptions);
  return readRun(request, result.response, result.decisions);
}

/** Shorthand: {@link buildRequest} then {@link runSync}. */
export function syncAt(parent: ObjectInput, now: Date | string, options: RequestOptions & RunOptions = {}): HookRun {
  return runSync(buildRequest(parent, options), now, options);
}

/** Shorthand: {@link buildRequest} then {@link runFinalize}. */
export function finalizeAt(parent: ObjectInput, now: Date | string, options: RequestOptions & RunOptions = {}): HookRun {
  return runFinalize(buildRequest(parent, { ...options, finalizing: true }), now, options);
}

const JOB_STATES = ["running", "succeeded", "failed"] as const;

/** How an observed Job stands: still running, or finished one way. */
export type JobState = (typeof JOB_STATES)[number];

/**
 * The Job the CronJob hook creates for `slot` (same name, labels, annotations, owner), observed
 * in `state`: the fixture for "a Job is still running" or "three Jobs succeeded" tests.
 * @param cronJob - the CronJob (its spec must be valid)
 * @param slot - the scheduled time the Job belongs to (any instant: a Job of an earlier schedule
 *   is a fixture too)
 * @param state - `running` (started at the slot), `succeeded` or `failed` (finished `runSeconds` later)
 * @param runSeconds - run time of a finished Job, in seconds, not negative @default 60
 * @throws Error when the CronJob's spec is invalid, or `state` or `runSeconds` is not one of the above
 */
export function cronJobJob(cronJob: ObjectInput, slot: Date | string, state: JobState = "running", runSeconds = 60): TestObject {
  // Plain JavaScript callers have no type check: a misspelt state would otherwise read as failed.
  if (!JOB_STATES.includes(state)) throw new Error(`state must be one of ${JOB_STATES.join(", ")}, got ${JSON.stringify(state)}`);
  if (!(Number.isFinite(runSeconds) && runSeconds >= 0)) throw new Error(`runSeconds must be a number of seconds, 0 or more, got ${JSON.stringify(runSeconds)}`);
  const parent = buildRequest(cronJob).parent as KubeObject;
  const read = readCronJobSpec((parent as TestObject).spec);
  if (!read.valid) throw new Error(`the CronJob's spec is invalid: ${read.problems.map((p) => `${p.field}: ${p.message}`).join("; ")}`);
  const at = toDate(slot);
  const job = structuredClone(buildJob(parent, read.valid.spec.jobTemplate, at, read.valid.zone)) as TestObject;
  const start = formatTime(at);
  const end = formatTime(new Date(at.getTime() + runSeconds * 1000));
  if (state === "running") job.status = { active: 1, startTime: start };
  else {
    const type = state === "succeeded" ? "Complete" : "Failed";
    job.status = {
      startTime: start,
      ...(state === "succeeded" ? { completionTime: end, succeeded: 1 } : { failed: 1 }),
      conditions: [{ type, status: "True", lastTransitionTime: end }],
    };
  }
  return job;
}
