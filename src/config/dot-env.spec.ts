import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

describe('.env as `npm start` reads it (loadDotEnv: Node loadEnvFile, whose parser is parseEnv)', () => {
  it('reads `$` as it is, unlike docker compose, as the header of .env.example says', () => {
    expect(parseEnv("PLAIN=a$HOME\nQUOTED='a$HOME'\nDOUBLED=a$$b\n")).toEqual({
      PLAIN: 'a$HOME',
      // Single quotes: what docker compose reads too (it substitutes unquoted and double-quoted values).
      QUOTED: 'a$HOME',
      // `$$`, compose's escape, stays two.
      DOUBLED: 'a$$b',
    });
    const header = readFileSync(join(__dirname, '..', '..', '.env.example'), 'utf8').split(
      '\n\n',
    )[0];
    expect(header.replace(/\n# ?/g, ' ')).toContain(
      "docker compose replaces `$NAME` and `${NAME}` in unquoted and double-quoted values of this file; `npm start` (Node's loadEnvFile) does not. Write a value that holds a `$`",
    );
    expect(header).toContain("in single quotes, KEY='a$b'");
  });
});
