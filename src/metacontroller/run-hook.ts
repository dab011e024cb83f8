/**
 * The one path through a hook call, shared by the HTTP routes and the CLI:
 * parse the envelope → check the parent's type → call the pure hook → validate the response.
 *
 * @packageDocumentation
 */
import { formatIssues, internalError, invalidRequest } from "../errors.ts";
import type { Kind, HookResult } from "../controllers/types.ts";
import {
  checkSyncResponse,
  CustomizeRequestSchema,
  CustomizeResponseSchema,
  parseSyncRequest,
  type CustomizeResponse,
  type ObjectMap,
  type SyncRequest,
} from "./contract.ts";
import { MAX_NESTING_DEPTH, findTooDeep, formatPath } from "../kube/nesting.ts";

/** Which hook of a controller is called. */
export type HookName = "sync" | "finalize" | "customize";

/** Summary of a request for logs: parent key, generation and `finalizing`. */
export interface RequestSummary {
  parent: string;
  uid?: string;
  generation?: number;
  finalizing?: boolean;
}

/**
 * Result of {@link runHook}: the validated response, the decisions, and a request summary.
 * @typeParam R - the response type: `SyncResponse` for sync/finalize, `CustomizeResponse` for customize
 */
export interface RunResult<R = HookResult["response"] | CustomizeResponse> {
  response: R;
  decisions: HookResult["decisions"];
  summary: RequestSummary;
  /** The hook's own report of an invalid parent (see {@link HookResult.invalidReason}). */
  invalidReason?: string;
}

function checkParentType(def: Kind, parent: SyncRequest["parent"]): void {
  if (parent.apiVersion !== def.apiVersion || parent.kind !== def.kind) {
    throw invalidRequest(
      `parent is ${parent.apiVersion}/${parent.kind}; the ${def.name} hooks serve ${def.apiVersion}/${def.kind}`,
    );
  }
}

/**
 * Runs one hook over an already-parsed JSON body.
 *
 * @param def - the controller kind
 * @param hook - `sync`, `finalize` or `customize`
 * @param body - the request body (any JSON value)
 * @param now - the clock for this call
 * @param options - the kind's options
 * @throws HookError 422 when the body is not a request for this kind; 500 when the hook throws or
 *   returns something that is not a valid response (never answer 200 with a partial answer)
 */
export function runHook<O>(def: Kind<O>, hook: "sync" | "finalize", body: unknown, now: Date, options: O): RunResult<HookResult["response"]>;
export function runHook<O>(def: Kind<O>, hook: "customize", body: unknown, now: Date, options: O): RunResult<CustomizeResponse>;
export function runHook<O>(def: Kind<O>, hook: HookName, body: unknown, now: Date, options: O): RunResult;
export function runHook<O>(
  def: Kind<O>,
  hook: HookName,
  body: unknown,
  now: Date,
  options: O,
): RunResult {
  if (hook === "customize") {
    if (!def.hasCustomize) throw invalidRequest(`the ${def.name} controller has no customize hook`);
    const parsed = CustomizeRequestSchema.safeParse(body);
    if (!parsed.success) throw invalidRequest(`not a customize request: ${formatIssues(parsed.error)}`);
    checkParentType(def, parsed.data.parent);
    const summary = summarize(parsed.data.parent);
    let response: CustomizeResponse;
    try {
      response = def.customize(parsed.data, options);
    } catch (err) {
      throw internalError(`customize hook failed: ${(err as Error).message}`);
    }
    const checked = CustomizeResponseSchema.safeParse(response);
    if (!checked.success) throw internalError(`customize hook built an invalid response: ${formatIssues(checked.error)}`);
    return { response: checked.data, decisions: [], summary };
  }

  const parsed = parseSyncRequest(body);
  if (!parsed.success) throw invalidRequest(`not a Metacontroller ${hook} request: ${formatIssues(parsed.error)}`);
  const request = parsed.data;
  checkParentType(def, request.parent);
  checkObservedNesting(request.children, "children");
  checkObservedNesting(request.related, "related");
  // A finalize route always finalizes; a sync route honours the flag (Metacontroller may point
  // both hooks at one URL). Answering `finalized` from a plain sync would make Metacontroller
  // remove and re-add its finalizer on every call.
  const finalizing = hook === "finalize" ? true : request.finalizing;
  const summary = summarize(request.parent, finalizing);
  let result: HookResult;
  try {
    result = finalizing
      ? def.finalize({ ...request, finalizing: true }, now, options)
      : def.sync(request, now, options);
  } catch (err) {
    throw internalError(`${hook} hook failed: ${(err as Error).message}`);
  }
  const checked = checkSyncResponse(result.response);
  if (!checked.success) throw internalError(`${hook} hook built an invalid response: ${formatIssues(checked.error)}`);
  if (!finalizing && checked.data.finalized !== undefined) {
    throw internalError(`${hook} hook set "finalized" outside finalization`);
  }
  const run: RunResult = { response: checked.data, decisions: result.decisions, summary };
  if (result.invalidReason !== undefined && !finalizing) run.invalidReason = result.invalidReason;
  return run;
}

/**
 * Observed objects come from the API server, whose built-in kinds nest about 20 levels; one nested
 * past {@link MAX_NESTING_DEPTH} cannot be a real child, and re-emitting it (every observed child is
 * kept unless decided otherwise) would overflow the stack when the answer is serialized. The
 * parent is not checked here: a parent nested too deep is the kind's to report, with a `False`
 * condition and every child kept.
 * @throws HookError 422 naming the object
 */
function checkObservedNesting(map: ObjectMap, field: string): void {
  // for…in with own-key checks: Object.entries' order without its arrays (every child, every call).
  for (const group in map) {
    if (!Object.hasOwn(map, group)) continue;
    const objects = map[group];
    if (!objects) continue;
    for (const key in objects) {
      if (!Object.hasOwn(objects, key)) continue;
      const path = findTooDeep(objects[key]);
      if (path) {
        throw invalidRequest(`${field}.${group}.${key}: nested deeper than ${MAX_NESTING_DEPTH} levels of objects and arrays (at ${formatPath(path)}); no API object nests this deep`);
      }
    }
  }
}

/** The summary of a request's parent, with `finalizing` last when given (sync and finalize calls). */
function summarize(parent: SyncRequest["parent"], finalizing?: boolean): RequestSummary {
  const ns = parent.metadata.namespace;
  const summary: RequestSummary = { parent: ns ? `${ns}/${parent.metadata.name}` : parent.metadata.name };
  if (parent.metadata.uid !== undefined) summary.uid = parent.metadata.uid;
  if (parent.metadata.generation !== undefined) summary.generation = parent.metadata.generation;
  // Added here rather than by spreading the summary into a new literal: see copyOwn (kube/copy-own.ts).
  if (finalizing !== undefined) summary.finalizing = finalizing;
  return summary;
}

/** Formats decisions as one short log string, e.g. `create hello-29000000; prune hello-28999990`. */
export function formatDecisions(decisions: HookResult["decisions"]): string {
  if (decisions.length === 0) return "no change";
  return decisions
    .map((d) => [d.action, d.object, d.reason ? `(${d.reason})` : undefined].filter(Boolean).join(" "))
    .join("; ");
}
