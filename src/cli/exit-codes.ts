import { type Command, CommanderError } from "commander";

/** A command line that cannot be run as given (unknown option, missing value, wrong arguments). */
export const USAGE_EXIT = 2;

/**
 * Makes commander's own usage errors (unknown option, missing value, extra argument) exit 2 on a
 * command whose exit 1 or 3 is a verdict (a signature invalid, a chain broken): a script reading the
 * exit code must not take a typo for a verdict.
 */
export function usageErrorsExit2(command: Command): Command {
  return command.exitOverride((error) => {
    throw error.exitCode === 1 ? new CommanderError(USAGE_EXIT, error.code, error.message) : error;
  });
}
