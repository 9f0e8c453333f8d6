/**
 * The authorization server's items in the keys table (the layout of `items.ts`, continued):
 *
 * | item                   | pk                       | sk        | kept                          |
 * |------------------------|--------------------------|-----------|-------------------------------|
 * | authorization request  | `OAUTH_REQUEST#<id>`     | `REQUEST` | until its `expires_at` (TTL)  |
 * | registered client      | `OAUTH_CLIENT#<id>`      | `CLIENT`  | 30 days unless a grant used it|
 *
 * A grant is a key item (`KEY#<id>`), written by the key store's insert.
 */
export const requestKey = (id: string) => ({ pk: `OAUTH_REQUEST#${id}`, sk: 'REQUEST' });
export const clientKey = (id: string) => ({ pk: `OAUTH_CLIENT#${id}`, sk: 'CLIENT' });
