/**
 * The bench tenant's webhook receiver: answers 204 to everything, as a receiver on another machine
 * would, and prints its port. Run as a process of its own so its work is not the server's.
 */
const receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null, { status: 204 }) });
process.stdout.write(`${receiver.port}\n`);
