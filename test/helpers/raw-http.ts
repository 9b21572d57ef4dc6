import { connect } from "node:net";

/** Raw HTTP/1.1 over a socket, for what fetch cannot do: a request whose body never comes, one connection held open. */
export interface RawAnswer {
  status: number;
  head: string;
  body: string;
  ms: number;
}

/**
 * The first whole answer (head and Content-Length body) at the start of `received`, and the bytes
 * after it; null while it is still incomplete.
 */
function takeAnswer(received: Buffer, started: number): { answer: RawAnswer; rest: Buffer } | null {
  const text = received.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return null;
  const headText = text.slice(0, end);
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headText)?.[1] ?? Number.NaN);
  const body = received.subarray(end + 4);
  if (!Number.isFinite(length) || body.length < length) return null;
  return {
    answer: {
      status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1]),
      head: headText,
      body: body.subarray(0, length).toString("utf8"),
      ms: performance.now() - started,
    },
    rest: body.subarray(length),
  };
}

/** Writes `text` over a new connection and resolves with the first whole answer (RawAnswer). */
function exchange(host: string, port: number, text: string, timeoutMs: number, timeoutMessage: string): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(timeoutMessage));
    }, timeoutMs);
    socket.on("connect", () => socket.write(text));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const taken = takeAnswer(received, started);
      if (!taken) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(taken.answer);
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * Sends a request's head and the start of its body over a raw connection and never the rest, so a
 * server that waited for (or read) the whole body would never answer. Resolves with the answer.
 */
export function headersOnly(port: number, head: string[], bodyStart: string, timeoutMs = 5_000): Promise<RawAnswer> {
  return exchange("127.0.0.1", port, `${head.join("\r\n")}\r\n\r\n${bodyStart}`, timeoutMs, `no answer within ${timeoutMs} ms: the server waited for the body`);
}

/** One connection held open between requests, as a proxy holds its upstream connections. */
export interface KeptAlive {
  /** Sends `GET path` on the connection; the answer's status line, or "closed" once the server has closed it. */
  get(path: string): Promise<string>;
  /** Resolves when the server (or end()) closes the connection. */
  readonly closed: Promise<void>;
  end(): void;
}

export function keptAlive(url: string): KeptAlive {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  let waiting: ((statusLine: string) => void) | null = null;
  let received: Buffer = Buffer.alloc(0);
  let isClosed = false;
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  void closed.then(() => {
    isClosed = true;
    waiting?.("closed");
  });
  // A write to a socket the server closed fails; the answer is then "closed", not an exception.
  socket.on("error", () => undefined);
  socket.on("data", (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const taken = takeAnswer(received, 0);
    if (!taken || !waiting) return;
    received = taken.rest;
    const done = waiting;
    waiting = null;
    done(taken.answer.head.slice(0, taken.answer.head.indexOf("\r\n")));
  });
  return {
    get: (path) =>
      new Promise<string>((resolve) => {
        if (isClosed) return resolve("closed");
        waiting = resolve;
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      }),
    closed,
    end: () => socket.destroy(),
  };
}

/**
 * Sends `lines` (request line and header lines) and `body` over a new connection exactly as written,
 * for requests fetch cannot make (HTTP/1.0 without a Host, a Host fetch would set otherwise), and
 * reads the one answer.
 */
export function rawExchange(url: string, lines: string[], body = "", timeoutMs = 5_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return exchange(hostname, Number(port), `${lines.join("\r\n")}\r\n\r\n${body}`, timeoutMs, `no answer within ${timeoutMs} ms`);
}
