/*
 * Mints a development token signed with the configured (or generated) HS256 secret:
 *   npm run token -- --org <organization> --sub <user> [--ttl 24h]
 */
import { parseArgs } from 'node:util';
import { mintDevToken, runCli } from './dev-token';

const USAGE = 'usage: npm run token -- --org <organization> --sub <user> [--ttl 24h]';
const HELP = `${USAGE}

Prints a bearer token for the API, signed with the server's HS256 secret: JWT_SECRET from the
environment or .env or, when none is set, the development secret in DATA_DIR (./data by default,
dev-secrets.json), which the server made at its first start. Run it with the server's own
JWT_SECRET or DATA_DIR, or the server answers 401 "The token signature is not valid."
  --org   the organization (the claim JWT_ORGANIZATION_CLAIM names, organization_id by
          default): every resource belongs to one
  --sub   the user or service acting (the token's sub claim)
  --ttl   how long the token is valid: 24h, 30m, 7d (default 24h)
`;

function main(): void {
  const { values } = parseArgs({
    options: {
      org: { type: 'string' },
      sub: { type: 'string' },
      ttl: { type: 'string', default: '24h' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (!values.org || !values.sub) throw new Error(USAGE);
  const { token, newDevSecret } = mintDevToken({
    org: values.org,
    sub: values.sub,
    ttl: values.ttl,
  });
  process.stdout.write(`${token}\n`);
  if (newDevSecret) {
    process.stderr.write(
      `No JWT_SECRET is set and ${newDevSecret} did not exist: it was made now, and the token is signed with its secret. A server started with another JWT_SECRET or DATA_DIR will refuse it (npm run token -- --help).\n`,
    );
  }
}

runCli(main);
