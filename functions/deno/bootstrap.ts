// Basalt's worker bootstrap: the first module of every TypeScript function's
// Deno process. It reads its settings from the first line of stdin, makes
// Deno.serve (and the std `serve` that calls it) hand the function's handler
// to this file instead of opening a port, imports the function, then serves
// the handler on a unix socket in the worker's private folder; each request
// must also carry the worker's token, which the function never sees.
//
// Output to stdout is the control channel, one JSON object a line:
//   {"t":"listen"}                          the worker is ready
//   {"t":"log","level":L,"rid":R,"msg":M}   console output, with the request id
//   {"t":"tasks","n":N}                     EdgeRuntime.waitUntil tasks pending
import { AsyncLocalStorage } from "node:async_hooks";

type Settings = {
  token: string;
  entrypoint: string; // a file: URL
  origin: string; // the origin functions see in req.url
  socket: string; // the unix socket to listen on
};

type Handler = (req: Request, info?: unknown) => Response | Promise<Response>;

const encoder = new TextEncoder();
const out = (msg: Record<string, unknown>) => {
  Deno.stdout.writeSync(encoder.encode(JSON.stringify(msg) + "\n"));
};

async function readSettings(): Promise<Settings> {
  const buf = new Uint8Array(64 * 1024);
  let text = "";
  while (!text.includes("\n")) {
    const n = await Deno.stdin.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return JSON.parse(text.split("\n")[0]);
}

const settings = await readSettings();
const requestId = new AsyncLocalStorage<string>();

// console.* becomes log lines carrying the request being served.
const format = (args: unknown[]) =>
  args.map((a) => (typeof a === "string" ? a : Deno.inspect(a))).join(" ");
for (const [method, level] of [
  ["log", "info"], ["info", "info"], ["debug", "debug"], ["warn", "warn"], ["error", "error"],
] as const) {
  console[method] = (...args: unknown[]) =>
    out({ t: "log", level, rid: requestId.getStore() ?? "", msg: format(args) });
}

// EdgeRuntime.waitUntil, as Supabase's runtime offers: work that goes on
// after the response. Basalt keeps the worker alive while tasks are pending
// (up to its wall-clock limit).
let pending = 0;
const tasks = (delta: number) => {
  pending += delta;
  out({ t: "tasks", n: pending });
};
(globalThis as any).EdgeRuntime = {
  waitUntil(p: Promise<unknown>) {
    tasks(1);
    const rid = requestId.getStore() ?? "";
    Promise.resolve(p).catch((err) =>
      out({ t: "log", level: "error", rid, msg: "waitUntil task failed: " + format([err]) })
    ).finally(() => tasks(-1));
    return p;
  },
};

// Deno.serve captures the function's handler. Every form Deno accepts:
// serve(handler), serve(options, handler), serve({ handler, ... }).
let captured: Handler | undefined;
let resolveCaptured: () => void;
const capturedReady = new Promise<void>((r) => (resolveCaptured = r));
const realServe = Deno.serve.bind(Deno);
const fakeServer = {
  finished: new Promise<void>(() => {}),
  addr: { transport: "tcp", hostname: "0.0.0.0", port: 8000 },
  shutdown: () => Promise.resolve(),
  ref() {},
  unref() {},
  [Symbol.asyncDispose]: () => Promise.resolve(),
};
(Deno as any).serve = (a: any, b?: any) => {
  const handler = typeof a === "function" ? a : typeof b === "function" ? b : a?.handler;
  if (typeof handler !== "function") throw new TypeError("Deno.serve: no handler given");
  if (!captured) {
    captured = handler;
    resolveCaptured();
  }
  return fakeServer;
};

const workerError = () =>
  new Response(
    JSON.stringify({ code: "WORKER_ERROR", message: "Function exited due to an error (please check logs)" }),
    { status: 500, headers: { "content-type": "application/json", "x-basalt-worker-error": "1" } },
  );

await import(settings.entrypoint);
await Promise.race([capturedReady, new Promise((r) => setTimeout(r, 10_000))]);
if (!captured) {
  console.error("the function never called Deno.serve");
  Deno.exit(70);
}
const handler = captured!;

// Basalt sends the request line in absolute form with the functions'
// origin (http://localhost:8000/name/path), so req.url is already what the
// function must see; an origin of another scheme is rebuilt here.
const originSlash = settings.origin + "/";
const urlFor = (raw: string) => {
  if (raw.startsWith(originSlash)) return raw;
  const url = new URL(raw);
  return settings.origin + url.pathname + url.search;
};

const serveGuarded = async (h: Handler, req: Request, info: unknown) => {
  try {
    return await h(req, info);
  } catch (err) {
    console.error(err);
    return workerError();
  }
};

realServe({
  path: settings.socket,
  onListen: () => out({ t: "listen" }),
  onError: (err) => {
    console.error(err);
    return workerError();
  },
}, (req, info) => {
  const seen = req.headers;
  if (seen.get("x-basalt-worker-token") !== settings.token) {
    return new Response("forbidden", { status: 403 });
  }
  const rid = seen.get("x-basalt-request-id") ?? "";
  // An upgrade (WebSocket) must be answered from the connection's own
  // request: Deno.upgradeWebSocket refuses a copy. Its headers still carry
  // the token, which only opens this worker.
  if (seen.get("upgrade")) {
    return requestId.run(rid, serveGuarded, handler, req, info);
  }
  // The function's request: the same, without Basalt's two headers (the
  // connection's own headers cannot change). One copy of the headers: the
  // constructor's, then the two are removed from it.
  const body = req.body;
  const inner = new Request(
    urlFor(req.url),
    body
      // deno-lint-ignore no-explicit-any
      ? { method: req.method, headers: seen, body, signal: req.signal, duplex: "half" } as any
      : { method: req.method, headers: seen, signal: req.signal },
  );
  inner.headers.delete("x-basalt-worker-token");
  inner.headers.delete("x-basalt-request-id");
  return requestId.run(rid, serveGuarded, handler, inner, info);
});
