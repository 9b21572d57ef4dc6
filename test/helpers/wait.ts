export interface WaitOptions {
  /** The timeout error's message (default: the condition was not met within `ms`). */
  message?: string;
  /** Pause between two checks. */
  intervalMs?: number;
}

/** Resolves once `check` holds, checking again every `intervalMs`; throws once `ms` have passed without it. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 5_000, options: WaitOptions = {}): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(options.message ?? `condition not met within ${ms} ms`);
    await Bun.sleep(options.intervalMs ?? 25);
  }
}
