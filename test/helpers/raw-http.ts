import { connect } from "node:net";

/** Raw HTTP/1.1 over a socket, for what fetch cannot send: a request whose body never comes. */
export interface RawAnswer {
  status: number;
  head: string;
  body: string;
  ms: number;
}

/**
 * Sends a request's head and the start of its body over a raw connection and never the rest, so a
 * server that waited for (or read) the whole body would never answer. Resolves with the answer.
 */
export function headersOnly(port: number, head: string[], bodyStart: string, timeoutMs = 5_000): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms: the server waited for the body`));
    }, timeoutMs);
    socket.on("connect", () => socket.write(`${head.join("\r\n")}\r\n\r\n${bodyStart}`));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return;
      const headText = text.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headText)?.[1] ?? Number.NaN);
      const body = received.subarray(end + 4);
      if (!Number.isFinite(length) || body.length < length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1]),
        head: headText,
        body: body.subarray(0, length).toString("utf8"),
        ms: performance.now() - started,
      });
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
