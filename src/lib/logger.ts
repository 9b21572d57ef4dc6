import pino, { type Logger } from "pino";

export type { Logger };

/**
 * JSON logs to stdout (journald or any collector picks them up). Credentials and personal data
 * are redacted by path as a second line of defence; call sites must not log them in the first place.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "aml" },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        "apiKey",
        "*.apiKey",
        "secret",
        "*.secret",
        "webhookSigningSecret",
        "*.webhookSigningSecret",
        "authorization",
        "*.authorization",
        "headers.authorization",
        'headers["x-api-key"]',
        "fullName",
        "*.fullName",
        "aliases",
        "*.aliases",
      ],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
