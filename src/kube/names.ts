/**
 * Names and label values: DNS-1123 rules and deterministic shortening.
 *
 * @packageDocumentation
 */
import { createHash } from "node:crypto";

/** A DNS-1123 label: at most 63 characters of `[a-z0-9-]`, starting and ending alphanumeric. */
export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value);
}

/** A DNS-1123 subdomain: at most 253 characters of dot-separated labels. */
export function isDns1123Subdomain(value: string): boolean {
  return value.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(value);
}

/** A label value: empty, or at most 63 characters of `[A-Za-z0-9_.-]` starting and ending alphanumeric. */
export function isLabelValue(value: string): boolean {
  return value === "" || (value.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(value));
}

/** Lowercase hex SHA-256 of a UTF-8 string. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/**
 * A deterministic DNS-1123 label derived from `s`, at most `max` characters
 * (docs/cibuild.md, "Build hash and names"):
 * 1. lowercase and replace every character outside `[a-z0-9-]` with `-`;
 * 2. if nothing was replaced and that fits in `max`, trim leading and trailing `-` and return it;
 * 3. else the first `max - 9` characters with trailing `-` trimmed, `-`, and the first 8 hex
 *    characters of SHA-256 of the original `s`.
 *
 * Why step 2 requires that nothing was replaced: returning the cleaned text whenever it fits would
 * turn the legal names `my.app` and `my-app` both into `my-app`, and two CIBuilds would fight over
 * one Job, Deployment and Service. A replaced character always takes the hashed form (`my.app` → `my-app-<8 hex>`). Names of
 * only `[a-z0-9-]` (every seed sample) are unchanged.
 *
 * @param s - any string (a parent name, `"deploy-" + name`, …)
 * @param max - maximum length. @default 63
 */
export function boundedName(s: string, max = 63): string {
  const cleaned = s.toLowerCase().replace(/[^a-z0-9-]/g, "-");
  if (cleaned === s && cleaned.length <= max) return cleaned.replace(/^-+|-+$/g, "");
  return `${cleaned.slice(0, max - 9).replace(/-+$/g, "")}-${sha256Hex(s).slice(0, 8)}`;
}

/**
 * JSON with object keys sorted at every depth and no whitespace, so equal specs hash equal
 * whatever their key order; arrays keep their order, scalars serialize as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  // Appended to one string rather than mapped and joined: V8 builds the pieces into a rope and
  // flattens it once, and no list per object or array is allocated (the emulator writes this for
  // every child it creates).
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ",";
      const item: unknown = value[i];
      text += item === undefined ? "null" : canonicalJson(item);
    }
    return text + "]";
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let text = "{";
  for (const key of keys) {
    const member = object[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ",";
    text += JSON.stringify(key) + ":" + canonicalJson(member);
  }
  return text + "}";
}
