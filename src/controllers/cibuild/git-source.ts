/**
 * Git sources of a CIBuild: which git URLs and revisions are accepted, and how git-sync reaches
 * the repository. A URL's text is never repeated in a message: it may carry a credential.
 *
 * @packageDocumentation
 */
import { SpecReason } from "./reasons.ts";

/** How git-sync reaches the repository. */
export type GitTransport = "ssh" | "https";

const MAX_URL = 2048;
/** Whitespace or an ASCII control character. */
export const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;
/** git's URL scheme characters (url.c is_urlschemechar, first one alphanumeric) then `::`. */
const REMOTE_HELPER = /^(?:[A-Za-z0-9][A-Za-z0-9+.-]*)?::/;

/**
 * Classifies a git URL. Credentials are looked for first, in every form (`https://user:pw@`,
 * `https://token@`, `ssh://user:pw@`, scp-like `user:pw@host:path`), so a URL carrying one always
 * gets `CredentialsInURL` and its text is never repeated.
 */
export function classifyGitUrl(url: string): { transport: GitTransport } | { reason: string; message: string } {
  const invalid = (why: string) => ({ reason: SpecReason.InvalidGitURL, message: `the git URL ${why}` });
  const authority = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)/.exec(url);
  if (authority) {
    const scheme = (authority[1] ?? "").toLowerCase();
    const host = authority[2] ?? "";
    const at = host.lastIndexOf("@");
    if (at >= 0) {
      const userinfo = host.slice(0, at);
      if (userinfo.includes(":") || scheme === "https" || scheme === "http") {
        return {
          reason: SpecReason.CredentialsInURL,
          message: "the git URL carries credentials; put them in the Secret named by source.git.cloneSecret (keys username and password) and remove them from the URL",
        };
      }
    }
  } else {
    const firstAt = url.indexOf("@");
    const firstColon = url.indexOf(":");
    if (firstAt > 0 && firstColon >= 0 && firstColon < firstAt) {
      return {
        reason: SpecReason.CredentialsInURL,
        message: "the git URL carries credentials; use an SSH deploy key in the Secret named by source.git.cloneSecret",
      };
    }
  }
  if (url.length > MAX_URL) return invalid(`is longer than ${MAX_URL} characters`);
  if (WHITESPACE_OR_CONTROL.test(url)) return invalid("contains whitespace or control characters");
  if (url.startsWith("-")) return invalid("must not start with -");
  // git hands `<transport>::<address>` to the remote helper git-remote-<transport> (git
  // transport.c transport_get: any run of URL scheme characters followed by `::`, even an empty
  // one); `ext::` runs an arbitrary command and `fd::` reads file descriptors. The scp-like form
  // below would otherwise take `ext` for a host.
  if (REMOTE_HELPER.test(url)) return invalid("uses remote helper syntax (<transport>::…); use https://, ssh:// or user@host:path");
  if (authority) {
    const scheme = (authority[1] ?? "").toLowerCase();
    if (scheme !== "https" && scheme !== "ssh") return invalid("must use https://, ssh:// or the scp-like form user@host:path");
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return invalid("does not parse as a URL");
    }
    if (!parsed.hostname) return invalid("has no host");
    // ssh would read a host or user starting with `-` as an option (-oProxyCommand=…,
    // CVE-2017-1000117); git refuses them too, but we never hand one over.
    if (parsed.hostname.startsWith("-") || decodeURIComponent(parsed.username).startsWith("-")) {
      return invalid("has a host or user starting with -");
    }
    if (parsed.search || parsed.hash) return invalid("must not have a query or a fragment");
    if (parsed.pathname === "" || parsed.pathname === "/") return invalid("has no repository path");
    return { transport: scheme === "https" ? "https" : "ssh" };
  }
  // scp-like: [user@]host:path, where host has no slash (git's rule to tell it from a local path).
  const scp = /^(?:([A-Za-z0-9._~-]+)@)?([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(.+)$/.exec(url);
  if (!scp) return invalid("must use https://, ssh:// or the scp-like form user@host:path");
  if (scp[1]?.startsWith("-") || scp[2]?.startsWith("-")) return invalid("has a host or user starting with -");
  return { transport: "ssh" };
}

/** Problems of a git revision (branch, tag or full SHA), following `git check-ref-format`. */
export function revisionProblem(rev: string): string | undefined {
  if (rev.length > 255) return "is longer than 255 characters";
  if (WHITESPACE_OR_CONTROL.test(rev)) return "contains whitespace or control characters";
  if (rev.startsWith("-")) return "must not start with -";
  if (rev.includes("..")) return "must not contain ..";
  if (/[~^:?*[\\]/.test(rev) || rev.includes("@{")) return "contains a character git does not allow in refs (~ ^ : ? * [ \\ @{)";
  if (rev.endsWith("/") || rev.endsWith(".") || rev.endsWith(".lock") || rev.startsWith("/") || rev.includes("//")) {
    return "is not a valid git ref name";
  }
  return undefined;
}
