import { describe, expect, it } from 'vitest';
import { toOrigin } from '#lib/origin';

/** The one origin rule of every origin list the service reads (lib/origin.ts). */
describe('an origin as the service reads it', () => {
  it('is the origin browsers send: lower-case host, default port dropped, an optional slash', () => {
    expect(toOrigin('https://App.Example.com:443/')).toBe('https://app.example.com');
    expect(toOrigin('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
  });

  it('is none for text that is no URL, another scheme, or anything after the host', () => {
    for (const value of [
      'not a url',
      'xhttp://app.example.com',
      'ftp://app.example.com',
      'https://app.example.com/path',
      'https://app.example.com/?q=1',
      'https://app.example.com/#top',
      'https://user@app.example.com',
      'https://user:pw@app.example.com',
    ])
      expect(toOrigin(value)).toBeUndefined();
  });
});
