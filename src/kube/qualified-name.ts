/**
 * Kubernetes' rule for label and annotation keys (apimachinery `validation.IsQualifiedName`).
 *
 * @packageDocumentation
 */

/** The name part: at most 63 characters, alphanumeric at both ends, `-`, `_`, `.` inside. */
const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** The optional prefix: a DNS-1123 subdomain of at most 253 characters. */
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Checks a label or annotation key: `[prefix/]name`, the prefix a DNS-1123 subdomain (≤ 253
 * characters), the name ≤ 63 characters of `[A-Za-z0-9_.-]` starting and ending alphanumeric.
 *
 * @param key - the key as written
 * @returns why the API server would reject it, or undefined when it is valid
 */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2) return "has more than one '/'";
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]!];
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) {
    return "has a prefix that is not a DNS-1123 subdomain of at most 253 characters";
  }
  if (name!.length === 0 || name!.length > 63 || !NAME.test(name!)) {
    return "must be at most 63 characters of letters, digits, '-', '_' and '.', starting and ending with a letter or digit (after an optional DNS-subdomain prefix and '/')";
  }
  return undefined;
}
