/**
 * The `metahooks` command line: `serve`, and the hooks as pure functions over JSON.
 * The commands live in `./cli/main.ts`; this entry runs them with the process's streams.
 *
 * @packageDocumentation
 */
import { runCli } from "./cli/main.ts";

runCli(process.argv.slice(2)).then((code) => {
  if (code !== 0) process.exitCode = code;
});
