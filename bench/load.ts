/**
 * A small closed-loop HTTP/1.1 load client on raw sockets, for latency in microseconds (autocannon
 * records whole milliseconds, too coarse for sub-millisecond hooks) at a low client CPU cost, so
 * the servers measured keep most of a shared 2-core machine.
 *
 * Each of `connections` sockets sends the same prebuilt request, waits for the whole answer, and
 * sends the next one. An answer ends at its `Content-Length`, at the last chunk of a chunked body,
 * or, for a server that closes the connection after each answer (Python's `http.server` speaks
 * HTTP/1.0), at the close; such a client reconnects, and the connect time counts in the latency,
 * as it does for Metacontroller's client.
 */
import net from "node:net";

/** One measurement. Latencies are microseconds, sorted ascending. */
export interface LoadResult {
  requests: number;
  /** wall-clock seconds of the measurement */
  seconds: number;
  latenciesUs: number[];
  /** answers other than 200, and socket errors */
  failures: number;
}

/** What {@link measure} runs. */
export interface LoadOptions {
  connections: number;
  /** run at least this long (seconds) … */
  seconds: number;
  /** … and at least this many requests, unless `maxRequests` or `maxSeconds` is reached first */
  minRequests?: number;
  maxRequests?: number;
  /** hard stop (seconds) @default 4 × seconds */
  maxSeconds?: number;
}

/** The p-th percentile (0–100) of sorted values, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const LAST_CHUNK = Buffer.from("0\r\n\r\n");

/**
 * POSTs `body` to `url` from `connections` sockets in a closed loop.
 * @param url - `http://host:port/path`
 */
export async function measure(url: string, body: string | Buffer, opts: LoadOptions): Promise<LoadResult> {
  const u = new URL(url);
  const payload = typeof body === "string" ? Buffer.from(body) : body;
  const request = Buffer.concat([
    Buffer.from(
      `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: keep-alive\r\n\r\n`,
    ),
    payload,
  ]);
  const port = Number(u.port);
  const host = u.hostname;
  const latencies: number[] = [];
  let failures = 0;
  let issued = 0;
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const maxSeconds = opts.maxSeconds ?? opts.seconds * 4;
  const more = () => {
    if (opts.maxRequests !== undefined && issued >= opts.maxRequests) return false;
    const t = elapsed();
    if (t >= maxSeconds) return false;
    return t < opts.seconds || issued < (opts.minRequests ?? 0);
  };

  const loop = () =>
    new Promise<void>((resolve) => {
      let socket: net.Socket | undefined;
      let t0 = 0n;
      let head: Buffer | undefined; // bytes before the header end is found
      let headerDone = false;
      let status = 0;
      let length = -1; // -1: until close; -2: chunked
      let received = 0;
      let tail = Buffer.alloc(0); // last bytes of a chunked body
      let closeAfter = false;

      const finish = (ok: boolean) => {
        latencies.push(Number(process.hrtime.bigint() - t0) / 1000);
        if (!ok || status !== 200) failures++;
        head = undefined;
        headerDone = false;
        received = 0;
        tail = Buffer.alloc(0);
        if (closeAfter && socket) {
          socket.removeAllListeners();
          socket.destroy();
          socket = undefined;
        }
        next();
      };

      const onData = (chunk: Buffer) => {
        if (!headerDone) {
          head = head ? Buffer.concat([head, chunk]) : chunk;
          const end = head.indexOf(HEADER_END);
          if (end < 0) return;
          const text = head.subarray(0, end).toString("latin1");
          status = Number(text.slice(9, 12));
          const cl = /\r\ncontent-length:\s*(\d+)/i.exec(text);
          const chunked = /\r\ntransfer-encoding:\s*chunked/i.test(text);
          closeAfter = text.startsWith("HTTP/1.0") ? !/\r\nconnection:\s*keep-alive/i.test(text) : /\r\nconnection:\s*close/i.test(text);
          length = cl ? Number(cl[1]) : chunked ? -2 : -1;
          if (length === -1) closeAfter = true;
          headerDone = true;
          chunk = head.subarray(end + HEADER_END.length);
          head = undefined;
        }
        received += chunk.length;
        if (length >= 0) {
          if (received >= length) finish(true);
        } else if (length === -2) {
          tail = Buffer.concat([tail, chunk]).subarray(-LAST_CHUNK.length);
          if (tail.equals(LAST_CHUNK)) finish(true);
        }
      };

      const open = () => {
        const s = net.connect({ port, host, noDelay: true });
        s.on("data", onData);
        s.on("end", () => {
          if (socket !== s) return;
          socket = undefined;
          if (headerDone && length === -1) finish(true);
          else if (t0 !== 0n && (headerDone || head)) finish(false);
        });
        s.on("error", () => {
          if (socket !== s) return;
          socket = undefined;
          s.destroy();
          finish(false);
        });
        socket = s;
        return s;
      };

      const next = () => {
        if (!more()) {
          socket?.removeAllListeners();
          socket?.destroy();
          resolve();
          return;
        }
        issued++;
        t0 = process.hrtime.bigint();
        (socket ?? open()).write(request);
      };
      next();
    });

  await Promise.all(Array.from({ length: opts.connections }, loop));
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, seconds: elapsed(), latenciesUs: latencies, failures };
}
