/**
 * The kind contract: what one parent kind declares, and everything else (HTTP routes, admission,
 * metrics, CLI help, manifests, explain) reads from that declaration only. A new parent kind is
 * one folder under src/controllers with one {@link KindDeclaration}, registered in registry.ts.
 * docs/kind-contract.md walks through it.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import type {
  KubeObject,
  CustomizeRequest,
  CustomizeResponse,
  ObjectMap,
  SyncRequest,
  SyncResponse,
} from "../metacontroller/contract.ts";
import type { CelRule, PrinterColumn } from "../crd/build-crd.ts";
import type { SpecDefaults } from "./defaults.ts";

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
   * when the parent is valid, also when it merely waits (suspended, Forbid, deleting). It comes
   * from the hook's plan; the HTTP layer only counts it (`metahooks_parents_invalid_total`) and
   * never re-validates.
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

/** The parent resource: what Metacontroller watches and the CRD defines. */
export interface ParentResource {
  /** `group/version`, e.g. `batch.tutorial.kubebuilder.io/v1`. */
  apiVersion: string;
  /** e.g. `CronJob`. */
  kind: string;
  /** The CRD's plural resource name, e.g. `cronjobs` (also the REST path segment). */
  plural: string;
  /** The CRD's singular name. */
  singular: string;
  shortNames?: string[];
  categories?: string[];
}

/**
 * Metacontroller's child update strategies (`childResources[].updateStrategy.method`).
 * `OnDelete` (Metacontroller's default) never touches an existing child.
 */
export type UpdateStrategy = "OnDelete" | "Recreate" | "InPlace" | "RollingRecreate" | "RollingInPlace";

/**
 * A child resource type. The CompositeController's `childResources` entry and the key of the
 * group in hook requests (`<kind>.<apiVersion>`, e.g. `Job.batch/v1`) are derived from it.
 */
export interface ChildResource {
  /** e.g. `batch/v1`; `v1` for the core group. */
  apiVersion: string;
  /** e.g. `Job`. */
  kind: string;
  /** The plural resource name, e.g. `jobs`. */
  resource: string;
  /** How Metacontroller updates an existing child whose desired state differs. @default "OnDelete" */
  updateStrategy?: UpdateStrategy;
}

/** One environment variable a kind reads at start-up. */
export interface OptionVariable {
  /** The variable, e.g. `KANIKO_IMAGE`. */
  name: string;
  /** Its value when unset, as shown in `--help`. */
  default: string;
  /** One line for `--help`. */
  help: string;
}

/**
 * Service configuration of a kind (read once from the environment, then passed to every hook).
 * @typeParam O - the resolved options object
 */
export interface KindOptions<O> {
  /** Heading of the kind's section in `metahooks --help`. */
  title: string;
  variables: readonly OptionVariable[];
  /**
   * Resolves the options.
   * @throws Error naming the variable when a value is invalid
   */
  load(env: Record<string, string | undefined>): O;
}

/** The CRD of the parent, generated from the kind's zod schemas. */
export interface KindSchema {
  spec: z.ZodType;
  status: z.ZodType;
  /** The CRD's top-level description. */
  description: string;
  printerColumns: PrinterColumn[];
  /** CEL rules on `spec` (`x-kubernetes-validations`); each must be no stricter than the hook. */
  celRules?: CelRule[];
}

/** What the summary of `metahooks explain` is made of. */
export interface ExplainInput {
  parent: KubeObject;
  /** Observed children, as sent to the hook. */
  children: ObjectMap;
  response: SyncResponse;
  decisions: Decision[];
  finalizing: boolean;
  now: Date;
  /** What the hook's answer changes among the children (keys `Kind/name`, sorted). */
  changes: ChildChanges;
}

/** What the hook's answer would change among the children. */
export interface ChildChanges {
  create: string[];
  delete: string[];
  keep: string[];
}

/**
 * What one parent kind declares. Nothing outside the kind's folder knows its names or rules.
 * @typeParam O - the options object passed to every hook call (`undefined` when the kind has none)
 */
export interface KindDeclaration<O = undefined> {
  /** Route and CLI segment: `/sync/<name>`, `metahooks sync <name>`; lower case. */
  name: string;
  parent: ParentResource;
  /** Child types, in the order the CompositeController lists them. */
  children: readonly ChildResource[];
  schema: KindSchema;
  /**
   * The defaults the hook assumes for unset spec fields, as a partial spec. One table drives the
   * mutating webhook, the CRD's field descriptions ("Default: …") and the kind's normalisation.
   */
  defaults?: SpecDefaults;
  /**
   * The pure hooks (see {@link SyncHook}, {@link CustomizeHook}). Written as methods so a kind
   * with options still fits a list of kinds: each is only ever called with its own options.
   */
  hooks: {
    sync(request: SyncRequest, now: Date, options: O): HookResult;
    finalize(request: SyncRequest, now: Date, options: O): HookResult;
    customize?(request: CustomizeRequest, options: O): CustomizeResponse;
  };
  /** Validation and defaulting for admission webhooks (same rules as the sync hook). */
  admission?: AdmissionSupport;
  /** Environment variables of the kind (e.g. build images); kinds without any omit it. */
  options?: KindOptions<O>;
  /** Kind-specific lines of `metahooks explain` (between the header and the conditions). */
  explain?: (input: ExplainInput) => string[];
}

/**
 * A registered kind: its declaration plus what is derived from it.
 *
 * The hooks are methods (not function-typed properties) on purpose: a `Kind<CIBuildOptions>` can
 * then sit in a list of `Kind<unknown>`, and {@link ConfiguredKind} pairs each with its own options.
 */
export interface Kind<O = unknown> {
  readonly declaration: KindDeclaration<O>;
  readonly name: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly admission: AdmissionSupport | undefined;
  readonly hasCustomize: boolean;
  sync(request: SyncRequest, now: Date, options: O): HookResult;
  finalize(request: SyncRequest, now: Date, options: O): HookResult;
  customize(request: CustomizeRequest, options: O): CustomizeResponse;
  /** Resolves the kind's options from the environment (`undefined` for kinds without options). */
  loadOptions(env: Record<string, string | undefined>): O;
  /** The CRD object (apiextensions.k8s.io/v1), generated from the kind's zod schemas. */
  crd(): Record<string, unknown>;
  /**
   * The CompositeController object for this kind.
   * @param hookBaseUrl - e.g. `http://metahooks.metahooks.svc:8080` (no trailing slash)
   */
  compositeController(hookBaseUrl: string): Record<string, unknown>;
}

/** A kind with its options resolved from the environment. */
export interface ConfiguredKind {
  def: Kind;
  options: unknown;
}
