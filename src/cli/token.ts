/*
 * Mints a development token signed with the configured (or generated) HS256 secret:
 *   npm run token -- --org <organization> --sub <user> [--ttl 24h]
 */
import { parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../config/app-config';
import { loadDotEnv } from '../config/dot-env';

const USAGE = 'usage: npm run token -- --org <organization> --sub <user> [--ttl 24h]';

function main(): void {
  const { values } = parseArgs({
    options: {
      org: { type: 'string' },
      sub: { type: 'string' },
      ttl: { type: 'string', default: '24h' },
    },
  });
  if (!values.org || !values.sub) throw new Error(USAGE);
  loadDotEnv();
  const config = loadConfig();
  if (config.jwt.kind !== 'secret') {
    throw new Error(
      'Tokens can be minted here only with an HS256 secret; your identity provider issues RS256/ES256 tokens.',
    );
  }
  const token = jwt.sign({ [config.jwt.organizationClaim]: values.org }, config.jwt.secret, {
    algorithm: 'HS256',
    subject: values.sub,
    expiresIn: values.ttl as jwt.SignOptions['expiresIn'],
    ...(config.jwt.issuer ? { issuer: config.jwt.issuer } : {}),
    ...(config.jwt.audience ? { audience: config.jwt.audience } : {}),
  });
  process.stdout.write(`${token}\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
