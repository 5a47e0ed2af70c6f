const WILDCARDS = new Set(['::', '0.0.0.0']);
const DATA_DIR_ERRORS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC']);

/** What the operator must fix, in one line: the usual start-up failures by their system code. */
export function describeStartupFailure(error: unknown): string {
  const failure = error as NodeJS.ErrnoException & { address?: string; port?: number };
  const message = error instanceof Error ? error.message : String(error);
  if (failure?.syscall === 'listen' && failure.code === 'EADDRINUSE') {
    // HOST unset listens on every interface: `::` (or `0.0.0.0`) means nothing to most readers.
    const where = WILDCARDS.has(failure.address ?? '') ? 'every interface' : failure.address;
    return `port ${failure.port} is already in use on ${where}: stop what listens there, or set PORT to another port`;
  }
  if (failure?.syscall === 'listen' && failure.code === 'EACCES') {
    return `not allowed to listen on port ${failure.port}: use a port above 1023, or set PORT`;
  }
  if (failure?.code && DATA_DIR_ERRORS.has(failure.code) && failure.path) {
    return `cannot write ${failure.path} (${failure.code}): DATA_DIR must be a directory this user can write (in a container, mount a volume there)`;
  }
  return message;
}
