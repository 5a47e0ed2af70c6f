import { describeStartupFailure } from './startup-failure';

const systemError = (fields: Record<string, unknown>) =>
  Object.assign(new Error(`raw ${String(fields.code)}`), fields);

describe('describeStartupFailure', () => {
  it('names the port in use, or one that needs privileges', () => {
    expect(
      describeStartupFailure(
        systemError({ code: 'EADDRINUSE', syscall: 'listen', address: '127.0.0.1', port: 3000 }),
      ),
    ).toBe(
      'port 3000 is already in use on 127.0.0.1: stop what listens there, or set PORT to another port',
    );
    for (const address of ['::', '0.0.0.0']) {
      expect(
        describeStartupFailure(
          systemError({ code: 'EADDRINUSE', syscall: 'listen', address, port: 3000 }),
        ),
      ).toBe(
        'port 3000 is already in use on every interface: stop what listens there, or set PORT to another port',
      );
    }
    expect(
      describeStartupFailure(systemError({ code: 'EACCES', syscall: 'listen', port: 80 })),
    ).toBe('not allowed to listen on port 80: use a port above 1023, or set PORT');
  });

  it('names the data directory that cannot be written', () => {
    for (const code of ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC']) {
      expect(
        describeStartupFailure(systemError({ code, syscall: 'mkdir', path: '/app/data' })),
      ).toBe(
        `cannot write /app/data (${code}): DATA_DIR must be a directory this user can write (in a container, mount a volume there)`,
      );
    }
  });

  it('keeps any other message as it is', () => {
    expect(describeStartupFailure(new Error('JWT_SECRET is too short'))).toBe(
      'JWT_SECRET is too short',
    );
    expect(describeStartupFailure('plain')).toBe('plain');
  });
});
