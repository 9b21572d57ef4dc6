// Every test runs in UTC so month boundaries and ISO strings are deterministic.
process.env.TZ = "UTC";
