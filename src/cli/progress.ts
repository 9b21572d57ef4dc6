/**
 * Progress on stderr: a rewritten line on a terminal, a line every few seconds otherwise (logs,
 * CI), nothing at all when disabled (--json keeps stdout and stderr clean for scripts).
 */
export function progressReporter(enabled: boolean) {
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  const started = Date.now();
  const write = (text: string, force: boolean) => {
    if (!enabled) return;
    const elapsed = ((Date.now() - started) / 1000).toFixed(1);
    if (tty) process.stderr.write(`\r\x1b[2K[${elapsed}s] ${text}`);
    else if (force || Date.now() - lastLine > 3000) {
      process.stderr.write(`[${elapsed}s] ${text}\n`);
      lastLine = Date.now();
    }
  };
  return {
    phase(text: string) {
      write(text, true);
      if (tty && enabled) process.stderr.write("\n");
    },
    update(label: string, done: number) {
      write(`${label}: ${done.toLocaleString("en-US")} entities`, false);
    },
    done() {
      if (enabled && tty) process.stderr.write("\n");
    },
  };
}
