import { USAGE_PREFIX } from '#lib/store/usage-items';
import type { Grant } from './route-module.ts';

/** A Query of usage partitions only (contract §18): the routes that report usage read nothing else with it. */
export const QUERY_USAGE: Grant = {
  actions: ['dynamodb:Query'],
  on: ['keys'],
  conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${USAGE_PREFIX}*`] } },
};
