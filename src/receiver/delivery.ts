/**
 * What a webhook delivery is: which provider sent it (by its headers), its delivery id, whether
 * it is a push, and — for a push — the repository URLs, the ref, the new commit and whether that
 * ref is the repository's default branch.
 *
 * Payload fields: GitHub and Gitea/Forgejo push events (`ref`, `after`, `deleted`,
 * `repository.{clone_url, ssh_url, git_url, html_url, default_branch}`), GitLab Push Hook and Tag
 * Push Hook (`ref`, `after`, `checkout_sha`, `project.{git_http_url, git_ssh_url, web_url,
 * default_branch}`).
 *
 * @packageDocumentation
 */
import type { IncomingHttpHeaders } from "node:http";

/** The providers the receiver understands. */
export type Provider = "github" | "gitea" | "gitlab";

/** The headers of one delivery, read. */
export interface DeliveryHeaders {
  provider: Provider;
  /** The event name (`push`, `ping`, `Push Hook`, …). */
  event: string;
  /** Unique id of the delivery (replay protection), if sent. */
  deliveryId?: string;
  /** `X-Hub-Signature-256` (or the Gitea/Forgejo hex signature) — HMAC providers. */
  signature?: string;
  /** `X-Gitlab-Token`. */
  token?: string;
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v) || undefined;

/**
 * Reads the provider headers. Gitea and Forgejo also send `X-GitHub-Event`, so they are
 * recognised first.
 * @returns undefined when no known provider header is present
 */
export function readDeliveryHeaders(headers: IncomingHttpHeaders): DeliveryHeaders | undefined {
  const gitea = one(headers["x-forgejo-event"]) ?? one(headers["x-gitea-event"]);
  if (gitea) {
    const out: DeliveryHeaders = { provider: "gitea", event: gitea };
    const id = one(headers["x-forgejo-delivery"]) ?? one(headers["x-gitea-delivery"]);
    const sig = one(headers["x-hub-signature-256"]) ?? one(headers["x-forgejo-signature"]) ?? one(headers["x-gitea-signature"]);
    if (id) out.deliveryId = id;
    if (sig) out.signature = sig;
    return out;
  }
  const github = one(headers["x-github-event"]);
  if (github) {
    const out: DeliveryHeaders = { provider: "github", event: github };
    const id = one(headers["x-github-delivery"]);
    const sig = one(headers["x-hub-signature-256"]);
    if (id) out.deliveryId = id;
    if (sig) out.signature = sig;
    return out;
  }
  const gitlab = one(headers["x-gitlab-event"]);
  if (gitlab) {
    const out: DeliveryHeaders = { provider: "gitlab", event: gitlab };
    const id = one(headers["x-gitlab-event-uuid"]) ?? one(headers["x-gitlab-webhook-uuid"]);
    const token = one(headers["x-gitlab-token"]);
    if (id) out.deliveryId = id;
    if (token) out.token = token;
    return out;
  }
  return undefined;
}

/** Whether the event is a push to a branch or tag (everything else is acknowledged and ignored). */
export function isPushEvent(h: DeliveryHeaders): boolean {
  return h.provider === "gitlab" ? h.event === "Push Hook" || h.event === "Tag Push Hook" : h.event === "push";
}

/** A push, as the receiver uses it. */
export interface Push {
  ref: string;
  /** The commit the ref now points at. */
  sha: string;
  /** Every URL the payload gives for the repository. */
  repositoryUrls: string[];
  /** The ref is the repository's default branch. */
  defaultBranch: boolean;
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * The JSON payload of a delivery body: JSON, or GitHub's `application/x-www-form-urlencoded`
 * form whose `payload` field holds the JSON.
 * @throws SyntaxError when it is neither
 */
export function parsePayload(body: Buffer): unknown {
  const text = body.toString("utf8");
  if (text.startsWith("payload=")) {
    const json = new URLSearchParams(text).get("payload");
    if (json === null) throw new SyntaxError("empty form payload");
    return JSON.parse(json);
  }
  return JSON.parse(text);
}

/**
 * Reads a push payload.
 * @returns the push, or a reason why it changes nothing (`deleted`, `not-a-branch-or-tag`,
 *   `malformed`)
 */
export function readPush(provider: Provider, payload: unknown): Push | { ignored: string } {
  const p = obj(payload);
  const ref = str(p.ref);
  const after = str(p.after);
  if (!ref || !after) return { ignored: "malformed" };
  if (/^0+$/.test(after) || p.deleted === true) return { ignored: "deleted" };
  if (!SHA.test(after)) return { ignored: "malformed" };
  if (!/^refs\/(heads|tags)\/\S+$/.test(ref)) return { ignored: "not-a-branch-or-tag" };
  // For an annotated tag `after` is the tag object; build the commit it points at (GitLab's
  // checkout_sha, GitHub's and Gitea's head_commit.id), as the poll probe resolves it.
  let sha = after;
  if (ref.startsWith("refs/tags/")) {
    const commit = str(p.checkout_sha) ?? str(obj(p.head_commit).id);
    if (commit && SHA.test(commit)) sha = commit;
  }
  const repo = provider === "gitlab" ? { ...obj(p.repository), ...obj(p.project) } : obj(p.repository);
  const keys = provider === "gitlab" ? ["git_http_url", "git_ssh_url", "web_url", "homepage", "url"] : ["clone_url", "ssh_url", "git_url", "html_url"];
  const repositoryUrls = [...new Set(keys.map((k) => str(repo[k])).filter((u): u is string => u !== undefined))];
  if (repositoryUrls.length === 0) return { ignored: "malformed" };
  const defaultBranch = str(repo.default_branch);
  return { ref, sha, repositoryUrls, defaultBranch: defaultBranch !== undefined && ref === `refs/heads/${defaultBranch}` };
}
