import { measure } from "/work/wt-hotpath/bench/load.ts";
const r = await measure(process.argv[2]!, process.env.BODY!, { connections: 1, seconds: Number(process.argv[3]) });
process.send!({ requests: r.requests, p50: r.latenciesUs[Math.floor(r.latenciesUs.length / 2)] });
process.exit(0);
