/**
 * Container image references: `[registry[:port]/]path[:tag]` as the distribution/reference
 * grammar defines them (facts from github.com/distribution/reference `regexp.go`; written anew).
 *
 * @packageDocumentation
 */

/** A parsed `repository[:tag]` reference (no digest). */
export interface ImageReference {
  /** Everything before the tag: `kind-registry:5000/ace-test`. */
  repository: string;
  /** The tag, when one was given. */
  tag?: string;
}

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN_COMPONENT = /^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])$/;
const PORT = /^[0-9]+$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const MAX_NAME = 255;
/** Every character any part of a reference (name, tag, digest) may use. */
const REFERENCE_CHARACTERS = /^[A-Za-z0-9._\-/:@+=]+$/;
/**
 * What follows `@` in a digest: `algorithm:encoded` (the grammar's algorithm; the encoded part
 * loosely, so a short or mistyped `@sha256:abc` still reads as the digest it was meant to be).
 */
const DIGEST_SHAPE = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[A-Za-z0-9=_-]+$/;

/** True when `value` is a valid image tag (`[\w][\w.-]{0,127}`). */
export function isValidTag(value: string): boolean {
  return TAG.test(value);
}

function isDomain(value: string): boolean {
  const [host, port, ...rest] = value.split(":");
  if (rest.length || host === undefined || host === "") return false;
  if (port !== undefined && !PORT.test(port)) return false;
  return host.split(".").every((c) => DOMAIN_COMPONENT.test(c));
}

/**
 * Parses `repository[:tag]`. The registry port is not a tag (`kind-registry:5000/app` has no tag).
 *
 * @returns the reference, or a short English problem (never echoing the input) when invalid:
 *   characters no reference has (checked first), then digests (`@sha256:…`, rejected because the
 *   hook pins by digest itself) apart from any other `@`, then tag, length, registry and path
 */
export function parseImageReference(value: string): ImageReference | { problem: string } {
  if (value.length === 0) return { problem: "is empty" };
  // Characters first: `bad image@@` is malformed, and calling its `@` a digest would send the
  // user after the wrong problem.
  if (!REFERENCE_CHARACTERS.test(value)) {
    return { problem: "contains characters an image reference cannot have (allowed: letters, digits, '.', '_', '-', '/' and ':')" };
  }
  const at = value.indexOf("@");
  if (at >= 0) {
    if (DIGEST_SHAPE.test(value.slice(at + 1))) {
      return { problem: "must not contain a digest (@…); the hook pins the deployed image by digest itself" };
    }
    return { problem: "has an '@' that does not start a digest (only `@<algorithm>:<hex>` may follow one, and no digest is accepted here)" };
  }
  const lastSlash = value.lastIndexOf("/");
  const colon = value.indexOf(":", lastSlash + 1);
  const name = colon >= 0 ? value.slice(0, colon) : value;
  const tag = colon >= 0 ? value.slice(colon + 1) : undefined;
  if (tag !== undefined && !TAG.test(tag)) return { problem: "has an invalid tag (allowed: [A-Za-z0-9_][A-Za-z0-9_.-]{0,127})" };
  if (name.length > MAX_NAME) return { problem: `has a repository name over ${MAX_NAME} characters` };
  const parts = name.split("/");
  const first = parts[0] ?? "";
  // As in the reference grammar: the first component is a registry when it looks like a host
  // (has a dot or a port, or is localhost); otherwise the whole name is a path on the default registry.
  const hasDomain = parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost" || /[A-Z]/.test(first));
  if (hasDomain && !isDomain(first)) return { problem: "has an invalid registry host" };
  const path = hasDomain ? parts.slice(1) : parts;
  if (path.length === 0 || !path.every((c) => PATH_COMPONENT.test(c))) {
    return { problem: "has an invalid repository path (lowercase letters, digits and . _ - separators)" };
  }
  return tag === undefined ? { repository: name } : { repository: name, tag };
}
