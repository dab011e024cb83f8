/**
 * The JSONPatch (RFC 6902) a defaulting webhook returns: `add` operations only, for values the
 * defaulted document has and the original lacks. A value the user set is never replaced or
 * removed, whatever the defaulted document says.
 *
 * @packageDocumentation
 */

/** One RFC 6902 `add` operation. */
export interface AddOperation {
  op: "add";
  /** JSON Pointer (RFC 6901), e.g. `/spec/concurrencyPolicy`. */
  path: string;
  value: unknown;
}

/** Escapes one JSON Pointer reference token (RFC 6901 §3: `~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The `add` operations that turn `original` into `defaulted` where `defaulted` only adds keys.
 *
 * Walks both documents together: a key missing (or `undefined`) in `original` becomes one `add`
 * of the whole defaulted value; objects on both sides are compared key by key; arrays of equal
 * length are compared element by element (defaults inside list items, e.g. `buildArgs[0]`).
 * Anything else that differs — a changed scalar, a removed key, arrays of different lengths — is
 * ignored: that is a rewrite, not a default, and a mutating webhook must not do it. Keys come out
 * in the defaulted document's order, so the patch is deterministic.
 *
 * @param original - the document as the user sent it
 * @param defaulted - the same document with defaults filled in
 * @param pointer - JSON Pointer of both documents inside the object, e.g. `/spec`
 * @returns the operations, in document order; empty when nothing is missing
 */
export function missingDefaultsPatch(original: unknown, defaulted: unknown, pointer: string): AddOperation[] {
  const ops: AddOperation[] = [];
  if (isPlainObject(original) && isPlainObject(defaulted)) {
    for (const [key, value] of Object.entries(defaulted)) {
      if (value === undefined) continue;
      const path = `${pointer}/${escapePointerToken(key)}`;
      if (!Object.hasOwn(original, key) || original[key] === undefined) ops.push({ op: "add", path, value });
      else ops.push(...missingDefaultsPatch(original[key], value, path));
    }
  } else if (Array.isArray(original) && Array.isArray(defaulted) && original.length === defaulted.length) {
    defaulted.forEach((item, i) => ops.push(...missingDefaultsPatch(original[i], item, `${pointer}/${i}`)));
  }
  return ops;
}

/**
 * Applies `add` operations to a deep copy of `doc` (for tests and `explain`). Follows RFC 6902
 * for the subset we emit: the parent must exist; an array index replaces nothing, it inserts.
 * @throws Error when a parent of a path does not exist
 */
export function applyAddOperations<T>(doc: T, ops: AddOperation[]): T {
  const copy = structuredClone(doc) as unknown;
  for (const op of ops) {
    const tokens = op.path
      .split("/")
      .slice(1)
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = tokens.pop();
    if (last === undefined) throw new Error(`cannot add at the document root: ${op.path}`);
    let target = copy as Record<string, unknown> | unknown[];
    for (const token of tokens) {
      const next = (target as Record<string, unknown>)[token];
      if (typeof next !== "object" || next === null) throw new Error(`path ${op.path}: ${token} does not exist`);
      target = next as Record<string, unknown> | unknown[];
    }
    if (Array.isArray(target)) target.splice(last === "-" ? target.length : Number(last), 0, structuredClone(op.value));
    else target[last] = structuredClone(op.value);
  }
  return copy as T;
}
