import { existsSync } from 'node:fs';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { EnvironmentVariables, loadConfig } from '../config/app-config';
import { readEnvironment } from '../config/environment';
import { loadDotEnv } from '../config/dot-env';

export interface DevToken {
  token: string;
  /** Set when no secret existed: the one made now, which a server with another secret refuses. */
  newDevSecret?: string;
}

/**
 * A development token signed with the server's HS256 secret: JWT_SECRET from the environment or
 * .env, or the development secret in DATA_DIR (made here when the server never started there).
 * Shared by `npm run token` and `npm run simulate`.
 */
export function mintDevToken({
  org,
  sub,
  ttl,
}: {
  org: string;
  sub: string;
  ttl: string;
}): DevToken {
  loadDotEnv();
  // Read as loadConfig reads them (an empty variable is unset), before it may create the file.
  const vars = readEnvironment(EnvironmentVariables, process.env);
  const devSecrets = join(vars.DATA_DIR, 'dev-secrets.json');
  const newDevSecret = !vars.JWT_SECRET && !vars.DATABASE_URL && !existsSync(devSecrets);
  const config = loadConfig();
  if (config.jwt.kind !== 'secret') {
    throw new Error(
      'Tokens can be minted here only with an HS256 secret; your identity provider issues RS256/ES256 tokens.',
    );
  }
  const token = jwt.sign({ [config.jwt.organizationClaim]: org }, config.jwt.secret, {
    algorithm: 'HS256',
    subject: sub,
    expiresIn: ttl as jwt.SignOptions['expiresIn'],
    ...(config.jwt.issuer ? { issuer: config.jwt.issuer } : {}),
    ...(config.jwt.audience ? { audience: config.jwt.audience } : {}),
  });
  return { token, ...(newDevSecret && { newDevSecret: devSecrets }) };
}

/** What a CLI prints for its failure: the message, never a stack trace; exit status 1. */
export function runCli(main: () => void | Promise<void>): void {
  Promise.resolve()
    .then(main)
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    });
}
