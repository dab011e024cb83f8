/**
 * Job names and scheduled times: `<cronjob>-<scheduled time in unix minutes>`, as upstream
 * pkg/controller/cronjob/utils.go `getJobName`.
 *
 * @packageDocumentation
 */
import type { KubeObject } from "../../metacontroller/contract.ts";
import { parseTime } from "../../kube/time.ts";
import { SCHEDULED_AT_ANNOTATION, SCHEDULED_TIMESTAMP_ANNOTATION } from "./constants.ts";

/** The Job name for a slot: `<cronjob name>-<floor(unix seconds / 60)>`. */
export function jobNameFor(cronJobName: string, slot: Date): string {
  return `${cronJobName}-${Math.floor(slot.getTime() / 60000)}`;
}

/**
 * The scheduled time encoded in a Job name `<cronjob name>-<digits>`: up to 9 digits are unix
 * minutes (upstream v2), exactly 10 are unix seconds (upstream v1 and the tutorial).
 * @returns undefined when the name does not have that shape
 */
export function scheduledTimeOfName(cronJobName: string, jobName: string): Date | undefined {
  const prefix = `${cronJobName}-`;
  if (!jobName.startsWith(prefix)) return undefined;
  const digits = jobName.slice(prefix.length);
  if (!/^\d{1,10}$/.test(digits)) return undefined;
  const value = Number(digits);
  return new Date(digits.length === 10 ? value * 1000 : value * 60000);
}

/**
 * The scheduled time of a Job: upstream's annotation, else the tutorial's, else the name suffix.
 * @returns undefined when none of them is readable
 */
export function scheduledTimeOfJob(cronJobName: string, job: KubeObject): Date | undefined {
  const annotations = job.metadata.annotations ?? {};
  return (
    parseTime(annotations[SCHEDULED_TIMESTAMP_ANNOTATION]) ??
    parseTime(annotations[SCHEDULED_AT_ANNOTATION]) ??
    scheduledTimeOfName(cronJobName, job.metadata.name)
  );
}
