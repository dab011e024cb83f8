/**
 * The push receiver's HTTP app: `POST /push/<namespace>` takes GitHub, Gitea/Forgejo and GitLab
 * push webhooks, verifies them against the push secrets of that namespace's CIBuilds, and records
 * the pushed commit on every matching CIBuild as an annotation. The sync hook decides the rest.
 *
 * Order of checks (each failure changes nothing): size (413) → provider headers (400) → not a
 * push: acknowledged, 200, nothing read → delivery id (400) → signature present (401) →
 * signature valid for a push secret of a CIBuild in the namespace (401) → not replayed (409) →
 * payload (400 / 200 ignored) → annotate the CIBuilds whose repository, ref and secret match.
 *
 * A delivery signed with the secret of namespace A only ever touches CIBuilds in A that name that
 * secret: the namespace comes from the URL, the secrets from that namespace, and a CIBuild is
 * annotated only when its own secret verified the delivery.
 *
 * @packageDocumentation
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { Logger } from "pino";
import { HookError } from "../errors.ts";
import { createListenerApp } from "../http/listener.ts";
import { ByteBudget } from "../http/body.ts";
import { isDns1123Label } from "../kube/names.ts";
import type { KubeObject } from "../metacontroller/contract.ts";
import { checkSpec, type NormalizedSpec } from "../controllers/cibuild/validate.ts";
import { ANNOTATION_PUSHED_COMMIT } from "../controllers/cibuild/naming.ts";
import { normalizeRepoUrl, refMatchesRevision } from "../controllers/cibuild/git-url.ts";
import type { PushRecord } from "../controllers/cibuild/triggers.ts";
import { isPushEvent, parsePayload, readDeliveryHeaders, readPush } from "./delivery.ts";
import { DeliveryLog } from "./replay.ts";
import { verifyHmacSha256, verifyToken } from "./signature.ts";
import type { ReceiverKube } from "./kube.ts";
import { receiverOutcomeOf, type HookMetrics } from "../http/metrics.ts";

/** Key of the webhook secret in the Secret named by `spec.triggers.push.secretRef` (as Flux's Receiver). */
export const PUSH_SECRET_KEY = "token";
/** Default largest delivery body: 1 MiB (push payloads list at most 20 commits on GitHub). */
export const DEFAULT_RECEIVER_BODY_LIMIT = 1024 * 1024;
/** Default deliveries verified at once; more answer 429. */
export const DEFAULT_RECEIVER_MAX_IN_FLIGHT = 16;
const MAX_DELIVERY_ID = 128;

/** What {@link createReceiverApp} needs. */
export interface ReceiverAppOptions {
  kube: ReceiverKube;
  logger: Logger;
  /** The receiver's clock (the `seenAt` it records). @default the real clock */
  clock?: () => Date;
  /** @default {@link DEFAULT_RECEIVER_BODY_LIMIT} */
  bodyLimitBytes?: number;
  /** Delivery ids already accepted. @default a new log of 10 000 */
  deliveries?: DeliveryLog;
  /** @default {@link DEFAULT_RECEIVER_MAX_IN_FLIGHT} */
  maxInFlight?: number;
  /** While true every answer carries `Connection: close`. @default never */
  isDraining?: () => boolean;
  /** Where deliveries and patched CIBuilds are counted (the service's admin metrics). @default none */
  metrics?: Pick<HookMetrics, "receiverDeliveries" | "receiverPatched">;
  /** The process's budget of request-body bytes in flight. @default one of its own */
  bodyBudget?: ByteBudget;
}

interface Candidate {
  name: string;
  spec: NormalizedSpec;
  secret: string;
}

