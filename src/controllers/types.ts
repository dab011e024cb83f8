/**
 * What every controller kind provides to the HTTP layer and the CLI.
 *
 * @packageDocumentation
 */
import type {
  KubeObject,
  CustomizeRequest,
  CustomizeResponse,
  SyncRequest,
  SyncResponse,
} from "../metacontroller/contract.ts";

/**
 * One decision a hook took, for logs and metrics. `action` and `reason` are bounded vocabularies
 * (they become metric labels); `object` is a child name (logs only).
 *
 * @example `{ action: "create", object: "hello-29000000" }`, `{ action: "skip", reason: "Forbid" }`
 */
export interface Decision {
  action: string;
  reason?: string;
  object?: string;
}

/** A hook's answer plus the decisions behind it. Only `response` goes on the wire. */
export interface HookResult {
  response: SyncResponse;
  decisions: Decision[];
  /**
   * The reason of the parent's own problem when the answer reports one with a `False` condition
   * (an invalid spec, a name no child can carry, nesting too deep), e.g. `InvalidSchedule`; unset
   * when the parent is valid, also when it merely waits (suspended, Forbid, deleting). The HTTP
   * layer only counts it (`metahooks_parents_invalid_total`); it never re-validates.
   */
  invalidReason?: string;
}

/**
 * A pure sync or finalize hook: no I/O, no clock, no environment.
 *
 * @param request - the parsed Metacontroller request
 * @param now - the current time (the caller's clock; tests fix it)
 * @param options - service configuration the kind needs (e.g. build images), already resolved
 */
export type SyncHook<O> = (request: SyncRequest, now: Date, options: O) => HookResult;

/** A pure customize hook. */
export type CustomizeHook<O> = (request: CustomizeRequest, options: O) => CustomizeResponse;

/**
 * One problem with a parent's spec: a CamelCase `reason` (also the condition reason the sync hook
 * reports), the JSON path of the field (`spec.schedule`), and a message naming the rule.
 */
export interface SpecProblem {
  reason: string;
  field: string;
  message: string;
}

/**
 * What admission webhooks need from a kind: the same validation and defaults the sync hook uses.
 */
export interface AdmissionSupport {
  /**
   * Problems with a parent, in the kind's check order (the first is the sync hook's reason).
   * @param parent - the object being created or updated
   * @param oldParent - the stored object on update (for rules about changes), else undefined
   * @returns an empty list when the parent is valid
   */
  validate(parent: KubeObject, oldParent?: KubeObject): SpecProblem[];
  /**
   * The spec with every default the hook assumes written out (for a mutating webhook), or the spec
   * unchanged when it does not parse. Never removes or rewrites a value the user set.
   */
  defaultSpec(spec: unknown): unknown;
}

/** A CustomResourceDefinition and CompositeController description of one parent kind. */
export interface ControllerManifests {
  /** The CRD object (apiextensions.k8s.io/v1), generated from the kind's zod schema. */
  crd(): Record<string, unknown>;
  /**
   * The CompositeController object for this kind.
   * @param hookBaseUrl - e.g. `http://metahooks.metahooks.svc:8080` (no trailing slash)
   */
  compositeController(hookBaseUrl: string): Record<string, unknown>;
}

/**
 * A controller kind served by metahooks: its route segment, its parent type, and its pure hooks.
 * @typeParam O - the options object passed to every hook call
 */
export interface ControllerDefinition<O = unknown> extends ControllerManifests {
  /** Route and CLI segment: `/sync/<name>`, `metahooks sync <name>`. */
  name: string;
  /** The parent's `apiVersion`, e.g. `batch.tutorial.kubebuilder.io/v1`. */
  apiVersion: string;
  /** The parent's `kind`, e.g. `CronJob`. */
  kind: string;
  sync: SyncHook<O>;
  finalize: SyncHook<O>;
  customize?: CustomizeHook<O>;
  /** Validation and defaulting for admission webhooks (same rules as the sync hook). */
  admission?: AdmissionSupport;
  /**
   * Reads the kind's options from the service environment at start-up (never per call).
   * @throws Error naming the variable when a value is invalid
   */
  loadOptions?: (env: Record<string, string | undefined>) => O;
}
