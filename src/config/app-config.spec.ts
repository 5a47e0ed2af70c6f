import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './app-config';
import { ConfigError } from './environment';

const key = Buffer.alloc(32, 1).toString('base64');
const secret = 's'.repeat(40);

describe('loadConfig', () => {
  const dataDir = () => mkdtempSync(join(tmpdir(), 'agentline-config-'));

  it('starts with nothing set: embedded database, generated dev secrets, defaults from CONTRACT.md', () => {
    const dir = dataDir();
    const config = loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      publicUrl: 'http://localhost:3000',
      jwt: {
        kind: 'secret',
        algorithms: ['HS256'],
        organizationClaim: 'organization_id',
        generated: true,
      },
    });
    const stored = JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'));
    expect(config.jwt.kind === 'secret' && config.jwt.secret).toBe(stored.jwt_secret);
    // A restart reads the same secrets back instead of generating new ones.
    expect(loadConfig({ DATA_DIR: dir }).encryption.currentKey).toEqual(
      config.encryption.currentKey,
    );
  });

  it('fails with DATABASE_URL and no token key', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y', ENCRYPTION_KEY: key })).toThrow(
      /DATABASE_URL is set but no token key is: set JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL/,
    );
  });

  it('reads the database time-outs, 0 meaning wait for ever at start-up, and refuses nonsense', () => {
    const postgres = { DATABASE_URL: 'postgres://x/y', JWT_SECRET: secret, ENCRYPTION_KEY: key };
    expect(loadConfig(postgres).database).toEqual({
      connectTimeoutMs: 5_000,
      startupTimeoutMs: 60_000,
      listenCheckMs: 30_000,
    });
    expect(
      loadConfig({
        ...postgres,
        DATABASE_CONNECT_TIMEOUT_MS: '1500',
        DATABASE_STARTUP_TIMEOUT_MS: '0',
        DATABASE_LISTEN_CHECK_MS: '300',
      }).database,
    ).toEqual({ connectTimeoutMs: 1_500, startupTimeoutMs: 0, listenCheckMs: 300 });
    expect(() => loadConfig({ ...postgres, DATABASE_LISTEN_CHECK_MS: '50' })).toThrow(
      /DATABASE_LISTEN_CHECK_MS/,
    );
    expect(() => loadConfig({ ...postgres, DATABASE_CONNECT_TIMEOUT_MS: '0' })).toThrow(
      /DATABASE_CONNECT_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ ...postgres, DATABASE_STARTUP_TIMEOUT_MS: '-1' })).toThrow(
      /DATABASE_STARTUP_TIMEOUT_MS/,
    );
  });

  it('keeps webhook bodies and attempt histories 30 days by default, 0 for ever, and refuses nonsense', () => {
    const postgres = { DATABASE_URL: 'postgres://x/y', JWT_SECRET: secret, ENCRYPTION_KEY: key };
    expect(loadConfig(postgres).retentionDays).toBe(30);
    expect(loadConfig({ ...postgres, RETENTION_DAYS: '0' }).retentionDays).toBe(0);
    expect(loadConfig({ ...postgres, RETENTION_DAYS: '400' }).retentionDays).toBe(400);
    for (const bad of ['-1', '1.5', 'thirty', '3651']) {
      expect(() => loadConfig({ ...postgres, RETENTION_DAYS: bad })).toThrow(/RETENTION_DAYS/);
    }
  });

  it('reads CORS_ORIGINS as origins, none by default, and refuses `*` and URLs with a path', () => {
    const env = { DATABASE_URL: 'postgres://x/y', JWT_SECRET: secret, ENCRYPTION_KEY: key };
    expect(loadConfig(env).corsOrigins).toEqual([]);
    expect(
      loadConfig({
        ...env,
        CORS_ORIGINS: 'https://App.example.com:443, http://localhost:5173,https://app.example.com',
      }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(() => loadConfig({ ...env, CORS_ORIGINS: '*' })).toThrow(
      /CORS_ORIGINS must list origins .*`\*` is not accepted/,
    );
    expect(() => loadConfig({ ...env, CORS_ORIGINS: 'app.example.com' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ ...env, CORS_ORIGINS: 'https://app.example.com/admin' })).toThrow(
      /CORS_ORIGINS takes origins \(scheme:\/\/host\[:port\]\), not https:\/\/app.example.com\/admin/,
    );
  });

  it('fails with DATABASE_URL and no ENCRYPTION_KEY', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y', JWT_SECRET: secret })).toThrow(
      /ENCRYPTION_KEY/,
    );
  });

  it('refuses two key sources at once, and algorithms that do not fit the key', () => {
    expect(() =>
      loadConfig({
        DATA_DIR: dataDir(),
        JWT_SECRET: secret,
        JWT_JWKS_URL: 'https://id.example.com/jwks',
      }),
    ).toThrow(ConfigError);
    expect(() =>
      loadConfig({ DATA_DIR: dataDir(), JWT_SECRET: secret, JWT_ALGORITHMS: 'RS256' }),
    ).toThrow(/do not fit/);
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    expect(() =>
      loadConfig({ DATA_DIR: dataDir(), JWT_PUBLIC_KEY: pem, JWT_ALGORITHMS: 'HS256,RS256' }),
    ).toThrow(/do not fit/);
    expect(() => loadConfig({ DATA_DIR: dataDir(), JWT_PUBLIC_KEY: 'pem' })).toThrow(
      'Invalid configuration: JWT_PUBLIC_KEY: not a PEM public key',
    );
    expect(() =>
      loadConfig({ DATA_DIR: dataDir(), JWT_SECRET: secret, JWT_ALGORITHMS: 'none' }),
    ).toThrow(ConfigError);
  });

  it('names what is wrong with a bad value', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATA_DIR: dataDir(), JWT_SECRET: 'short' })).toThrow(
      /at least 32 characters/,
    );
    expect(() => loadConfig({ DATA_DIR: dataDir(), ENCRYPTION_KEY: 'dG9vIHNob3J0' })).toThrow(
      /exactly 32 bytes/,
    );
  });

  it('reads the PostgreSQL configuration', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://db/agentline',
      JWT_SECRET: secret,
      ENCRYPTION_KEY: key,
      ENCRYPTION_PREVIOUS_KEYS: `${Buffer.alloc(32, 2).toString('base64')}`,
      PORT: '8080',
      PUBLIC_URL: 'https://agentline.example.com/',
    });
    expect(config).toMatchObject({
      databaseUrl: 'postgres://db/agentline',
      port: 8080,
      publicUrl: 'https://agentline.example.com',
      jwt: { generated: false },
    });
    expect(config.encryption.previousKeys).toHaveLength(1);
  });

  it('listens on 127.0.0.1 by default only on generated development secrets; HOST decides otherwise', () => {
    expect(loadConfig({ DATA_DIR: dataDir() })).toMatchObject({
      host: '127.0.0.1',
      devSecrets: true,
    });
    // Only the encryption key generated: still a development setup.
    expect(loadConfig({ DATA_DIR: dataDir(), JWT_SECRET: secret }).host).toBe('127.0.0.1');
    expect(loadConfig({ DATA_DIR: dataDir(), HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    const configured = loadConfig({ DATA_DIR: dataDir(), JWT_SECRET: secret, ENCRYPTION_KEY: key });
    expect(configured).toMatchObject({ host: undefined, devSecrets: false });
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://db/a',
        JWT_SECRET: secret,
        ENCRYPTION_KEY: key,
        HOST: '::1',
      }).host,
    ).toBe('::1');
    expect(() => loadConfig({ DATA_DIR: dataDir(), HOST: 'http://0.0.0.0' })).toThrow(/HOST/);
  });

  it('creates DATA_DIR 0700 and the secrets file 0600, and refuses a secrets file others can read', () => {
    const dir = join(dataDir(), 'nested', 'data');
    loadConfig({ DATA_DIR: dir });
    const file = join(dir, 'dev-secrets.json');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const mode of [0o644, 0o640, 0o602]) {
      chmodSync(file, mode);
      expect(() => loadConfig({ DATA_DIR: dir })).toThrow(
        `${file} is readable or writable by other users (mode ${mode.toString(8)}): run \`chmod 600 ${file}\` and start again`,
      );
    }
    chmodSync(file, 0o400);
    expect(loadConfig({ DATA_DIR: dir }).devSecrets).toBe(true);
    // Not read at all when the secrets are configured.
    chmodSync(file, 0o644);
    expect(() =>
      loadConfig({ DATA_DIR: dir, JWT_SECRET: secret, ENCRYPTION_KEY: key }),
    ).not.toThrow();
  });

  it('reads JWT_REQUIRE_EXP, AUTH_FAILURE_LIMIT_PER_MINUTE and TRUST_PROXY', () => {
    const defaults = loadConfig({ DATA_DIR: dataDir() });
    expect(defaults).toMatchObject({
      jwt: { requireExpiration: true },
      authFailureLimitPerMinute: 300,
      trustProxy: false,
    });
    const set = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir(), ...env });
    expect(set({ JWT_REQUIRE_EXP: 'false' }).jwt.requireExpiration).toBe(false);
    expect(set({ AUTH_FAILURE_LIMIT_PER_MINUTE: '0' }).authFailureLimitPerMinute).toBe(0);
    expect(set({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(set({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(set({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8, 192.0.2.7' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.7',
    ]);
    expect(() => set({ TRUST_PROXY: 'loopback,proxy.internal' })).toThrow(
      /TRUST_PROXY must be .*; not proxy.internal/,
    );
    expect(() => set({ AUTH_FAILURE_LIMIT_PER_MINUTE: '-1' })).toThrow(
      /AUTH_FAILURE_LIMIT_PER_MINUTE/,
    );
    expect(() => set({ JWT_REQUIRE_EXP: 'maybe' })).toThrow(/JWT_REQUIRE_EXP/);
  });
  it('keeps the development key of DATA_DIR as a previous key when ENCRYPTION_KEY replaces it on the embedded database', () => {
    const dir = dataDir();
    const dev = loadConfig({ DATA_DIR: dir });
    const devKey = dev.encryption.currentKey;
    const file = join(dir, 'dev-secrets.json');
    const configured = loadConfig({ DATA_DIR: dir, JWT_SECRET: secret, ENCRYPTION_KEY: key });
    expect(configured.encryption.currentKey.toString('base64')).toBe(key);
    expect(configured.encryption.previousKeys).toEqual([devKey]);
    expect(configured.encryption.devKeyKeptFrom).toBe(file);
    // Only JWT_SECRET left to the file: the same.
    expect(loadConfig({ DATA_DIR: dir, ENCRYPTION_KEY: key }).encryption.previousKeys).toEqual([
      devKey,
    ]);
    // Already a previous key: once, and nothing to say.
    const listed = loadConfig({
      DATA_DIR: dir,
      ENCRYPTION_KEY: key,
      ENCRYPTION_PREVIOUS_KEYS: devKey.toString('base64'),
    }).encryption;
    expect(listed).toMatchObject({ previousKeys: [devKey], devKeyKeptFrom: undefined });
    // The same key configured, no file, another database, or a file others can change: nothing kept.
    const same = loadConfig({ DATA_DIR: dir, ENCRYPTION_KEY: devKey.toString('base64') });
    expect(same.encryption).toMatchObject({ previousKeys: [], devKeyKeptFrom: undefined });
    const fresh = loadConfig({ DATA_DIR: dataDir(), JWT_SECRET: secret, ENCRYPTION_KEY: key });
    expect(fresh.encryption.previousKeys).toEqual([]);
    const postgres = { DATABASE_URL: 'postgres://x/y', JWT_SECRET: secret, ENCRYPTION_KEY: key };
    expect(loadConfig({ ...postgres, DATA_DIR: dir }).encryption.previousKeys).toEqual([]);
    chmodSync(file, 0o644);
    const unsafe = loadConfig({ DATA_DIR: dir, JWT_SECRET: secret, ENCRYPTION_KEY: key });
    expect(unsafe.encryption.previousKeys).toEqual([]);
  });

  it('counts an empty JWT_SECRET and ENCRYPTION_KEY as unset (docker-compose.yml clears them for the embedded service)', () => {
    const dir = dataDir();
    const dev = loadConfig({ DATA_DIR: dir });
    const cleared = loadConfig({
      DATA_DIR: dir,
      DATABASE_URL: '',
      JWT_SECRET: '',
      ENCRYPTION_KEY: '',
    });
    expect(cleared).toMatchObject({ devSecrets: true, databaseUrl: undefined });
    expect(cleared.encryption.currentKey).toEqual(dev.encryption.currentKey);
    expect(cleared.jwt).toEqual(dev.jwt);
  });
});
