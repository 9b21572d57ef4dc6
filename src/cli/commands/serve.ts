import type { Command } from "commander";
import { loadConfig } from "@/config";
import { startServer } from "@/server";
import { ensureDemoTenant } from "@/tenants/demo";
import { globalOptions } from "../context";
import { serverExtensions } from "../extensions";

interface ServeOptions {
  host?: string;
  port?: string;
  logLevel?: string;
  demo?: boolean;
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("Start the HTTP server on the data folder (migrates it first)")
    .option("--host <host>", "address to bind (default 127.0.0.1, env AML_HOST)")
    .option("-p, --port <port>", "port to listen on (default 8080, env AML_PORT)")
    .option("--log-level <level>", "fatal|error|warn|info|debug|trace|silent (env AML_LOG_LEVEL)")
    .option(
      "--demo",
      "try the appliance: load the FICTIONAL demo list if no list was ever imported, create a demo tenant if missing and print a fresh demo API key",
    )
    .action(async (options: ServeOptions, command: Command) => {
      const globals = globalOptions(command);
      const config = loadConfig({
        configFile: globals.config,
        flags: { dataDir: globals.dataDir, host: options.host, port: options.port, logLevel: options.logLevel },
      });
      const server = await startServer(config, { extensions: await serverExtensions(config, { demo: options.demo === true }) });
      const banner = [`aml listening on ${server.url}  (data folder: ${config.dataDir})`];
      if (options.demo) {
        const demo = ensureDemoTenant(server.ctx, { actor: { type: "system", id: "demo" } });
        banner.push(
          `demo tenant API key (shown once): ${demo.apiKey}`,
          `try: curl -H "X-Api-Key: ${demo.apiKey}" ${server.url}/v1/usage`,
        );
        if (demo.suspended) banner.push(`the demo tenant is suspended, so this key is refused (403) until: aml tenant resume demo --reason "<why>"`);
      }
      banner.push(`API explorer: ${server.url}/swagger-ui`);
      process.stderr.write(`\n${banner.join("\n")}\n\n`);

      const shutdown = (signal: string) => {
        server.ctx.log.info({ signal }, "shutting down");
        server.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            server.ctx.log.error({ err: error }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      process.once("SIGTERM", () => shutdown("SIGTERM"));
      process.once("SIGINT", () => shutdown("SIGINT"));
    });
}
