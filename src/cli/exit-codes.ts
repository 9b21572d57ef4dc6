import { type Command, CommanderError } from "commander";

/**
 * A command line that cannot be run as given: commander's own parse errors (unknown command or
 * option, missing argument, option value or required option, too many arguments), and every
 * input the command refuses before doing anything (a bad value, a missing file, no token).
 */
export const USAGE_EXIT = 2;

/**
 * Makes commander's own usage errors exit 2 instead of its default 1, so a script reading the exit
 * code never takes a typo for a failure of the work itself (or, for `webhook verify` and `audit
 * verify`, for their verdict: 1 invalid, 3 broken). Set on the program before its commands are
 * added, which inherit it; help and --version keep their exit 0.
 */
export function usageErrorsExit2(command: Command): Command {
  return command.exitOverride((error) => {
    throw error.exitCode === 1 ? new CommanderError(USAGE_EXIT, error.code, error.message) : error;
  });
}

/**
 * A command line that names neither or both of two alternatives (a URL or --clear; --json-file or
 * --set): commander's usage error, exit 2, the message first on stderr and the command's help after
 * it, as for a missing argument.
 */
export function usageError(command: Command, message: string): never {
  return command.error(`error: ${message}`, { exitCode: USAGE_EXIT, code: "aml.usage" });
}
