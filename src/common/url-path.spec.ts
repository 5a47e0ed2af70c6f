import { encodePath, UnsafePathSegmentError, urlWithPath } from './url-path';

describe('encodePath', () => {
  it('encodes each segment whole: slashes, queries, fragments and spaces stay inside it', () => {
    expect(encodePath('repos', 'a/b', 'c?d=1#e', 'f g', 'ñ')).toBe(
      '/repos/a%2Fb/c%3Fd%3D1%23e/f%20g/%C3%B1',
    );
    expect(encodePath(106540352242922, 'messages')).toBe('/106540352242922/messages');
  });

  it.each(['', '.', '..'])('refuses the segment %p', (segment) => {
    expect(() => encodePath('repos', segment, 'pulls')).toThrow(UnsafePathSegmentError);
  });

  it('keeps encoded dots literal, so that they cannot be read as ..', () => {
    expect(encodePath('%2e%2e', '.%2E', '...')).toBe('/%252e%252e/.%252E/...');
  });
});

describe('urlWithPath', () => {
  it("keeps the base's own path and drops its trailing slashes", () => {
    expect(urlWithPath('https://graph.example/v23.0/', '12', 'messages').href).toBe(
      'https://graph.example/v23.0/12/messages',
    );
    expect(urlWithPath('http://127.0.0.1:9', 'user').href).toBe('http://127.0.0.1:9/user');
  });

  it('never leaves the base path, whatever the segments hold', () => {
    const url = urlWithPath('https://api.example/v1', '../../admin', '%2e%2e');
    expect(url.pathname).toBe('/v1/..%2F..%2Fadmin/%252e%252e');
    expect(() => urlWithPath('https://api.example/v1', '..', 'admin')).toThrow(
      '".." cannot be a path segment',
    );
  });
});
