/**
 * Validating and defaulting admission for parent kinds: pure functions from an AdmissionReview
 * request to an AdmissionReview response. They consume a kind's {@link AdmissionSupport} (the
 * same validation and defaults the sync hook uses) and never know a kind's rules themselves.
 *
 * @packageDocumentation
 */
import { formatIssues, internalError, invalidRequest } from "../errors.ts";
import type { Kind, SpecProblem } from "../controllers/types.ts";
import type { KubeObject } from "../metacontroller/contract.ts";
import {
  ADMISSION_API_VERSION,
  AdmissionReviewRequestSchema,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReviewResponse,
} from "./review.ts";
import { missingDefaultsPatch, type AddOperation } from "./json-patch.ts";
import { findTooDeep } from "../kube/nesting.ts";

/** `status.reason` of a denial: the object is invalid (metav1.StatusReasonInvalid). */
export const REASON_INVALID = "Invalid";
/** `status.code` of a denial: what the apiserver answers for an invalid object. */
export const CODE_INVALID = 422;

/** At most this many warnings per answer (kubectl prints each on its own line). */
const MAX_WARNINGS = 5;

/** Why a request was let through unchecked (for logs); `undefined` when it must be checked. */
export type SkipReason = "Delete" | "Connect" | "Subresource" | "OtherKind" | "Deleting";

/** What one admission call decided, for logs: the review to send plus a one-line summary. */
export interface AdmissionOutcome {
  review: AdmissionReviewResponse;
  /** `allowed`, `denied InvalidSchedule,…`, `patched 3`, or `skipped <SkipReason>`. */
  decision: string;
  /** `namespace/name` of the object (for logs), when known. */
  object?: string;
}

function parseReview(def: Kind, body: unknown): AdmissionRequest {
  if (!def.admission) throw invalidRequest(`the ${def.name} controller has no admission support`);
  const parsed = AdmissionReviewRequestSchema.safeParse(body);
  if (!parsed.success) {
    throw invalidRequest(`not an ${ADMISSION_API_VERSION} AdmissionReview request: ${formatIssues(parsed.error)}`);
  }
  return parsed.data.request;
}

function objectKey(request: AdmissionRequest): string | undefined {
  const name = request.name || request.object?.metadata.name || request.oldObject?.metadata.name;
  if (!name) return undefined;
  return request.namespace ? `${request.namespace}/${name}` : name;
}

/**
 * Requests we let through without looking: DELETE and CONNECT (nothing to validate), any
 * subresource (Metacontroller writes `status`; blocking it would freeze the parent), a kind this
 * route does not serve (a misconfigured webhook must not break other kinds), and an object being
 * deleted (its finalizer removal must never be refused).
 */
function skipReason(def: Kind, request: AdmissionRequest): SkipReason | undefined {
  if (request.operation === "DELETE") return "Delete";
  if (request.operation === "CONNECT") return "Connect";
  if (request.subResource) return "Subresource";
  const { group, version, kind } = request.kind;
  if ((group ? `${group}/${version}` : version) !== def.apiVersion || kind !== def.kind) return "OtherKind";
  if (request.object?.metadata.deletionTimestamp) return "Deleting";
  return undefined;
}

function allow(request: AdmissionRequest, extra: Partial<AdmissionResponse> = {}): AdmissionReviewResponse {
  return { apiVersion: ADMISSION_API_VERSION, kind: "AdmissionReview", response: { uid: request.uid, allowed: true, ...extra } };
}

function skipped(def: Kind, request: AdmissionRequest, reason: SkipReason, route: string): AdmissionOutcome {
  const extra: Partial<AdmissionResponse> = {};
  if (reason === "OtherKind") {
    const { group, version, kind } = request.kind;
    extra.warnings = [
      `metahooks: /${route}/${def.name} serves ${def.apiVersion} ${def.kind}, not ${group ? `${group}/` : ""}${version} ${kind}; not checked`,
    ];
  }
  const outcome: AdmissionOutcome = { review: allow(request, extra), decision: `skipped ${reason}` };
  const key = objectKey(request);
  if (key) outcome.object = key;
  return outcome;
}

