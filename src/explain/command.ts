/**
 * `metahooks explain <kind> <name> [-n <namespace>] [-o json] [--kubeconfig <file>]
 * [--context <name>] [--now <time>]`: reads a live parent and its children, runs the same pure
 * hook Metacontroller calls, and says what it would do and why.
 *
 * @packageDocumentation
 */
import { parseArgs } from "node:util";
import { configureControllers } from "../controllers/registry.ts";
import { runHook } from "../metacontroller/run-hook.ts";
import { parseNow } from "../cli/hook-command.ts";
import type { Env } from "../config.ts";
import { gatherHookRequest } from "./gather.ts";
import { loadKubeReader, type KubeReader } from "./kube-reader.ts";
import { formatExplanation } from "./summary.ts";
import type { ConfiguredController } from "../controllers/registry.ts";

/** Usage text of the command. */
export const EXPLAIN_USAGE = `Usage: metahooks explain <kind> <name> [-n <namespace>] [-o json] [--kubeconfig <file>] [--context <name>] [--now <time>]

Reads the parent, its children and related objects from the cluster (read-only), runs the hook
locally, and prints what it would do now: what the kind reports about the parent (e.g. the next
run and why a slot was skipped, or the build phase and why it failed), its conditions, and the
children that would be created or deleted. -o json prints the raw hook response instead.
`;

/** What the command writes and its exit code. */
export interface ExplainOutcome {
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
}

/** Dependencies, replaceable in tests. */
export interface ExplainDeps {
  env: Env;
  clock: () => Date;
  /** Builds the API reader; the default loads the kubeconfig with client-node. */
  loadReader?: (opts: { kubeconfig?: string; context?: string }) => Promise<KubeReader>;
  controllers?: ConfiguredController[];
}

/**
 * Runs `explain` with the arguments after the word `explain`.
 * @returns exit code 0 with the summary (or JSON) on stdout; 2 with a message on stderr when the
 *   arguments are wrong; 1 when the parent does not exist, the API fails or the hook errors
 */
export async function runExplain(argv: string[], deps: ExplainDeps): Promise<ExplainOutcome> {
  const fail = (message: string): ExplainOutcome => ({ exitCode: 1, stdout: "", stderr: `metahooks explain: ${message}\n` });
  // Wrong arguments exit 2, as every command's usage errors do.
  const usage = (message: string): ExplainOutcome => ({ exitCode: 2, stdout: "", stderr: `metahooks explain: ${message}\n` });
  let values: { namespace?: string; output?: string; kubeconfig?: string; context?: string; now?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        namespace: { type: "string", short: "n" },
        output: { type: "string", short: "o" },
        kubeconfig: { type: "string" },
        context: { type: "string" },
        now: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    return usage(`${(err as Error).message}\n\n${EXPLAIN_USAGE}`);
  }
  if (values.help) return { exitCode: 0, stdout: EXPLAIN_USAGE, stderr: "" };
  const [kind, name, extra] = positionals;
  if (!kind || !name || extra !== undefined) return usage(`expected <kind> <name>\n\n${EXPLAIN_USAGE}`);
  if (values.output !== undefined && values.output !== "json") return usage(`-o supports only "json", got ${JSON.stringify(values.output)}\n\n${EXPLAIN_USAGE}`);
  try {
    const controllers = deps.controllers ?? configureControllers(deps.env);
    const configured = controllers.find((c) => c.def.name === kind);
    if (!configured) return fail(`unknown kind ${JSON.stringify(kind)}; kinds: ${controllers.map((c) => c.def.name).join(", ")}`);
    let now: Date;
    try {
      now = parseNow(values.now, deps.clock);
    } catch (err) {
      return usage(`${(err as Error).message}\n\n${EXPLAIN_USAGE}`);
    }
    const readerOpts: { kubeconfig?: string; context?: string } = {};
    if (values.kubeconfig !== undefined) readerOpts.kubeconfig = values.kubeconfig;
    if (values.context !== undefined) readerOpts.context = values.context;
    const reader = await (deps.loadReader ?? loadKubeReader)(readerOpts);
    // As kubectl: -n, else the kubeconfig context's namespace, else "default".
    const namespace = values.namespace ?? reader.namespace ?? "default";
    const gathered = await gatherHookRequest(configured.def, reader, namespace, name, configured.options);
    if (!gathered) return fail(`${configured.def.kind} ${namespace}/${name} not found on ${reader.server}`);
    const result = runHook(configured.def, gathered.request.finalizing ? "finalize" : "sync", gathered.request, now, configured.options);
    if (values.output === "json") return { exitCode: 0, stdout: JSON.stringify(result.response, null, 2) + "\n", stderr: "" };
    const text = formatExplanation({
      def: configured.def,
      parent: gathered.parent,
      children: gathered.request.children,
      response: result.response,
      decisions: result.decisions,
      finalizing: gathered.request.finalizing,
      now,
    });
    return { exitCode: 0, stdout: text, stderr: "" };
  } catch (err) {
    return fail((err as Error).message);
  }
}
