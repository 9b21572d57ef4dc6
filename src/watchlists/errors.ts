/**
 * A list file that cannot be imported as a whole. Thrown instead of returning a partial
 * list, so a truncated or malformed download never silently replaces a good list version.
 */
export class ListParseError extends Error {
  override readonly name = "ListParseError";
  /** File name as supplied by the caller. */
  readonly file: string;
  /** Where the problem is: "line 12", "row 5, column Group ID", "element /sdnList/sdnEntry[3]". */
  readonly location: string;
  readonly reason: string;

  constructor(args: { file: string; location: string; reason: string; cause?: unknown }) {
    super(`${args.file}: ${args.location}: ${args.reason}`, args.cause === undefined ? undefined : { cause: args.cause });
    this.file = args.file;
    this.location = args.location;
    this.reason = args.reason;
  }
}
