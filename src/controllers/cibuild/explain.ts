/**
 * The CIBuild's lines in `metahooks explain`: the phase, the current build and why it failed,
 * the deployed image and the Deployment's readiness. Pure over the hook's answer.
 *
 * @packageDocumentation
 */
import { oneLine } from "../explain-text.ts";
import type { ExplainInput } from "../types.ts";

/** The CIBuild section of the explain summary. */
export function explainCIBuild(input: ExplainInput): string[] {
  const status = input.response.status;
  const current = status.currentBuild as Record<string, unknown> | undefined;
  // The phase message usually repeats the build's; say it once.
  const phaseMessage = status.message && status.message !== current?.message ? ` (${oneLine(status.message)})` : "";
  const lines = [`Phase:         ${String(status.phase ?? "unknown")}${phaseMessage}`];
  if (current) {
    const failure = current.reason && current.phase === "Failed" ? ` because ${String(current.reason)}` : "";
    lines.push(
      `Build:         ${String(current.name ?? "?")} ${String(current.phase ?? "?")}${failure}${current.message ? `: ${oneLine(current.message)}` : ""}`,
    );
  }
  const good = status.lastSuccessfulBuild as Record<string, unknown> | undefined;
  if (good) lines.push(`Deployed image: ${String(good.imageRef ?? good.name ?? "?")}`);
  const deployment = status.deployment as Record<string, unknown> | undefined;
  if (deployment) {
    lines.push(
      `Deployment:    ${String(deployment.name)} ready ${String(deployment.readyReplicas ?? 0)}/${String(deployment.replicas ?? "?")}`,
    );
  }
  return lines;
}
