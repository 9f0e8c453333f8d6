import { describe, expect, it } from 'vitest';
import { Lru } from '#lib/keys/lru';

describe('the verified-keys LRU', () => {
  it('holds at most its capacity, forgetting the least recently used first', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.has('b')).toBe(false);
    expect([lru.get('a'), lru.get('c'), lru.size]).toEqual([1, 3, 2]);
    lru.set('a', 4); // replacing keeps one entry
    expect([lru.get('a'), lru.size]).toEqual([4, 2]);
    lru.delete('a');
    expect([lru.has('a'), lru.size]).toEqual([false, 1]);
  });

  it('refuses a capacity below one', () => {
    expect(() => new Lru(0)).toThrow(/capacity/);
  });
});
