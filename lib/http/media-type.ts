/** `application/json` or any `+json` type, with or without parameters (`; charset=utf-8`). */
const JSON_MEDIA_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/** The one media-type rule: the API and local mode's dev routes take JSON bodies only. */
export const isJsonMediaType = (contentType: string | undefined): boolean =>
  JSON_MEDIA_TYPE.test(contentType ?? '');
