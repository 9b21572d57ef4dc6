import { runCli } from "@/cli/program";

// The single entry of the `aml` executable: every subcommand, including `serve`.
const code = await runCli(process.argv);
// `serve` keeps running on its own handles; other commands exit with their code.
if (code !== 0) process.exit(code);
