/** A decoded input file, as parse functions receive it. */
export interface TextFile {
  name: string;
  text: string;
}

/** What a parser returns besides its records: non-fatal problems, with their location. */
export interface ParseOutcome<T> {
  records: T[];
  warnings: string[];
  /** Publication date found inside the file; null when the format carries none. */
  publishedAt: string | null;
}
