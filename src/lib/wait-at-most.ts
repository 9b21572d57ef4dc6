/**
 * Waits for `promise` for at most `ms`: true when it settled in time. The timer is cleared as soon as
 * the wait ends, so it never holds the process open (a stop's grace of 15 s would otherwise delay
 * every exit by its full length).
 */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