function requireObject(request: AdmissionRequest): KubeObject {
  if (!request.object) throw invalidRequest(`request.object is required for ${request.operation}`);
  return request.object;
}

function problemKey(p: SpecProblem): string {
  return `${p.field}\u0000${p.reason}\u0000${p.message}`;
}

function callValidate(def: Kind, parent: KubeObject, oldParent?: KubeObject): SpecProblem[] {
  try {
    return def.admission!.validate(parent, oldParent);
  } catch (err) {
    throw internalError(`${def.name} validation failed: ${(err as Error).message}`);
  }
}

/** A review to check: the object, the stored object on UPDATE, and an "allowed" outcome to start from. */
interface OpenedReview {
  request: AdmissionRequest;
  object: KubeObject;
  oldObject: KubeObject | undefined;
  outcome: AdmissionOutcome;
}

/**
 * The common start of both webhooks: parse the review, let through what is never checked (see
 * {@link skipReason}), and read the object (and, on UPDATE, the stored one).
 */
function openReview(def: Kind, body: unknown, route: "validate" | "mutate"): OpenedReview | { done: AdmissionOutcome } {
  const request = parseReview(def, body);
  const skip = skipReason(def, request);
  if (skip) return { done: skipped(def, request, skip, route) };
  const object = requireObject(request);
  const oldObject = request.operation === "UPDATE" ? (request.oldObject ?? undefined) : undefined;
  const outcome: AdmissionOutcome = { review: allow(request), decision: "allowed" };
  const key = objectKey(request);
  if (key) outcome.object = key;
  return { request, object, oldObject, outcome };
}

/**
 * The denial message: `<Kind>.<group> "<name>" is invalid: <field>: <message> (<Reason>); …`,
 * the shape kubectl users know from built-in validation. The apiserver prefixes it with
 * `admission webhook "<webhook>" denied the request: `.
 */
export function formatDenial(def: Kind, name: string, problems: SpecProblem[]): string {
  const group = def.apiVersion.includes("/") ? def.apiVersion.slice(0, def.apiVersion.indexOf("/")) : "";
  const what = group ? `${def.kind}.${group}` : def.kind;
  const list = problems.map((p) => `${p.field}: ${p.message} (${p.reason})`).join("; ");
  return `${what} ${JSON.stringify(name)} is invalid: ${list}`;
}

/**
 * Validating admission (`POST /validate/<kind>`).
 *
 * CREATE: the object is checked with the kind's `validate(object)`. UPDATE: with
 * `validate(object, oldObject)`, and problems the stored object already had are forgiven
 * (ratcheting, as the apiserver does for CRD schemas since 1.30): an object that became invalid
 * under older rules, or by a rule only checked on create (e.g. the CronJob name length), can still
 * be edited, labelled and finalized, while no update may introduce a new problem.
 *
 * @param def - the kind; must have `admission`
 * @param body - the AdmissionReview JSON the apiserver sent
 * @returns the review to answer with HTTP 200: `allowed`, or denied with `status.code` 422,
 *   `reason: Invalid`, a message naming each field and rule, and one cause per problem
 * @throws HookError 422 when the body is not an AdmissionReview v1 request (or the kind has no
 *   admission support); 500 when the kind's validation throws
 */
