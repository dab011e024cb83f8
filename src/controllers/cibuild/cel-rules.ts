/**
 * CEL `x-kubernetes-validations` for the CIBuild spec: the hook's validation rules that CEL
 * can express (legacy/structured conflicts, relative paths without `..`, no credentials in the
 * repo URL, no digest in the image). The hook keeps checking everything; every rule here must be
 * no stricter than the hook (test/crd/cel-rules.test.ts).
 *
 * Deliberately absent: "repo URL / image required" (MissingRepoURL, MissingImageDestination).
 * The seed's scaffold sample (`spec: {foo: bar}`) must still apply on a cluster without the
 * webhook and show `phase: Invalid`; the opt-in validating webhook rejects it up front.
 *
 * `self` is `spec`. An empty string counts as unset, as in the hook's legacy/structured merge.
 * Rules avoid list iteration and use only standard CEL functions, so their estimated cost stays
 * far below the apiserver's per-rule limit. Messages never echo values (a URL may hold a secret).
 *
 * @packageDocumentation
 */
import type { CelRule } from "../../crd/build-crd.ts";

/** `has()` chain plus non-empty check for an optional nested string, e.g. `self.source.git.url`. */
function present(path: string): string {
  const parts = path.split(".");
  const checks: string[] = [];
  for (let i = 2; i <= parts.length; i++) checks.push(`has(${parts.slice(0, i).join(".")})`);
  return `(${checks.join(" && ")} && ${path} != '')`;
}

/** The legacy field and its structured twin may not both be set to different values. */
function conflict(legacy: string, structured: string): CelRule {
  const l = `self.${legacy}`;
  const s = `self.${structured}`;
  return {
    rule: `!(${present(l)} && ${present(s)}) || ${l} == ${s}`,
    message: `spec.${legacy} and spec.${structured} are both set and differ (ConflictingFields); set only one`,
    fieldPath: `.${structured}`,
  };
}

/** A relative path with no `..` segment and no leading `/` (no NUL or newline either). */
function relativePath(field: string, reason: string, fieldPath = `.${field}`): CelRule {
  const f = `self.${field}`;
  return {
    rule: `!${present(f)} || (!${f}.startsWith('/') && !${f}.matches('(^|/)[.][.](/|$)') && !${f}.matches('[\\\\x00\\\\n\\\\r]'))`,
    message: `spec.${field} must be a relative path without '..' segments (${reason})`,
    fieldPath,
  };
}

/** The CIBuild spec rules, in the hook's check order (docs/cibuild.md, "Validation order"). */
export const ciBuildCelRules: CelRule[] = [
  conflict("SCMRepoURL", "source.git.url"),
  conflict("SCMBranch", "source.git.revision"),
  conflict("SCMSecret", "source.git.cloneSecret"),
  conflict("subContext", "source.contextDir"),
  conflict("imageDestination", "output.image"),
  {
    // scheme://user:password@host… ; the message must not echo the URL.
    rule: `!${present("self.source.git.url")} || !self.source.git.url.matches('^[A-Za-z][A-Za-z0-9+.-]*://[^/@]*:[^/@]*@')`,
    message: "spec.source.git.url must not contain credentials; use spec.source.git.cloneSecret (CredentialsInURL)",
    fieldPath: ".source.git.url",
  },
  {
    rule: `!${present("self.SCMRepoURL")} || !self.SCMRepoURL.matches('^[A-Za-z][A-Za-z0-9+.-]*://[^/@]*:[^/@]*@')`,
    message: "spec.SCMRepoURL must not contain credentials; use spec.source.git.cloneSecret (CredentialsInURL)",
    fieldPath: ".SCMRepoURL",
  },
  {
    rule: `!${present("self.output.image")} || !self.output.image.contains('@')`,
    message: "spec.output.image must be repository[:tag] without a digest (InvalidImageReference)",
    fieldPath: ".output.image",
  },
  {
    rule: `!${present("self.imageDestination")} || !self.imageDestination.contains('@')`,
    message: "spec.imageDestination must be repository[:tag] without a digest (InvalidImageReference)",
    // The hook reports the legacy spelling under its structured twin.
    fieldPath: ".output.image",
  },
  relativePath("source.contextDir", "InvalidContextDir"),
  relativePath("subContext", "InvalidContextDir", ".source.contextDir"),
  relativePath("build.dockerfile", "InvalidDockerfilePath"),
];
