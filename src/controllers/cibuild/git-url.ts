/**
 * Repository identity and ref matching shared by the sync hook and the push receiver: a push
 * delivery names its repository in several URL forms (https clone URL, ssh URL, scp-like
 * `git@host:path`), and the CIBuild's `source.git.url` may use any of them.
 *
 * @packageDocumentation
 */

/**
 * The identity of a git repository URL: `host[:port]/path`, host lowercased, no scheme, no user,
 * no trailing `/` or `.git`. The path keeps its case (GitLab and Gitea paths are case-sensitive on
 * some installations; GitHub's are not, but we never guess).
 *
 * - `https://GitHub.com/Org/Repo.git` → `github.com/Org/Repo`
 * - `ssh://git@github.com/Org/Repo` → `github.com/Org/Repo`
 * - `git@github.com:Org/Repo.git` → `github.com/Org/Repo`
 * - `ssh://git@host:2222/x/y.git` → `host:2222/x/y` (the port stays: another port is another server)
 *
 * Default ports (`:443` for https, `:22` for ssh) are dropped, so `https://h:443/x` equals `https://h/x`.
 *
 * @param url - any string
 * @returns the identity, or undefined when the text is not an https, http, ssh, git or scp-like URL
 */
export function normalizeRepoUrl(url: string): string | undefined {
  const text = url.trim();
  if (text === "" || /\s/.test(text)) return undefined;
  let host: string;
  let path: string;
  const authority = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)([^?#]*)/.exec(text);
  if (authority) {
    const scheme = authority[1]!.toLowerCase();
    if (!["https", "http", "ssh", "git"].includes(scheme)) return undefined;
    let hostPort = authority[2]!;
    const at = hostPort.lastIndexOf("@");
    if (at >= 0) hostPort = hostPort.slice(at + 1);
    const defaultPort = scheme === "https" ? "443" : scheme === "http" ? "80" : scheme === "ssh" ? "22" : "9418";
    const port = /:(\d+)$/.exec(hostPort);
    if (port && port[1] === defaultPort) hostPort = hostPort.slice(0, -port[0].length);
    host = hostPort;
    path = authority[3]!;
  } else {
    const scp = /^(?:[^@/]+@)?([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(.+)$/.exec(text);
    if (!scp) return undefined;
    host = scp[1]!;
    path = scp[2]!;
  }
  path = path.replace(/^\/+/, "").replace(/\/+$/, "").replace(/\.git$/i, "").replace(/\/+$/, "");
  if (!host || !path) return undefined;
  return `${host.toLowerCase()}/${path}`;
}

/** The revision a CIBuild tracks, as status reports it: `HEAD` for the remote's default branch. */
export function trackedRevision(revision: string): string {
  return revision === "" ? "HEAD" : revision;
}

/**
 * Whether a pushed ref (`refs/heads/main`, `refs/tags/v1`) is the one a CIBuild tracks.
 *
 * @param revision - `source.git.revision` as normalized (`""`: the default branch)
 * @param ref - the full ref of the push
 * @param isDefaultBranch - the push went to the repository's default branch (from the payload)
 */
export function refMatchesRevision(revision: string, ref: string, isDefaultBranch: boolean): boolean {
  if (revision === "" || revision === "HEAD") return isDefaultBranch && ref.startsWith("refs/heads/");
  if (revision.startsWith("refs/")) return ref === revision;
  return ref === `refs/heads/${revision}` || ref === `refs/tags/${revision}`;
}
