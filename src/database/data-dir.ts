import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const PRIVATE_DIRECTORY = 0o700;
const GROUP_AND_OTHERS = 0o077;

/**
 * Makes DATA_DIR private to this user before the embedded database opens it: it holds phone
 * numbers, prompts, encrypted tokens and (in development) the secrets that open them.
 *
 * Files are created with modes the process does not choose (PGlite's Emscripten file system,
 * log files), and with the usual umask 022 those come out world-readable; so embedded mode sets the
 * process umask to 077 first, for everything written from then on. Files written before this
 * release are tightened by one walk at every boot, so upgraded installs are fixed too.
 *
 * Returns how many entries had their mode changed.
 */
export function secureDataDir(dataDir: string): number {
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIRECTORY });
  return tightenDataDir(dataDir);
}

/**
 * Takes every right of group and others away in DATA_DIR (`chmod -R go-rwx`): PGlite's 0666 files
 * become 0600 and its directories 0700, while the owner keeps what it had, so a DATA_DIR pointed at
 * a directory holding other things breaks nothing for its owner. PGlite chmods the files of a new
 * cluster (and a few it rewrites at start-up) to 0666/0644 itself, whatever the umask, so this runs
 * again once the database is open. Files it creates later cannot be read by anyone else either: no
 * other user can enter a 0700 directory. Symbolic links are left alone: what they point to is not
 * ours to change.
 */
export function tightenDataDir(dataDir: string): number {
  return tighten(dataDir, true);
}

function tighten(path: string, isDirectory: boolean): number {
  let changed = 0;
  try {
    const mode = lstatSync(path).mode & 0o777;
    if ((mode & GROUP_AND_OTHERS) !== 0) {
      chmodSync(path, mode & ~GROUP_AND_OTHERS);
      changed++;
    }
    if (!isDirectory) return changed;
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory() || entry.isFile()) {
        changed += tighten(join(path, entry.name), entry.isDirectory());
      }
    }
  } catch (error) {
    // A file that went away meanwhile (a previous process's temporary file) needs nothing.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return changed;
    throw new Error(
      `Cannot make ${path} private to this user (${(error as Error).message}); ` +
        `fix its owner or run \`chmod -R go-rwx ${path}\``,
    );
  }
  return changed;
}
