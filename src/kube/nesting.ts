/**
 * The one bound on nesting in user data. Every recursive step the hooks take over an object a user
 * controls (structured clones, the canonical JSON of the CIBuild hash, the admission defaulting
 * patch, JSON serialization of the answer) recurses once per level, and V8 runs out of stack a few
 * thousand levels down ("Maximum call stack size exceeded" from `structuredClone` at about 2,000).
 * So each object is measured once, without recursion, before anything else looks at it.
 *
 * @packageDocumentation
 */
import type { SpecProblem } from "../controllers/types.ts";

/**
 * Deepest nesting of objects and arrays accepted in one Kubernetes object, counted from the
 * object itself (`{"spec": {}}` has depth 2). Real objects stay near 20 (a Pod template inside a
 * Job template inside a CronJob, and `managedFields` mirroring it); the API server accepts up to
 * 10,000, far more than a JavaScript stack can walk. 100 leaves room for any real object and keeps
 * every recursive step far from the stack limit.
 */
export const MAX_NESTING_DEPTH = 100;

/** Condition and admission reason of a parent nested deeper than {@link MAX_NESTING_DEPTH}. */
export const REASON_NESTING_TOO_DEEP = "NestingTooDeep";

/** Path segments shown in messages (the full path can be a hundred levels of one key). */
const SHOWN_SEGMENTS = 6;
/** Characters of one key shown in messages (keys are user data of any length). */
const SHOWN_KEY_CHARS = 40;

/**
 * Where `value` first nests deeper than `limit` objects and arrays (depth-first, keys in their
 * own order, so the same object always names the same place).
 *
 * Both walks below recurse, but never more than `limit + 1` calls deep: they stop descending at
 * the first container past the limit, so the input's own depth (50,000 levels in a test) cannot
 * exhaust the stack. Recursion with a depth counter allocates nothing per container, where an
 * explicit stack of frames allocated one object per container.
 *
 * Every observed child of every hook call is measured, and nearly all fit, so the common answer
 * comes from {@link nestsDeeperThan}, which only says yes or no; the path is looked for only
 * when it says yes.
 *
 * @param value - any JSON value
 * @param limit - the deepest nesting allowed; a container at depth `limit + 1` is too deep
 * @returns the path (keys and indexes from `value`) of the first container that is too deep, or
 *   `undefined` when the value fits
 */
export function findTooDeep(value: unknown, limit: number = MAX_NESTING_DEPTH): Array<string | number> | undefined {
  if (value === null || typeof value !== "object" || !nestsDeeperThan(value, 1, limit)) return undefined;
  return tooDeepBelow(value, 1, limit)?.reverse();
}

/**
 * Whether a container below `node` (at `depth`) is deeper than `limit`. A plain `for…in`, three
 * times faster than one with an own-key check per key: it may also visit inherited enumerable
 * properties (only a polluted `Object.prototype` has any), so it may say yes where
 * {@link tooDeepBelow} finds nothing, never no where it finds something.
 */
function nestsDeeperThan(node: object, depth: number, limit: number): boolean {
  if (depth > limit) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (child !== null && typeof child === "object" && nestsDeeperThan(child, depth + 1, limit)) return true;
    }
    return false;
  }
  for (const key in node) {
    const child: unknown = (node as Record<string, unknown>)[key];
    if (child !== null && typeof child === "object" && nestsDeeperThan(child, depth + 1, limit)) return true;
  }
  return false;
}

/** The reversed path below `node` (at `depth`) to its first container deeper than `limit`. */
function tooDeepBelow(node: object, depth: number, limit: number): Array<string | number> | undefined {
  if (depth > limit) return [];
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (child === null || typeof child !== "object") continue;
      const path = tooDeepBelow(child, depth + 1, limit);
      if (path) {
        path.push(i);
        return path;
      }
    }
    return undefined;
  }
  // for…in with an own-key check visits Object.keys' keys, in its order, without allocating the
  // list (a parsed `__proto__` key is an own property; an inherited enumerable one is skipped).
  for (const key in node) {
    if (!Object.hasOwn(node, key)) continue;
    const child: unknown = (node as Record<string, unknown>)[key];
    if (child === null || typeof child !== "object") continue;
    const path = tooDeepBelow(child, depth + 1, limit);
    if (path) {
      path.push(key);
      return path;
    }
  }
  return undefined;
}

/**
 * A path for messages: `spec.jobTemplate.spec.a.a.a…`, the first segments only, each key cut to
 * a readable length (the path is user data; the message lands in status and events).
 */
export function formatPath(path: ReadonlyArray<string | number>): string {
  const shown = path.slice(0, SHOWN_SEGMENTS).map((k) => (typeof k === "number" ? `[${k}]` : k.length > SHOWN_KEY_CHARS ? `${k.slice(0, SHOWN_KEY_CHARS)}…` : k));
  const text = shown.reduce<string>((acc, k) => (k.startsWith("[") ? `${acc}${k}` : acc ? `${acc}.${k}` : k), "");
  return path.length > SHOWN_SEGMENTS ? `${text}…` : text;
}

/**
 * The spec problem of an object nested too deep, for the sync hooks' condition and admission's
 * denial alike, or `undefined` when it fits.
 *
 * @param object - a parent object (metadata, spec and status are all measured)
 * @returns `{reason: NestingTooDeep, field, message}` naming the first place that is too deep
 */
export function nestingProblem(object: unknown): SpecProblem | undefined {
  const path = findTooDeep(object);
  if (!path) return undefined;
  // `field` is the top-level field (`spec`, `metadata`, `status`), a stable JSON path.
  const field = typeof path[0] === "string" ? path[0] : "(root)";
  return {
    reason: REASON_NESTING_TOO_DEEP,
    field,
    message: `nested deeper than ${MAX_NESTING_DEPTH} levels of objects and arrays (at ${formatPath(path)}); the hook reads nothing nested this deep`,
  };
}