export function validateAdmission(def: Kind, body: unknown): AdmissionOutcome {
  const opened = openReview(def, body, "validate");
  if ("done" in opened) return opened.done;
  const { request, object, oldObject, outcome } = opened;
  let problems = callValidate(def, object, oldObject);
  let forgiven: SpecProblem[] = [];
  if (oldObject && problems.length) {
    const existing = new Set(callValidate(def, oldObject).map(problemKey));
    forgiven = problems.filter((p) => existing.has(problemKey(p)));
    problems = problems.filter((p) => !existing.has(problemKey(p)));
  }
  if (problems.length === 0) {
    // Let through, but say so: kubectl prints warnings, and the object still will not run.
    if (forgiven.length) {
      outcome.review.response.warnings = forgiven
        .slice(0, MAX_WARNINGS)
        .map((p) => `${p.field}: ${p.message} (${p.reason}; the stored object already had this problem)`.slice(0, 512));
      outcome.decision = `allowed with ${forgiven.length} existing problem(s)`;
    }
    return outcome;
  }
  const name = object.metadata.name || request.name || "";
  const group = request.kind.group;
  outcome.review.response = {
    uid: request.uid,
    allowed: false,
    status: {
      status: "Failure",
      code: CODE_INVALID,
      reason: REASON_INVALID,
      message: formatDenial(def, name, problems),
      details: {
        ...(name ? { name } : {}),
        ...(group ? { group } : {}),
        kind: def.kind,
        causes: problems.map((p) => ({ reason: p.reason, field: p.field, message: p.message })),
      },
    },
  };
  outcome.decision = `denied ${[...new Set(problems.map((p) => p.reason))].join(",")}`;
  return outcome;
}

/** True when `pointer` (relative, e.g. `/build/timeout`) names a value present in `doc`. */
function pointerExists(doc: unknown, pointer: string): boolean {
  let node = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, token)) return false;
    node = (node as Record<string, unknown>)[token];
  }
  return node !== undefined;
}

/**
 * The defaulting patch for one request: the `add` operations of {@link missingDefaultsPatch}
 * over `spec`, restricted on UPDATE to paths the stored object already had.
 *
 * Why the UPDATE restriction: an object stored before the webhook was enabled must not change
 * its spec just because someone edits a label. For CIBuild the spec (defaults included) is the
 * build hash, so a late default would start a rebuild. An object created with the webhook keeps
 * its defaults even when a server-side apply drops them.
 */
export function defaultsPatch(def: Kind, object: KubeObject, oldObject?: KubeObject): AddOperation[] {
  const spec = (object as { spec?: unknown }).spec;
  if (spec === undefined || spec === null) return [];
  // Cloning and diffing recurse once per level: an object past the nesting bound gets no patch
  // (the validating webhook denies it with NestingTooDeep).
  if (findTooDeep(object) || (oldObject && findTooDeep(oldObject))) return [];
  let defaulted: unknown;
  try {
    defaulted = def.admission!.defaultSpec(structuredClone(spec));
  } catch (err) {
    throw internalError(`${def.name} defaulting failed: ${(err as Error).message}`);
  }
  const ops = missingDefaultsPatch(spec, defaulted, "/spec");
  if (!oldObject) return ops;
  const oldSpec = (oldObject as { spec?: unknown }).spec;
  return ops.filter((op) => pointerExists(oldSpec, op.path.slice("/spec".length)));
}

/**
 * Defaulting admission (`POST /mutate/<kind>`): a base64 JSONPatch (`patchType: JSONPatch`)
 * that adds the defaults the kind's hook assumes, so `kubectl get -o yaml` shows them. Never
 * denies; never replaces or removes a value the user set; no patch when nothing is missing or the
 * spec does not parse (the validating webhook reports that).
 *
 * @param def - the kind; must have `admission`
 * @param body - the AdmissionReview JSON the apiserver sent
 * @throws HookError 422 when the body is not an AdmissionReview v1 request; 500 when the kind's
 *   defaulting throws
 */
export function mutateAdmission(def: Kind, body: unknown): AdmissionOutcome {
  const opened = openReview(def, body, "mutate");
  if ("done" in opened) return opened.done;
  const { object, oldObject, outcome } = opened;
  const ops = defaultsPatch(def, object, oldObject);
  if (ops.length === 0) return outcome;
  outcome.review.response.patchType = "JSONPatch";
  outcome.review.response.patch = Buffer.from(JSON.stringify(ops), "utf8").toString("base64");
  outcome.decision = `patched ${ops.length}`;
  return outcome;
}
