import type { Command } from "commander";
import { invalidInput } from "@/errors";
import { clientCredentialsGrant } from "../oidc-client";
import { allowsRemote, DEFAULT_SCOPE } from "../remote";
import { saveToken, tokenFile } from "../token-store";

interface LoginOptions {
  authUrl?: string;
  clientId?: string;
  clientSecret?: string;
  scope: string;
}

export function registerLogin(program: Command): void {
  allowsRemote(program.command("login"))
    .description("Obtain an admin access token by client_credentials and save it for --remote commands")
    .option("--auth-url <url>", "identity provider issuer URL (env AML_AUTH_URL)")
    .option("--client-id <id>", "confidential client id, e.g. aml-admin-cli (env AML_CLIENT_ID)")
    .option("--client-secret <secret>", "client secret (env AML_CLIENT_SECRET; prefer the env variable)")
    .option("--scope <scope>", "scope to request, kept with the token and asked again when AML_CLIENT_SECRET renews it (Entra: api://<app id>/.default)", DEFAULT_SCOPE)
    .action(async (options: LoginOptions, command: Command) => {
      const authUrl = options.authUrl ?? process.env.AML_AUTH_URL;
      const clientId = options.clientId ?? process.env.AML_CLIENT_ID;
      const clientSecret = options.clientSecret ?? process.env.AML_CLIENT_SECRET;
      if (!authUrl || !clientId || !clientSecret) {
        const missing = [
          [authUrl, "--auth-url", "AML_AUTH_URL"],
          [clientId, "--client-id", "AML_CLIENT_ID"],
          [clientSecret, "--client-secret", "AML_CLIENT_SECRET"],
        ].filter(([value]) => !value);
        throw invalidInput(`login needs ${listed(missing.map(([, flag]) => flag))} (or ${listed(missing.map(([, , env]) => env))})`);
      }
      const grant = await clientCredentialsGrant({ authUrl, clientId, clientSecret, scope: options.scope });
      saveToken({ accessToken: grant.accessToken, expiresAt: grant.expiresAt.toISOString(), authUrl, clientId, scope: options.scope });
      const json = command.optsWithGlobals<{ json?: boolean }>().json === true;
      const summary = { tokenFile: tokenFile(), clientId, expiresAt: grant.expiresAt.toISOString() };
      console.log(json ? JSON.stringify(summary, null, 2) : `logged in as ${clientId}; token saved to ${summary.tokenFile} (expires ${summary.expiresAt})`);
    });
}

/** "a", "a and b", "a, b and c". */
function listed(items: ReadonlyArray<string | undefined>): string {
  const words = items.filter((item): item is string => item !== undefined);
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}
