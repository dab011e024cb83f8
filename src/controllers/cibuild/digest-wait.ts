/**
 * Waiting for a succeeded build's digest. Metacontroller keeps one informer cache per resource,
 * and its Pod cache can lag behind its Job cache: the sync hook then sees a build Job that
 * succeeded but not yet the finished Pod that reports the pushed digest. Deploying at once would
 * pin the Deployment to the mutable `cibuild-<hash>` tag and roll it out a second time, to the
 * digest, a moment later. So a succeeded build whose finished Pod is not observed waits for it,
 * for a bounded time after the Job's completion; after that the tag is deployed (a build whose
 * Pods are gone — TTL, a human — still deploys).
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import { parseTime } from "../../kube/time.ts";
import { podsOfJob, type ObservedBuildJob } from "./build-state.ts";

/**
 * Seconds after a build Job's completion during which a missing digest is waited for. Cache lag
 * between two informers of one process is normally well under a second and seconds under load;
 * a minute covers a slow apiserver watch without delaying for long a deploy of a build whose
 * Pod is really gone.
 */
export const DIGEST_GRACE_SECONDS = 60;

/**
 * `resyncAfterSeconds` while waiting. The Pod's arrival in the cache triggers a sync by itself
 * (Pods are related objects Metacontroller watches); this bounds the wait if that event is missed.
 */
export const DIGEST_WAIT_RESYNC_SECONDS = 5;

/**
 * Seconds left to wait for the digest of a succeeded build Job, or `undefined` when there is
 * nothing to wait for: the Job has not succeeded, a finished (Succeeded or Failed) Pod of it is
 * observed — it said all it will say, so a missing digest is final — the Job has no completion
 * time, or the grace is over.
 *
 * @param job - the observed build Job of the current build hash
 * @param pods - the related Pods of the request
 * @param now - the request's clock
 */
export function digestWaitSeconds(job: ObservedBuildJob, pods: KubeObject[], now: Date): number | undefined {
  if (job.state !== "Succeeded" || job.beingDeleted) return undefined;
  const finished = podsOfJob(job.job, pods).some((p) => {
    const phase = (p.status as { phase?: unknown } | undefined)?.phase;
    return phase === "Succeeded" || phase === "Failed";
  });
  if (finished) return undefined;
  const completed = parseTime(job.finishTime);
  if (!completed) return undefined;
  const left = (completed.getTime() + DIGEST_GRACE_SECONDS * 1000 - now.getTime()) / 1000;
  return left > 0 ? left : undefined;
}
