import middy, { type MiddlewareObj } from '@middy/core';
import { observeInvocation } from '#lib/observability';

/** The middy stack of a handler that is not an HTTP route (the stream consumers, the sweep). */
export function observed<E, R>() {
  return middy<E, R>().use(observeInvocation as MiddlewareObj<E, R>);
}