function candidatesOf(cibuilds: KubeObject[]): Candidate[] {
  const out: Candidate[] = [];
  for (const cb of cibuilds) {
    const check = checkSpec(cb.spec);
    const secret = check.valid ? check.spec.triggers?.pushSecret : undefined;
    if (check.valid && secret) out.push({ name: cb.metadata.name, spec: check.spec, secret });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The receiver's express app (`/healthz`, `POST /push/:namespace`). */
export function createReceiverApp(options: ReceiverAppOptions): express.Express {
  const clock = options.clock ?? (() => new Date());
  const deliveries = options.deliveries ?? new DeliveryLog();
  const maxInFlight = options.maxInFlight ?? DEFAULT_RECEIVER_MAX_IN_FLIGHT;
  let inFlight = 0;
  const limit = options.bodyLimitBytes ?? DEFAULT_RECEIVER_BODY_LIMIT;
  const rawBody = express.raw({ limit, type: () => true });
  // The signature covers the exact bytes, so the body is read raw (not through the JSON reader);
  // its errors become the same JSON errors as every other listener's.
  const raw: RequestHandler = (req, res, next) =>
    rawBody(req, res, (err?: unknown) => {
      const e = err as { type?: string } | undefined;
      if (e?.type === "entity.too.large") return next(new HookError(413, "too_large", `request body exceeds the limit of ${limit} bytes`));
      if (err) return next(new HookError(400, "bad_request", "the body could not be read"));
      next();
    });
  return createListenerApp({
    logger: options.logger,
    quietPaths: ["/healthz"],
    ...(options.isDraining ? { isDraining: options.isDraining } : {}),
    // Unused by the receiver's routes (they read raw bytes); the factory wants one.
    body: { limitBytes: limit, budget: options.bodyBudget ?? new ByteBudget(limit * maxInFlight) },
    mount: (app) => {
      app.get("/healthz", (_req, res) => {
        res.json({ status: "ok" });
      });
      app.post("/push/:namespace", count, raw, handlePush);
    },
  });

  // Counted when the answer is complete, whichever check produced it (the 413 comes from the body
  // reader, before the handler). The provider is read from the headers only: a bounded label.
  function count(req: Request, res: Response, next: NextFunction): void {
    const metrics = options.metrics;
    if (metrics) {
      res.once("finish", () => {
        const provider = readDeliveryHeaders(req.headers)?.provider ?? "unknown";
        metrics.receiverDeliveries.inc({ provider, outcome: receiverOutcomeOf(res.statusCode, res.locals.ignored === true) });
      });
    }
    next();
  }

  async function handlePush(req: Request, res: Response, next: NextFunction): Promise<void> {
    const headers = readDeliveryHeaders(req.headers);
    if (!headers) return next(new HookError(400, "unknown_provider", "not a GitHub, Gitea/Forgejo or GitLab webhook delivery (no X-GitHub-Event, X-Gitea-Event, X-Forgejo-Event or X-Gitlab-Event header)"));
    if (!isPushEvent(headers)) {
      // Acknowledged so the provider marks it delivered; nothing is read or changed.
      res.locals.ignored = true;
      res.status(200).json({ result: "ignored", reason: "not a push event" });
      return;
    }
    const deliveryId = headers.deliveryId;
    if (!deliveryId || deliveryId.length > MAX_DELIVERY_ID) return next(new HookError(400, "missing_delivery_id", "the delivery has no (or an over-long) delivery id header, so a replay could not be detected"));
    const signed = headers.provider === "gitlab" ? headers.token : headers.signature;
    if (!signed) return next(new HookError(401, "unsigned", headers.provider === "gitlab" ? "the delivery has no X-Gitlab-Token" : "the delivery has no X-Hub-Signature-256"));
    const namespace = String(req.params.namespace ?? "");
    if (!isDns1123Label(namespace)) return next(new HookError(404, "not_found", "the path must be /push/<namespace>"));
    if (inFlight >= maxInFlight) {
      res.setHeader("Retry-After", "1");
      return next(new HookError(429, "overloaded", `more than ${maxInFlight} deliveries are being verified; retry`));
    }
    inFlight++;
    try {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const candidates = candidatesOf(await options.kube.listCIBuilds(namespace));
      const verified = new Set<string>();
      for (const secretName of [...new Set(candidates.map((c) => c.secret))]) {
        const secret = await options.kube.readSecretKey(namespace, secretName, PUSH_SECRET_KEY);
        if (!secret || secret.length === 0) continue;
        const ok = headers.provider === "gitlab" ? verifyToken(secret, headers.token) : verifyHmacSha256(secret, body, headers.signature);
        if (ok) verified.add(secretName);
      }
      if (verified.size === 0) {
        throw new HookError(401, "bad_signature", `the delivery is not signed with the push secret (key ${PUSH_SECRET_KEY}) of any CIBuild with spec.triggers.push in namespace ${namespace}`);
      }
      const replayKey = `${headers.provider}/${deliveryId}`;
      if (deliveries.has(replayKey)) throw new HookError(409, "replayed", "this delivery id was already accepted; a replay changes nothing");
      deliveries.add(replayKey);
      let payload: unknown;
      try {
        payload = parsePayload(body);
      } catch {
        throw new HookError(400, "malformed_json", "the delivery body is neither JSON nor a form with a JSON payload field");
      }
      const push = readPush(headers.provider, payload);
      if ("ignored" in push) {
        res.locals.ignored = true;
        res.status(200).json({ result: "ignored", reason: push.ignored });
        return;
      }
      const repositories = new Set(push.repositoryUrls.map(normalizeRepoUrl).filter((u): u is string => u !== undefined));
      const seenAt = clock().toISOString().replace(/\.\d{3}Z$/, "Z");
      const triggered: string[] = [];
      for (const c of candidates) {
        const repository = normalizeRepoUrl(c.spec.git.url);
        if (!verified.has(c.secret) || !repository || !repositories.has(repository)) continue;
        if (!refMatchesRevision(c.spec.git.revision, push.ref, push.defaultBranch)) continue;
        const record: PushRecord = { sha: push.sha, ref: push.ref, repository, defaultBranch: push.defaultBranch, seenAt, provider: headers.provider, delivery: deliveryId };
        await options.kube.annotateCIBuild(namespace, c.name, ANNOTATION_PUSHED_COMMIT, JSON.stringify(record));
        triggered.push(c.name);
        options.metrics?.receiverPatched.inc({ provider: headers.provider });
      }
      options.logger.info({ provider: headers.provider, namespace, delivery: deliveryId, ref: push.ref, sha: push.sha, triggered }, "push received");
      res.status(triggered.length ? 202 : 200).json(triggered.length ? { result: "triggered", cibuilds: triggered } : { result: "no-match", reason: "no CIBuild with this secret tracks this repository and ref" });
    } catch (err) {
      next(err instanceof HookError ? err : new HookError(502, "api_error", `the Kubernetes API failed: ${(err as Error).message}`));
    } finally {
      inFlight--;
    }
  }
}
